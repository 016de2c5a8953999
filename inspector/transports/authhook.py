"""What an HTTP transport knows of authorization: an object that supplies headers and is
asked what to do about a 401 or 403. OAuth itself lives in ``inspector.auth``.

A transport with a hook: adds ``await hook.headers()`` to every request (POSTs, the GET
stream, the legacy SSE stream, DELETE); shows requests' headers through ``hook.shown`` (a
token never reaches an event); on 401/403 calls ``hook.on_denied(...)`` after the status and
body are on the wire, and sends the request again when the answer is ``retry``, with fresh
headers; otherwise the request fails as before, with the hook's reason in its message.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Protocol

from inspector.wire.events import WireEvent

AUTH_STATUSES = frozenset({401, 403})


@dataclass(frozen=True, slots=True)
class Denial:
    """The hook's answer to a 401/403: send again, or fail with ``reason`` (or as is)."""

    retry: bool
    reason: str | None = None


class AuthHook(Protocol):
    def attach(self, emit: Callable[[WireEvent], None]) -> None:
        """Where the hook's own exchanges go (the transport's host)."""

    async def headers(
        self, *, refresh: bool = True, method: str = "POST", url: str | None = None
    ) -> dict[str, str]:
        """Headers for the next request (a token refreshed first when near expiry, unless
        ``refresh`` is False: closing a session does not start a refresh). ``method`` and
        ``url`` name the request (a DPoP proof is bound to them; None: the server's URL)."""

    def shown(self, headers: Mapping[str, str]) -> dict[str, str]:
        """``headers`` as events may show them (credentials masked)."""

    async def on_denied(
        self, status: int, headers: Mapping[str, str], sent: Mapping[str, str], attempt: int
    ) -> Denial:
        """A 401/403 with these response headers came back to a request sent with ``sent``;
        ``attempt`` counts the authorizations already tried for that request."""

    async def aclose(self) -> None:
        """Release what the hook holds (its HTTP client)."""


def denied_text(default: str, status: int, reason: str, excerpt: str, denial: Denial | None) -> str:
    """The failure message of a 401/403 the hook did not resolve: its reason (which step
    of the authorization failed, and why) instead of the generic hint, when it gave one."""
    if denial is None or not denial.reason:
        return default
    text = (
        f"HTTP {status} {reason}".rstrip()
        + f": authorization needed and not obtained: {denial.reason}"
    )
    return f"{text}; server said: {excerpt}" if excerpt else text
