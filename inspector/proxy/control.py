"""The attach socket: inspectors connect, watch the proxy's wire live, and send frames.

A Unix domain socket in the user's runtime folder (``runtime``), mode 0600, never a TCP
port; a peer of another user is refused (``SO_PEERCRED``). Each inspector gets a number,
the past (the wire's history), then every event as it happens; what it sends goes into
the same server connection through the relay (ids rewritten). Any number may attach at
once; one leaving changes nothing for the others or for the host.
"""

from __future__ import annotations

import contextlib
import dataclasses
import itertools
import os
import socket
import struct
from collections.abc import Callable
from pathlib import Path
from types import TracebackType
from typing import Any

import anyio
from anyio.abc import SocketAttribute, SocketListener, SocketStream, TaskGroup

from inspector.proxy.channel import (
    PROTOCOL,
    ChannelError,
    event_line,
    op_line,
    raw_from,
    read_lines,
)
from inspector.proxy.intercept import Interceptor
from inspector.proxy.origin import INSPECTOR, Origin
from inspector.proxy.relay import Relay
from inspector.proxy.router import Outbound, Route
from inspector.proxy.runtime import own_uid, socket_path
from inspector.proxy.wire import ProxyWire
from inspector.record.format import EVENT_ENCODER, event_to_json
from inspector.wire import jsonrpc
from inspector.wire.events import Channel, Direction, WireEvent

HELLO_TIMEOUT = 10.0
QUEUE_LINES = 200_000  # an inspector this far behind is let go, never waited for
WRITE_BATCH = 1 << 18
BYE_WAIT = 1.0
OWN_CHANNELS = (Channel.STDIN, Channel.BODY)  # an inspector's own frames: it shows them itself


def peer_credentials(stream: SocketStream) -> tuple[int, int] | None:
    """(pid, uid) of the process at the other end (Linux), or None when unknown."""
    sock = stream.extra(SocketAttribute.raw_socket, None)
    option = getattr(socket, "SO_PEERCRED", None)
    if sock is None or option is None:
        return None
    data = sock.getsockopt(socket.SOL_SOCKET, option, struct.calcsize("3i"))
    pid, uid, _gid = struct.unpack("3i", data)
    return pid, uid


class Attachment:
    """One connected inspector: a queue of lines and the task that writes them."""

    def __init__(
        self, number: int, stream: SocketStream, before: Callable[[], None] | None = None
    ) -> None:
        """``before`` runs just before each write (the wire's sync: the recording has every
        event first, even one deferred in the turn that woke this writer)."""
        self.number = number
        self.stream = stream
        self.before = before
        self._send, self._receive = anyio.create_memory_object_stream[bytes](QUEUE_LINES)
        self.overflowed = False
        self.scope = anyio.CancelScope()  # cancelled to hang up on it

    def push(self, line: bytes) -> None:
        if self.overflowed:
            return
        try:
            self._send.send_nowait(line)
        except anyio.WouldBlock:
            self.overflowed = True
        except (anyio.ClosedResourceError, anyio.BrokenResourceError):
            pass

    def finish(self) -> None:
        """No more lines: the writer sends what is queued and stops."""
        self._send.close()

    async def write_loop(self) -> None:
        try:
            async for line in self._receive:
                batch = [line]
                size = len(line)
                while size < WRITE_BATCH:
                    try:
                        more = self._receive.receive_nowait()
                    except (anyio.WouldBlock, anyio.EndOfStream):
                        break
                    batch.append(more)
                    size += len(more)
                if self.before is not None:
                    self.before()
                await self.stream.send(b"".join(batch))
        except (anyio.BrokenResourceError, anyio.ClosedResourceError, OSError):
            pass  # the inspector went away; its reader notices too


class ControlServer:
    """``async with ControlServer(wire, info, relay): ...`` serves the attach socket."""

    def __init__(
        self,
        wire: ProxyWire,
        info: dict[str, Any],
        relay: Callable[[], Relay | None],
        path: Path | None = None,
        interceptor: Interceptor | None = None,
    ) -> None:
        self.wire = wire
        self.interceptor = interceptor
        self.info = info
        self._relay = relay
        self.path = path or socket_path()
        self.attachments: dict[int, Attachment] = {}
        self._numbers = itertools.count(1)
        self._tg: TaskGroup | None = None
        self._listener: SocketListener | None = None
        self.farewell = "the proxy is ending"

    async def listen(self) -> None:
        """Bind the socket (raises OSError when it cannot be)."""
        with contextlib.suppress(FileNotFoundError):
            self.path.unlink()  # a stale socket of an earlier process with our pid
        self._listener = await anyio.create_unix_listener(self.path)
        os.chmod(self.path, 0o600)

    async def __aenter__(self) -> ControlServer:
        if self._listener is None:
            await self.listen()
        listener = self._listener
        assert listener is not None
        self._tg = anyio.create_task_group()
        await self._tg.__aenter__()
        self._tg.start_soon(listener.serve, self._serve)
        self.wire.watch(self._on_event, acts_later=True)  # it queues for its writers
        if self.interceptor is not None:
            self.interceptor.listeners.append(self._on_intercept)
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> bool | None:
        self.wire.unwatch(self._on_event)
        if self.interceptor is not None:
            self.interceptor.listeners.remove(self._on_intercept)
        with contextlib.suppress(FileNotFoundError):
            self.path.unlink()
        for attachment in list(self.attachments.values()):
            attachment.push(op_line("bye", message=self.farewell))
            attachment.finish()
        assert self._tg is not None
        with anyio.move_on_after(BYE_WAIT, shield=True):  # the goodbyes go out first
            while self.attachments:
                await anyio.sleep(0.02)
        self._tg.cancel_scope.cancel()
        if self._listener is not None:
            with anyio.CancelScope(shield=True):
                await self._listener.aclose()
        return await self._tg.__aexit__(exc_type, exc, tb)

    # -- one inspector -------------------------------------------------------------------

    async def _serve(self, stream: SocketStream) -> None:
        async with stream:
            peer = peer_credentials(stream)
            if peer is not None and peer[1] != own_uid():
                await stream.send(
                    op_line(
                        "refused",
                        message=f"this proxy belongs to uid {own_uid()}; uid {peer[1]} "
                        "may not attach",
                    )
                )
                return
            lines = read_lines(stream)
            try:
                with anyio.fail_after(HELLO_TIMEOUT):
                    hello = await anext(lines)
            except (TimeoutError, StopAsyncIteration, ChannelError):
                return
            if hello.get("op") != "hello" or hello.get("protocol") != PROTOCOL:
                await stream.send(
                    op_line(
                        "refused",
                        message=f"attach protocol {hello.get('protocol')!r} is not this "
                        f"proxy's ({PROTOCOL}): use the same mcp-inspect version",
                    )
                )
                return
            relay = self._relay()
            if hello.get("probe") or relay is None:
                await stream.send(self._welcome(None))
                return
            await self._attached(stream, lines, relay, peer)

    def _welcome(self, number: int | None, **extra: Any) -> bytes:
        interceptor = self.interceptor
        return op_line(
            "welcome",
            protocol=PROTOCOL,
            **self.info,
            inspectors=len(self.attachments),
            attach=number,
            intercept=interceptor.query if interceptor else None,
            held=[h.to_json() for h in interceptor.held.values()] if interceptor else [],
            **extra,
        )

    def _on_intercept(self, op: str, fields: dict[str, Any]) -> None:
        line = op_line(op, **fields)
        for attachment in list(self.attachments.values()):
            attachment.push(line)

    async def _attached(
        self, stream: SocketStream, lines: Any, relay: Relay, peer: tuple[int, int] | None
    ) -> None:
        number = next(self._numbers)
        attachment = Attachment(number, stream, before=self.wire.sync)
        history = list(self.wire.history)  # and from here on, live: nothing lost or twice
        self.attachments[number] = attachment
        attachment.push(self._welcome(number, out_channel=relay.out_channel.value))
        for event in history:
            attachment.push(event_line(_json(event), False))
        who = f" (pid {peer[0]})" if peer else ""
        self.wire.note(f"inspector {number} attached{who}", attach=number)
        try:
            with attachment.scope:
                async with anyio.create_task_group() as tg:
                    tg.start_soon(attachment.write_loop)
                    try:
                        async for data in lines:
                            op = data.get("op")
                            if op == "send":
                                await self._send(relay, attachment, raw_from(data))
                            elif op in ("intercept", "release"):
                                self._intercept_op(attachment, data)
                    except ChannelError as exc:
                        self.wire.note(f"inspector {number}: {exc}; hanging up", severity="warning")
                    attachment.finish()
                    tg.cancel_scope.cancel()
        finally:
            del self.attachments[number]
            with anyio.CancelScope(shield=True):
                await relay.detach(number)
            if not relay.done.is_set():
                self.wire.note(f"inspector {number} detached", attach=number)
            if not self.attachments:
                self._intercept_unattended()

    def _intercept_unattended(self) -> None:
        """The last inspector left: nobody can forward, edit or drop a held frame any more,
        so intercept stops and what it held goes on (a host would wait forever)."""
        interceptor = self.interceptor
        if interceptor is None or not (interceptor.query or interceptor.held):
            return
        who = "the proxy: no inspector attached"
        interceptor.release_all(who)
        if interceptor.query:
            interceptor.set_filter("", who)

    async def _send(self, relay: Relay, attachment: Attachment, raw: bytes) -> None:
        number = attachment.number
        try:
            outbound = await relay.from_inspector(number, raw)
        except Exception as exc:  # the server is gone or the write failed: say so
            outbound = Outbound(refused=f"could not send: {exc}")
        message = jsonrpc.decode(raw)[0]
        if outbound.reply is not None:
            self.wire.note(
                f"inspector {number}: its initialize answered with the host's handshake",
                attach=number,
            )
            attachment.push(
                event_line(_json(self._reply_event(relay, number, outbound.reply)), True)
            )
        if outbound.dropped:
            self.wire.note(f"inspector {number}: {outbound.dropped}", attach=number)
        if outbound.refused:
            self.wire.note(
                f"inspector {number}: not sent: {outbound.refused}", severity="error", attach=number
            )
            if jsonrpc.is_request(message):  # its call fails now, not at its timeout
                reply = jsonrpc.error_response(
                    message.get("id"), jsonrpc.INVALID_REQUEST, f"proxy: {outbound.refused}"
                )
                attachment.push(event_line(_json(self._reply_event(relay, number, reply)), True))

    def _intercept_op(self, attachment: Attachment, data: dict[str, Any]) -> None:
        who = f"inspector {attachment.number}"
        problem: str | None
        if self.interceptor is None:
            problem = "this proxy has no intercept"
        elif data.get("op") == "intercept":
            problems = self.interceptor.set_filter(str(data.get("filter") or ""), who)
            problem = "; ".join(problems) or None
        elif data.get("all"):
            self.interceptor.release_all(who)
            problem = None
        else:
            number = data.get("held")
            raw = raw_from(data) if "raw" in data or "raw_b64" in data else None
            problem = self.interceptor.release(
                number if isinstance(number, int) else -1, str(data.get("action")), raw, who
            )
        if problem:
            attachment.push(op_line("intercept-error", message=problem))

    @staticmethod
    def _reply_event(relay: Relay, number: int, reply: dict[str, Any]) -> WireEvent:
        return WireEvent(
            Direction.IN,
            relay.in_channel,
            jsonrpc.encode(reply),
            message=reply,
            meta={**Origin(INSPECTOR, number).meta(), "proxy": "answered by the proxy"},
        )

    # -- the wire ------------------------------------------------------------------------

    def _on_event(self, event: WireEvent, route: Route | None) -> None:
        if not self.attachments:
            return
        shared: str | None = None
        for attachment in list(self.attachments.values()):
            number = attachment.number
            if (
                event.direction is Direction.OUT
                and event.channel in OWN_CHANNELS
                and event.meta.get("attach") == number
            ):
                continue  # its own frame: its session showed it as it sent it
            if route is not None and route.owner == number:
                attachment.push(event_line(_owned_json(event, route), True))
                continue
            if shared is None:
                shared = _json(event)
            attachment.push(event_line(shared, route is not None and route.broadcast))
        for attachment in [a for a in self.attachments.values() if a.overflowed]:
            self.wire.note(
                f"inspector {attachment.number} fell too far behind; letting it go",
                severity="warning",
            )
            attachment.scope.cancel()


def _json(event: WireEvent) -> str:
    return EVENT_ENCODER.encode(event_to_json(event))


def _owned_json(event: WireEvent, route: Route) -> str:
    """The event as its owner must see it: its own ids back in place."""
    if route.restored is None:
        return _json(event)
    meta = dict(event.meta)
    if isinstance(event.message, dict) and "id" in event.message:
        meta["wire_id"] = event.message["id"]  # what the server saw
    restored = dataclasses.replace(
        event, raw=jsonrpc.encode(route.restored), message=route.restored, meta=meta
    )
    return _json(restored)
