"""One client message on its way to an HTTP server, parsed once.

What the Streamable HTTP transport asks of a message (its method, its request id, the
request a cancel names, a tool call's name and arguments) is read here once, when it is
sent, instead of at every step of its exchange; the exchange's own state (the headers
of its latest attempt, whether it is a session's first POST, the sender's ``meta`` and
where the exchange's events go) travels with it, as python-sdk's request context does.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from inspector.wire.jsonrpc import decode
from inspector.wire.transport import Emit, FrameMeta


@dataclass(slots=True)
class Outgoing:
    """A message to POST: its bytes, what it is, and its exchange's headers so far."""

    raw: bytes
    message: Any
    emit: Emit  # the exchange's events (status, bodies, streams) go here: see ``SENT_WITH``
    meta: FrameMeta | None = None  # the sender's, on the POST's own events
    method: str | None = None
    rid: Any = None  # the request id (a request's; None for notifications and responses)
    cancels: Any = None  # notifications/cancelled: the request id it names
    tool: str | None = None  # tools/call: the tool's name...
    arguments: Any = None  # ...and its arguments (mirrored into Mcp-Param-* headers)
    headers: dict[str, str] = field(default_factory=dict)  # the latest attempt's
    first: bool = False  # a session's first POST (its status may mean another transport)

    @classmethod
    def parse(cls, raw: bytes, message: Any, emit: Emit, meta: FrameMeta | None = None) -> Outgoing:
        """``message`` is ``raw`` parsed (None: parse it here)."""
        if message is None:
            message, _ = decode(raw)
        out = cls(raw, message, emit, meta)
        if not isinstance(message, dict):
            return out
        method = message.get("method")
        out.method = method if isinstance(method, str) else None
        if method is not None:
            out.rid = message.get("id")
        params = message.get("params")
        if isinstance(params, dict):
            if method == "notifications/cancelled":
                out.cancels = params.get("requestId")
            elif method == "tools/call":
                out.tool = str(params.get("name"))
                out.arguments = params.get("arguments")
        return out

    @property
    def is_request(self) -> bool:
        return self.rid is not None

    @property
    def what(self) -> str:
        """How a failure names the message: its method, or ``response``."""
        return self.method or "response"
