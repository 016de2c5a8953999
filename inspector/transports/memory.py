"""An in-memory transport for tests: the other end is a scripted fake server."""

from __future__ import annotations

import math
from typing import Any

import anyio
from anyio.abc import TaskGroup
from anyio.streams.memory import MemoryObjectReceiveStream, MemoryObjectSendStream

from inspector.wire.events import Channel, Direction, WireEvent
from inspector.wire.jsonrpc import decode, encode, make_event
from inspector.wire.transport import (
    ConnectionLost,
    FrameMeta,
    Transport,
    TransportHost,
    with_meta,
)


class MemoryServerEnd:
    """The fake server's side: receive what the client sent, send frames back."""

    def __init__(
        self, inbox: MemoryObjectReceiveStream[bytes], outbox: MemoryObjectSendStream[bytes | None]
    ) -> None:
        self._inbox = inbox
        self._outbox = outbox

    async def receive(self) -> Any:
        """The next message the client sent, parsed."""
        raw = await self._inbox.receive()
        return decode(raw)[0]

    async def receive_raw(self) -> bytes:
        return await self._inbox.receive()

    async def send(self, message: Any) -> None:
        await self._outbox.send(encode(message))

    async def send_raw(self, raw: bytes) -> None:
        await self._outbox.send(raw)

    async def hang_up(self) -> None:
        """End the connection from the server side."""
        await self._outbox.send(None)


class MemoryTransport(Transport):
    """Client side of an in-memory pair; build one with ``memory_pair()``."""

    kind = "memory"

    def __init__(
        self,
        to_server: MemoryObjectSendStream[bytes],
        from_server: MemoryObjectReceiveStream[bytes | None],
    ) -> None:
        self._to_server = to_server
        self._from_server = from_server
        self._host: TransportHost | None = None
        self._closed = False

    @property
    def target(self) -> str:
        return "in-memory server"

    async def start(self, host: TransportHost, task_group: TaskGroup) -> None:
        self._host = host
        task_group.start_soon(self._read)

    async def _read(self) -> None:
        assert self._host is not None
        try:
            async for raw in self._from_server:
                if raw is None:
                    break
                message, error = self.parse(raw)
                self._host.emit(WireEvent(Direction.IN, Channel.MEMORY, raw, message, error))
        except anyio.ClosedResourceError:
            return  # we closed it ourselves
        if not self._closed:
            self._closed = True
            self._host.connection_lost(ConnectionLost("the in-memory server hung up"))

    async def send_raw(
        self, raw: bytes, message: Any = None, *, meta: FrameMeta | None = None
    ) -> None:
        assert self._host is not None
        event = make_event(Direction.OUT, Channel.MEMORY, raw, message=message)
        self._host.emit(with_meta(event, meta))
        await self._to_server.send(raw)

    async def close(self) -> None:
        if not self._closed:
            self._closed = True
            if self._host is not None:
                self._host.connection_lost(ConnectionLost("closed", expected=True))
        await self._to_server.aclose()
        await self._from_server.aclose()


def memory_pair() -> tuple[MemoryTransport, MemoryServerEnd]:
    """A connected (client transport, fake server end) pair."""
    to_server_send, to_server_recv = anyio.create_memory_object_stream[bytes](math.inf)
    from_server_send, from_server_recv = anyio.create_memory_object_stream[bytes | None](math.inf)
    return (
        MemoryTransport(to_server_send, from_server_recv),
        MemoryServerEnd(to_server_recv, from_server_send),
    )
