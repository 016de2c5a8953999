"""One host linked to one server connection, every frame through the proxy's wire.

The relay is the back transport's host (``TransportHost``): the transport emits each
frame's event, the relay tags it with its side, the wire records it (write-ahead), and
only then is the frame passed on. Whose a frame is goes with it: the relay sends it with
``meta`` (its side, and what intercept or the router did to it), the transport puts that
on the frame's event and hands it back on the events of its exchange (``SENT_WITH``: an
HTTP response's status, and its stream, where a server request is the sender's).

Host frames go to the server as they were read (a stdio server gets the very bytes, line
by line); server frames go to the host as they came, unless they belong to an attached
inspector (see ``router``).

The end, either way: when the host closes its side, the server is shut down the way the
TUI does it (the transport's ``close``: stdin closed, then SIGTERM, then SIGKILL to its
process group); when the server goes away, the host's side is closed after the last
frame, so the host sees the end of the stream.
"""

from __future__ import annotations

from collections import deque
from collections.abc import AsyncIterator
from typing import Any, Protocol

import anyio
from anyio.abc import TaskGroup

from inspector.engine.era import is_stateless
from inspector.proxy.intercept import DROP, FORWARD, Held, Interceptor
from inspector.proxy.origin import HOST_ORIGIN, INSPECTOR, SERVER_ORIGIN, Origin
from inspector.proxy.router import Outbound, Router
from inspector.proxy.wire import ProxyWire
from inspector.wire import jsonrpc
from inspector.wire.events import SIDE_KEY, Channel, Direction, WireEvent
from inspector.wire.transport import SENT_WITH, ConnectionLost, FrameMeta, Transport, TransportError

SERVER_GONE_GRACE = 3.0  # seconds a failed write waits for the transport's own report
CLIENT_CHANNELS = (Channel.BODY, Channel.SSE, Channel.SYSTEM, Channel.MEMORY)  # message carriers


class HostEnd(Protocol):
    """The host's side of a relay (the proxy's stdio, or an HTTP front's session)."""

    kind: str

    def frames(self) -> AsyncIterator[tuple[bytes, bool]]: ...

    def send(self, raw: bytes, event: WireEvent) -> None:
        """Pass a server frame (``raw``, one message or line) on; ``event`` is its event."""

    def stderr(self, line: bytes) -> None: ...

    async def close(self) -> None: ...


def is_jsonrpc(message: Any) -> bool:
    """A JSON-RPC message or batch (what a host must get), not some other JSON."""
    if isinstance(message, list):
        return bool(message) and all(is_jsonrpc(m) for m in message)
    return isinstance(message, dict) and (
        "method" in message or ("id" in message and ("result" in message or "error" in message))
    )


class Relay:
    """Host <-> proxy wire <-> server; attached inspectors send through ``from_inspector``."""

    def __init__(
        self,
        wire: ProxyWire,
        back: Transport,
        host: HostEnd,
        interceptor: Interceptor | None = None,
        *,
        host_coalesces: bool = False,
    ) -> None:
        """``host_coalesces``: the host writes the frames of a turn of the event loop at
        its end, after the wire's ``sync`` (the proxy's stdio), so they may be recorded
        with ``defer``."""
        self.wire = wire
        self.back = back
        self.host = host
        self.interceptor = interceptor
        self._outbox: deque[tuple[WireEvent, Held | None]] = deque()  # behind a held frame
        self.router = Router()
        self.lost: ConnectionLost | None = None  # the server's side ended
        self.host_left = False
        self.handshake = anyio.Event()  # the host's initialize was answered
        self.done = anyio.Event()
        self.link: int | None = None  # which host session, when a front has several
        self.pumping = False  # the host's frames are being read (a front may pass them in)
        self._lines = back.line_framed  # a stdio server: frames are lines, passed as read
        back.batch_writes(wire.sync)  # where writes are batched: the recording first
        self._host_batches = host_coalesces
        self._tg: TaskGroup | None = None

    @property
    def out_channel(self) -> Channel:
        """Where client frames travel to the server (how an inspector labels its own)."""
        return Channel.STDIN if self._lines else Channel.BODY

    @property
    def in_channel(self) -> Channel:
        return Channel.STDOUT if self._lines else Channel.BODY

    @property
    def exit_code(self) -> int | None:
        """The server's exit code when it ended on its own (None: the host left first)."""
        if self.lost is None or self.lost.expected:
            return None
        code = self.lost.exit_code
        if code is None:
            return 1
        return 128 - code if code < 0 else code  # killed by signal N: 128 + N, as a shell says

    async def run(self) -> None:
        """Relay until either side ends, then shut the other down. Raises
        ``TransportError`` when the server cannot be started or reached."""
        async with anyio.create_task_group() as tg:
            self._tg = tg
            await self.back.start(self, tg)
            tg.start_soon(self._pump_host)
            await self.done.wait()
            with anyio.CancelScope(shield=True):
                await self.back.close()
                await self.back.drained()  # a stdio server's last lines reach the host
                await self.host.close()
            tg.cancel_scope.cancel()

    def stop(self, why: str) -> None:
        """End the relay from outside (a signal): the server is shut down."""
        if not self.done.is_set():
            self._note(f"{why}: shutting the server down")
            self.done.set()

    def _note(self, text: str, severity: str = "info", **meta: Any) -> None:
        if self.link is not None:
            meta["link"] = self.link
        self.wire.note(text, severity, **meta)

    # -- the host --------------------------------------------------------------------

    async def _pump_host(self) -> None:
        self.pumping = True
        try:
            async for line, terminated in self.host.frames():
                await self.from_host(line, terminated)
        except TransportError as exc:
            self.pumping = False
            await self._server_unreachable(exc)
            return
        finally:
            self.pumping = False
        if not self.done.is_set():
            self.host_left = True
            self._note("the host closed its side: shutting the server down")
            self.done.set()

    async def host_frame(self, line: bytes, message: Any = None) -> None:
        """One host frame passed on from the front's own task, as the pump passes it (a
        front does so only while the pump runs and has nothing queued: the order holds);
        ``message``: ``line`` decoded, when the front has done it (None: decoded here)."""
        try:
            await self.from_host(line, message=message)
        except TransportError as exc:
            await self._server_unreachable(exc)

    async def _server_unreachable(self, exc: TransportError) -> None:
        """A host frame could not be passed on: the server's side is gone, not the host.
        The transport says how it ended (its exit code) within a moment; else the relay
        ends with this failure."""
        if self.done.is_set():
            return
        self._note(f"could not pass a frame on: {exc}", severity="error")
        with anyio.move_on_after(SERVER_GONE_GRACE):
            await self.done.wait()
        if not self.done.is_set():
            self.connection_lost(ConnectionLost(f"could not write to the server: {exc}"))

    async def from_host(self, line: bytes, terminated: bool = True, message: Any = None) -> None:
        """One frame of the host, passed on unchanged (unless intercept holds it and an
        inspector edits or drops it); ``message``: ``line`` decoded already (valid JSON),
        or None."""
        error: str | None = None
        if message is None:
            message, error = jsonrpc.decode(line)
        frame_meta: dict[str, Any] = {}
        if self.interceptor is not None and self.interceptor.active:
            probe = WireEvent(
                Direction.OUT, self.out_channel, line, message, error, HOST_ORIGIN.meta()
            )
            if self.interceptor.wants(probe):
                held = self.interceptor.hold(probe)
                await held.decided.wait()  # the host's later frames wait behind it
                if held.action == DROP:
                    return
                frame_meta = {"intercept": "forwarded", "held": held.number}
                if held.replacement is not None:
                    frame_meta.update(intercept="edited", original=probe.text())
                    line, terminated = held.replacement, True
                    message, error = jsonrpc.decode(line)
        if message is not None:
            self.router.host_sent(message)
        if not self._lines and not line.strip():
            self._note("a blank line from the host: not sent (HTTP carries messages)")
            return
        meta = self._frame_meta(HOST_ORIGIN, frame_meta)
        await self.back.send_line(line, message, meta=meta, terminated=terminated, error=error)

    def _frame_meta(self, origin: Origin, facts: dict[str, Any]) -> FrameMeta:
        """What a frame is sent with: its link, its side, then what was done to it."""
        meta: FrameMeta = {} if self.link is None else {"link": self.link}
        meta.update(origin.meta())
        meta.update(facts)
        return meta

    # -- an inspector ----------------------------------------------------------------

    async def from_inspector(self, attach: int, raw: bytes) -> Outbound:
        """Send an inspector's frame (ids rewritten), or say what to answer it instead."""
        message, error = jsonrpc.decode(raw)
        outbound = self.router.inspector_sent(attach, message if error is None else None)
        if outbound.wait_handshake:
            await self.handshake.wait()
            assert isinstance(message, dict)
            outbound = Outbound(reply=self.router.handshake_reply(message.get("id")))
        if outbound.message is not None:
            await self._send_as(Origin(INSPECTOR, attach), outbound.message, outbound.meta)
        return outbound

    async def _send_as(self, origin: Origin, message: Any, facts: dict[str, Any]) -> None:
        meta = self._frame_meta(origin, facts)
        await self.back.send_raw(jsonrpc.encode(message), message, meta=meta)

    async def detach(self, attach: int) -> None:
        """An inspector left: the server's requests it owed an answer get an error."""
        for id_ in self.router.detach(attach):
            reply = jsonrpc.error_response(
                id_,
                jsonrpc.INTERNAL_ERROR,
                f"the inspector this request went to (attach {attach}) detached",
            )
            if self.lost is None:
                try:
                    await self._send_as(Origin(INSPECTOR, attach), reply, {"proxy": "detached"})
                except TransportError as exc:
                    self._note(f"could not answer the server: {exc}", severity="warning")

    # -- the server: TransportHost ---------------------------------------------------

    def emit(self, event: WireEvent) -> None:
        sent_with: FrameMeta | None = event.meta.pop(SENT_WITH, None)
        if self.link is not None:
            event.meta["link"] = self.link
        sender = Origin.of(sent_with)
        if event.direction is Direction.OUT:
            if SIDE_KEY not in event.meta:  # not a frame we sent: its exchange's, or the host's
                event.meta.update(sent_with or HOST_ORIGIN.meta())
            # a stdio server's stdin is written at the end of the turn, after a sync; an
            # HTTP POST's request line is followed at once by its body's event, flushed
            # before the request is sent (``_emit_post``): the two are one flush
            if self._lines:
                defer = event.channel is Channel.STDIN
            else:
                defer = event.channel is Channel.HTTP and event.meta.get("method") == "POST"
            self.wire.emit(event, defer=defer)
            return
        if event.direction is Direction.LOCAL:
            self.wire.emit(event)
            return
        if event.channel is Channel.STDERR:
            event.meta.update(SERVER_ORIGIN.meta())
            self.wire.emit(event, defer=self._host_batches)
            self.host.stderr(event.raw)
            return
        if not self._for_client(event):  # HTTP status lines, SSE control blocks...
            if sender is not None:
                event.meta.update(sender.meta())
            # nothing is passed on for it: on disk with the next event flushed (a
            # response's body), or at the end of this turn of the event loop
            self.wire.emit(event, defer=not self._lines)
            return
        # a request's own response stream says whose it is; the GET stream does not
        on_post = str(event.meta.get("stream", "")).startswith("post:")
        route = self.router.server_sent(event.message, sender if on_post else None)
        event.meta.update(route.origin.meta())
        event.meta.update(route.meta)
        number = None
        if route.to_host and self.interceptor is not None and self.interceptor.wants(event):
            number = self.interceptor.reserve()
            event.meta.update(intercept="held", held=number)
        # write-ahead: recorded before anyone gets it (a batching host syncs first)
        self.wire.emit(event, route, defer=self._host_batches and route.to_host)
        if route.note:
            self._note(route.note)
        if route.handshake:
            self._handshake_done(event.message)
        if route.to_host:
            held = None
            if number is not None and self.interceptor is not None:
                held = self.interceptor.hold(event, number)
                held.callbacks.append(self._drain_outbox)
            self._to_host(event, held)

    def _for_client(self, event: WireEvent) -> bool:
        if self._lines:
            return event.channel is Channel.STDOUT
        return event.channel in CLIENT_CHANNELS and is_jsonrpc(event.message)

    def _to_host(self, event: WireEvent, held: Held | None = None) -> None:
        if not self._host_batches:
            self.wire.sync()  # an HTTP front's streams write later, in other tasks
        if held is None and not self._outbox:
            self.host.send(event.raw, event)
            return
        self._outbox.append((event, held))  # in order, behind what is held
        self._drain_outbox()

    def _drain_outbox(self) -> None:
        while self._outbox:
            event, held = self._outbox[0]
            if held is not None and held.action is None:
                return
            self._outbox.popleft()
            if held is None:
                self.host.send(event.raw, event)
            elif held.action == FORWARD:
                self.host.send(held.frame, event)

    def _handshake_done(self, message: Any) -> None:
        result = message.get("result") if isinstance(message, dict) else None
        version = result.get("protocolVersion") if isinstance(result, dict) else None
        if isinstance(version, str):
            # HTTP sends it as a header from now on
            self.back.set_protocol_version(version, stateless=is_stateless(version))
        self.handshake.set()

    def connection_lost(self, lost: ConnectionLost) -> None:
        if self.lost is not None:
            return
        self.lost = lost
        if lost.expected:
            code = "" if lost.exit_code is None else f" (exit code {lost.exit_code})"
            self._note(f"the server stopped{code}", exit_code=lost.exit_code)
        else:
            self._note(
                f"the server's side ended: {lost.describe()}; closing the host's side",
                severity="warning",
                exit_code=lost.exit_code,
            )
        self.done.set()
