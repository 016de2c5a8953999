"""The one transport interface: start, send a frame, report events, close.

A transport turns bytes into ``WireEvent``s and hands every one of them to its
host (the session's wire) before anything else happens; it never drops a frame
and never interprets one beyond framing.

What only some transports have (HTTP's session expiry and routing headers, stdio's
stderr and line framing, auto-detection's verdict) is declared here with a neutral
default, so callers ask the interface, never ``getattr`` or ``isinstance``. The engine
decides what the protocol means (the era, the tools' header annotations) and hands the
transport the result.

Per-frame metadata is passed, never inferred from the caller's context (as python-sdk's
``SessionMessage.metadata`` rides with a message): ``send_raw(raw, message, meta=...)``
puts ``meta`` on the frame's own outgoing event(s), and every other event the frame's
exchange brings (an HTTP response's status, body and stream, a stream it opens, a resent
request) carries it under ``SENT_WITH``, so the caller knows whose they are. A caller
that passes no ``meta`` gets no ``SENT_WITH``; one that does takes it off the event.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar, Protocol

from inspector.errors import InspectorError
from inspector.wire.events import WireEvent
from inspector.wire.jsonrpc import decode, encode

if TYPE_CHECKING:
    from anyio.abc import TaskGroup

# tool name -> argument path -> the name part of its ``Mcp-Param-{name}`` header: the
# tools' ``x-mcp-header`` annotations, mirrored into headers on tools/call (stateless era)
ToolHeaders = dict[str, dict[tuple[str, ...], str]]
FrameMeta = dict[str, Any]  # what the sender says about a frame (see the module doc)
Emit = Callable[[WireEvent], None]
Decode = Callable[[bytes], tuple[Any, str | None]]  # a frame -> (message, parse error)

SENT_WITH = "sent_with"  # meta: the ``meta`` of the frame whose exchange brought this event


def with_meta(event: WireEvent, meta: FrameMeta | None) -> WireEvent:
    """``event`` (a frame's own outgoing event) with the sender's ``meta`` on it."""
    if meta:
        event.meta.update(meta)
    return event


def exchange_emit(emit: Emit, meta: FrameMeta | None) -> Emit:
    """``emit`` for the other events of a frame's exchange: they carry ``SENT_WITH``."""
    if not meta:
        return emit

    def tagged(event: WireEvent) -> None:
        event.meta[SENT_WITH] = meta
        emit(event)

    return tagged


class TransportError(InspectorError):
    """The transport could not start or carry a frame. The message says what to do."""


@dataclass(slots=True)
class ConnectionLost:
    """Why a connection ended, with what the user needs to see to act on it."""

    message: str
    exit_code: int | None = None
    stderr_tail: list[str] = field(default_factory=list)
    # what a stdio server wrote on stdout that was not JSON-RPC: often a banner, the clue
    stdout_noise: list[str] = field(default_factory=list)
    http_status: int | None = None
    expected: bool = False  # True when we closed it ourselves

    def describe(self) -> str:
        parts = [self.message]
        if self.exit_code is not None:
            parts.append(f"exit code {self.exit_code}")
        if self.http_status is not None:
            parts.append(f"HTTP {self.http_status}")
        text = "; ".join(parts)
        if self.stderr_tail:
            text += "\nlast stderr lines:\n  " + "\n  ".join(self.stderr_tail)
        if self.stdout_noise:
            text += "\nlast non-JSON stdout lines:\n  " + "\n  ".join(self.stdout_noise)
        return text


class TransportHost(Protocol):
    """What a transport reports to: the session's wire. A host may also take the frames
    read together at once (``emit_many``, see ``emit_all``)."""

    def emit(self, event: WireEvent) -> None: ...

    def connection_lost(self, lost: ConnectionLost) -> None: ...


def emit_all(host: TransportHost, events: list[WireEvent]) -> None:
    """``events`` (read together, in order) to ``host``: in one ``emit_many`` when it has
    one (the session records them with one flush, before acting on any), else one by one."""
    emit_many = getattr(host, "emit_many", None)
    if emit_many is not None:
        emit_many(events)
        return
    for event in events:
        host.emit(event)


class Transport(ABC):
    """Base class: subclasses implement ``start``, ``send_raw`` and ``close``."""

    kind: ClassVar[str] = "transport"
    # tools/call mirrors arguments into Mcp-Param-* headers (HTTP, stateless era): then a
    # tool whose x-mcp-header annotations are invalid must not be offered
    mirrors_tool_headers: ClassVar[bool] = False
    # the session it carries is opened by someone else's handshake (a proxy answers
    # initialize with its host's): the era is known, probing it would only send the server
    # a request nobody asked for
    handshake_only: ClassVar[bool] = False
    # frames are lines of a byte stream (stdio): a blank line or a last line without its
    # newline is a frame too, and a relay passes it on as it came (``send_line``)
    line_framed: ClassVar[bool] = False
    # how a frame read of at least ``_big`` bytes is parsed (``set_decoder``)
    _big_decode: Decode = staticmethod(decode)
    _big: int = 1 << 62

    @property
    @abstractmethod
    def target(self) -> str:
        """A one-line human description of what we are connected to."""

    def target_info(self) -> dict[str, Any]:
        """Machine-readable target for session file headers (secrets redacted later)."""
        return {"transport": self.kind, "target": self.target}

    @abstractmethod
    async def start(self, host: TransportHost, task_group: TaskGroup) -> None:
        """Open the connection; background readers go into ``task_group``."""

    @abstractmethod
    async def send_raw(
        self, raw: bytes, message: Any = None, *, meta: FrameMeta | None = None
    ) -> None:
        """Emit the outgoing event to the host (``meta`` on it), then write ``raw`` as one
        frame; the rest of its exchange carries ``meta`` under ``SENT_WITH``."""

    async def send(self, message: Any, *, meta: FrameMeta | None = None) -> None:
        if meta is None:
            await self.send_raw(encode(message), message)
        else:
            await self.send_raw(encode(message), message, meta=meta)

    async def send_line(
        self,
        raw: bytes,
        message: Any = None,
        *,
        meta: FrameMeta | None = None,
        terminated: bool = True,
        error: str | None = None,
    ) -> None:
        """A frame passed on as it was read (a relay's): ``line_framed`` transports keep a
        last line without its newline (``terminated`` False) and take ``error``, the known
        parse error of ``raw``. Default: ``send_raw``."""
        await self.send_raw(raw, message, meta=meta)

    def set_decoder(self, big_decode: Decode, above: int) -> None:
        """Parse a frame read of at least ``above`` bytes with ``big_decode`` instead of
        the codec (the session's: a big answer to a call whose result is shown is parsed
        folded): the messages a transport reads are parsed through ``parse`` (stdio's
        lines, HTTP bodies and SSE events, the in-memory pair's frames); a transport that
        wraps others passes it on."""
        self._big_decode, self._big = big_decode, above

    def parse(self, raw: bytes) -> tuple[Any, str | None]:
        """A frame read, parsed as ``set_decoder`` says: ``(message, None)`` or ``(None,
        why not)``."""
        return decode(raw) if len(raw) < self._big else self._big_decode(raw)

    def batch_writes(self, before: Callable[[], None]) -> None:  # noqa: B027 - optional hook
        """Write the frames sent in one turn of the event loop together at its end, calling
        ``before`` first (a relay flushes its recording there: write-ahead). Default:
        nothing (each frame is written as it is sent)."""

    def keep_blank_lines(self) -> None:  # noqa: B027 - optional hook
        """Read blank lines as frames too (a relay passes them on as they came; only
        ``line_framed`` transports have them). Default: nothing."""

    async def drained(self, timeout: float = 1.0) -> None:  # noqa: B027 - optional hook
        """Wait (at most ``timeout`` s) until all the server wrote is read and emitted (a
        relay passes its last lines on before it closes its host's side). Default: at once."""

    @property
    def detected(self) -> str | None:
        """The kind an auto-detecting transport settled on (None: not yet, or fixed)."""
        return None

    @property
    def session_expired(self) -> bool:
        """The server ended our session (HTTP: a 404 to a request carrying its id)."""
        return False

    @property
    def stderr_tail(self) -> list[str]:
        """The server's last stderr lines (stdio); none elsewhere."""
        return []

    def exit_report(self) -> ConnectionLost | None:
        """What the server's own end says (stdio: its exit code and last stderr lines),
        once it has ended; None while it runs, and for transports without a process."""
        return None

    def set_protocol_version(self, version: str, *, stateless: bool) -> None:  # noqa: B027
        """Called once the version is known (after initialize, or before the first request
        of the stateless era, ``stateless``); HTTP sends it as a header and, stateless,
        routes every request on its own. Default: nothing."""

    def set_tool_headers(self, headers: ToolHeaders) -> None:  # noqa: B027 - optional hook
        """The listed tools' valid x-mcp-header annotations (``mirrors_tool_headers``
        transports send them on tools/call). Default: nothing."""

    def reset_protocol_version(self) -> None:  # noqa: B027 - optional hook
        """Forget the version set for an era probe that failed: the next message opens
        the connection afresh (HTTP: no stateless headers, and the first POST's status
        decides again). Default: nothing."""

    @abstractmethod
    async def close(self) -> None:
        """Close the connection and release every resource (idempotent)."""
