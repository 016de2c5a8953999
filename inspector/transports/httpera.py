"""The two eras of Streamable HTTP as rules the transport asks, chosen when the version is
set (the engine's ``era`` does the same for the session; the session tells the transport
whether its version is stateless, the transport never asks the engine).

The session era (2025-03-26 .. 2025-11-25): ``Mcp-Session-Id`` from the initialize
response on every later request, an optional standing GET stream, response streams
resumed with ``Last-Event-ID``, ``notifications/cancelled`` posted, the session ended
with a DELETE.

The stateless era (2026-07-28): every POST is self-contained, with ``Mcp-Method`` and
``Mcp-Name`` routing headers and the tool's ``Mcp-Param-*`` headers; no session id (one
the server sends is ignored, with a warning), no GET stream, no DELETE, streams that
cannot be resumed, and a cancelled request's response stream closed instead of posting
``notifications/cancelled``.
"""

from __future__ import annotations

from dataclasses import dataclass

from inspector.transports.httpout import Outgoing
from inspector.transports.httpwire import param_headers, routing_headers
from inspector.wire.transport import ToolHeaders


@dataclass(frozen=True, slots=True)
class HttpEra:
    """What an era's HTTP does; the transport asks, never compares versions."""

    stateless: bool
    keeps_session: bool  # takes Mcp-Session-Id from initialize, DELETEs it on close
    opens_get_stream: bool  # a standing GET stream for server-initiated messages
    resumes_streams: bool  # a broken response stream is resumed with Last-Event-ID
    posts_cancel: bool  # notifications/cancelled is posted (else: the stream is closed)

    def headers(self, out: Outgoing, tool_headers: ToolHeaders) -> dict[str, str]:
        """What this era adds to a POST's headers (routing, mirrored tool arguments)."""
        if not self.stateless:
            return {}
        headers = routing_headers(out.message)
        if out.tool is not None:
            headers.update(param_headers(tool_headers.get(out.tool, {}), out.arguments))
        return headers


SESSION_ERA = HttpEra(
    stateless=False,
    keeps_session=True,
    opens_get_stream=True,
    resumes_streams=True,
    posts_cancel=True,
)
STATELESS_ERA = HttpEra(
    stateless=True,
    keeps_session=False,
    opens_get_stream=False,
    resumes_streams=False,
    posts_cancel=False,
)


def http_era(stateless: bool) -> HttpEra:
    return STATELESS_ERA if stateless else SESSION_ERA
