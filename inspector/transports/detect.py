"""Pick the HTTP transport: Streamable HTTP, legacy HTTP+SSE, or detect it.

Detection follows the spec's backwards-compatibility rule without a probe of our
own: the session's first message (its ``initialize``) goes out as a Streamable
HTTP POST; if that POST is answered 400, 404 or 405, ``AutoHttpTransport`` notes
"falling back to legacy SSE" (a SYSTEM event), opens the legacy GET stream on the
same URL and re-sends the first message there. The wire shows both attempts.
"""

from __future__ import annotations

from typing import Any, ClassVar

import anyio
from anyio.abc import TaskGroup

from inspector.transports.authhook import AuthHook
from inspector.transports.http import FALLBACK_STATUSES, StreamableHttpTransport
from inspector.transports.httpwire import system_note
from inspector.transports.sse import SseTransport
from inspector.wire.events import WireEvent
from inspector.wire.jsonrpc import decode
from inspector.wire.transport import (
    ConnectionLost,
    Decode,
    FrameMeta,
    ToolHeaders,
    Transport,
    TransportError,
    TransportHost,
)

TRANSPORT_NAMES = ("auto", "http", "streamable-http", "sse")


def connect_http(
    url: str,
    headers: dict[str, str] | None = None,
    transport: str = "auto",
    *,
    timeout: float = 30.0,
    verify: bool | str = True,
    follow_redirects: bool = False,
    auth: AuthHook | None = None,
) -> Transport:
    """The transport for an HTTP server URL; ``transport`` is auto, http or sse.
    ``follow_redirects``: follow redirects to other origins too (without credentials);
    ``auth`` supplies credentials and answers 401/403 (``inspector.transports.authhook``)."""
    name = transport.lower()
    follow = follow_redirects
    if name in ("http", "streamable-http", "streamable_http", "streamablehttp"):
        return StreamableHttpTransport(
            url, headers, timeout, verify, follow_redirects=follow, auth=auth
        )
    if name == "sse":
        return SseTransport(url, headers, timeout, verify, follow_redirects=follow, auth=auth)
    if name == "auto":
        return AutoHttpTransport(url, headers, timeout, verify, follow_redirects=follow, auth=auth)
    raise TransportError(
        f"unknown HTTP transport {transport!r}; use one of: " + ", ".join(TRANSPORT_NAMES)
    )


def _is_cancel(raw: bytes, message: Any) -> bool:
    if message is None:
        message, _ = decode(raw)
    return isinstance(message, dict) and message.get("method") == "notifications/cancelled"


class _Relay:
    """The host an inner transport reports to: events pass, a loss only from the active one."""

    def __init__(self, owner: AutoHttpTransport, inner: Transport) -> None:
        self.owner = owner
        self.inner = inner

    def emit(self, event: WireEvent) -> None:
        assert self.owner.host is not None
        self.owner.host.emit(event)

    def connection_lost(self, lost: ConnectionLost) -> None:
        if self.owner.active is self.inner:
            self.owner.report_lost(lost)


class AutoHttpTransport(Transport):
    """Streamable HTTP first; legacy HTTP+SSE when the first POST says it is not that."""

    kind: ClassVar[str] = "auto"
    mirrors_tool_headers: ClassVar[bool] = True  # whichever it settles on (as before)

    def __init__(
        self,
        url: str,
        headers: dict[str, str] | None = None,
        timeout: float = 30.0,
        verify: bool | str = True,
        *,
        follow_redirects: bool = False,
        auth: AuthHook | None = None,
    ) -> None:
        self.url = url
        self.headers = dict(headers or {})
        self.timeout = timeout
        self.verify = verify
        self.follow_redirects = follow_redirects
        self.auth = auth
        self.streamable = StreamableHttpTransport(
            url, headers, timeout, verify, follow_redirects=follow_redirects, auth=auth
        )
        self.streamable.on_first_response = self._on_first_response
        self.legacy: SseTransport | None = None
        self.active: Transport = self.streamable
        self.fallback_status: int | None = None
        self.host: TransportHost | None = None
        self._tg: TaskGroup | None = None
        self._first: tuple[bytes, Any, FrameMeta | None] | None = None  # replayed on fallback
        self._decided: anyio.Event | None = None  # made in start() (needs the event loop)
        self._version: tuple[str, bool] | None = None  # (version, stateless) once set
        self._lost = False

    @property
    def target(self) -> str:
        return self.active.target

    @property
    def detected(self) -> str | None:
        """``"http"`` or ``"sse"`` once the first POST was answered, else None."""
        if not self._is_decided():
            return None
        return self.active.kind

    @property
    def session_expired(self) -> bool:
        return self.streamable.session_expired and self.active is self.streamable

    def target_info(self) -> dict[str, Any]:
        info = self.active.target_info()
        info["detected_by"] = "auto"
        return info

    def set_protocol_version(self, version: str, *, stateless: bool) -> None:
        self._version = (version, stateless)
        self.active.set_protocol_version(version, stateless=stateless)

    def reset_protocol_version(self) -> None:
        """After a refused stateless probe: the next POST (initialize) is the first again,
        so a legacy HTTP+SSE server is still found by its status."""
        self._version = None
        self.active.reset_protocol_version()
        if self.active is self.streamable:
            self._rearm()

    def _rearm(self) -> None:
        """The next POST is the first again: its status tells Streamable HTTP from legacy."""
        self._first = None
        if self._decided is not None:
            self._decided.set()  # whatever waited for the last first POST goes on
        self._decided = anyio.Event()
        self.streamable.expect_first()
        self.streamable.on_first_response = self._on_first_response  # one-shot: re-armed

    def set_decoder(self, big_decode: Decode, above: int) -> None:
        """Both transports parse as the session says, whichever is settled on."""
        super().set_decoder(big_decode, above)
        for transport in (self.streamable, self.legacy):
            if transport is not None:
                transport.set_decoder(big_decode, above)

    def set_tool_headers(self, headers: ToolHeaders) -> None:
        """x-mcp-header annotations for the Streamable HTTP transport (stateless era)."""
        self.streamable.set_tool_headers(headers)

    async def start(self, host: TransportHost, task_group: TaskGroup) -> None:
        self.host = host
        self._tg = task_group
        self._decided = anyio.Event()
        await self.streamable.start(_Relay(self, self.streamable), task_group)

    async def send_raw(
        self, raw: bytes, message: Any = None, *, meta: FrameMeta | None = None
    ) -> None:
        if self._first is None:
            self._first = (raw, message, meta)
            await self.streamable.send_raw(raw, message, meta=meta)
            return
        if self._decided is not None and not self._decided.is_set():
            if _is_cancel(raw, message):
                # cancelling the first request, whose POST got no status: Streamable HTTP
                # stops reading it (waiting for a status that never comes would hold the
                # caller for another timeout)
                await self.streamable.send_raw(raw, message, meta=meta)
                return
            with anyio.move_on_after(self.timeout):  # the first POST's status, bounded
                await self._decided.wait()
        await self.active.send_raw(raw, message, meta=meta)

    def _is_decided(self) -> bool:
        return self._decided is not None and self._decided.is_set()

    def _decide(self) -> None:
        if self._decided is not None:
            self._decided.set()

    def _on_first_response(self, status: int | None) -> bool:
        # a stateless (2026-07-28) request has no legacy HTTP+SSE form to fall back to
        if status in FALLBACK_STATUSES and self._tg is not None and not self.streamable.stateless:
            if not self._first_initializes():
                # a proxy host's own era probe (server/discover), refused: the refusal goes
                # back to the host, whose initialize comes next and is the first POST again
                self._rearm()
                return False
            self.fallback_status = status
            self._tg.start_soon(self._fall_back, status)
            return True
        self._decide()
        return False

    def _first_initializes(self) -> bool:
        assert self._first is not None
        raw, message, _ = self._first
        if message is None:
            message, _ = decode(raw)
        items = message if isinstance(message, list) else [message]
        return any(isinstance(m, dict) and m.get("method") == "initialize" for m in items)

    async def _fall_back(self, status: int) -> None:
        assert self.host is not None and self._tg is not None and self._first is not None
        self.host.emit(
            system_note(
                f"Streamable HTTP POST answered {status}: falling back to legacy HTTP+SSE "
                f"(GET {self.url})",
                "warning",
                fallback="sse",
                http_error=status,
            )
        )
        legacy = SseTransport(
            self.url,
            self.headers,
            self.timeout,
            self.verify,
            follow_redirects=self.follow_redirects,
            auth=self.auth,
        )
        legacy.set_decoder(self._big_decode, self._big)
        self.legacy = legacy
        self.active = legacy
        await self.streamable.close()
        try:
            await legacy.start(_Relay(self, legacy), self._tg)
        except TransportError as exc:
            self.report_lost(ConnectionLost(str(exc)))
            self._decide()
            return
        if self._version is not None:
            version, stateless = self._version
            legacy.set_protocol_version(version, stateless=stateless)
        self._decide()
        raw, message, meta = self._first
        await legacy.send_raw(raw, message, meta=meta)

    def report_lost(self, lost: ConnectionLost) -> None:
        if self._lost or self.host is None:
            return
        self._lost = True
        if self.fallback_status is not None and not lost.expected:
            lost.message += (
                f" (after falling back to legacy HTTP+SSE because the Streamable "
                f"HTTP POST was answered {self.fallback_status})"
            )
        self.host.connection_lost(lost)

    async def close(self) -> None:
        await self.active.close()
        if self.active is not self.streamable:
            await self.streamable.close()
