"""One TCP connection as an asyncio protocol: arriving bytes buffered as the event loop
reads them, a write that is one ``transport.write``, reads that wait on one future.

Both ends of the proxy's HTTP path use it (the lean HTTP/1.1 client transport, the
Streamable HTTP front): a stream abstraction over the socket (anyio's, asyncio's
streams) costs checkpoints and task hops on every read and write, and "has the peer
closed this idle connection?" is a flag here, not a poll.
"""

from __future__ import annotations

import asyncio

from inspector.errors import InspectorError

READ_HIGH = 1 << 20  # stop reading the socket while this much is buffered unread


class LimitExceeded(InspectorError, ValueError):
    """``read_until`` found no delimiter within its limit."""


class StreamProtocol(asyncio.Protocol):
    """Bytes buffered as they arrive; writes with flow control; ``closed`` at the end."""

    eof_closes = True  # the peer's end of stream closes our side too (else: still writable)

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self.loop = loop
        self.transport: asyncio.Transport | None = None
        self.buffer = bytearray()
        self.closed = False  # the peer ended its stream, or the connection is gone
        self.error: BaseException | None = None
        self._waiter: asyncio.Future[None] | None = None
        self._write_paused = False
        self._read_paused = False

    # ------------------------------------------------------------ asyncio protocol

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        assert isinstance(transport, asyncio.Transport)
        self.transport = transport

    def data_received(self, data: bytes) -> None:
        self.buffer += data
        if len(self.buffer) > READ_HIGH and not self._read_paused and self.transport:
            self._read_paused = True
            self.transport.pause_reading()
        self._wake()

    def eof_received(self) -> bool:
        self.closed = True
        self._wake()
        return not self.eof_closes

    def connection_lost(self, exc: Exception | None) -> None:
        self.closed = True
        self.error = exc
        self._wake()

    def pause_writing(self) -> None:
        self._write_paused = True

    def resume_writing(self) -> None:
        self._write_paused = False
        self._wake()

    def _wake(self) -> None:
        waiter = self._waiter
        if waiter is not None and not waiter.done():
            waiter.set_result(None)

    # ------------------------------------------------------------ reading and writing

    async def wait(self, timeout: float | None) -> None:
        """Until something changes (bytes, end of stream, writable); TimeoutError after
        ``timeout`` seconds."""
        self._waiter = waiter = self.loop.create_future()
        timer = self.loop.call_later(timeout, _expire, waiter) if timeout is not None else None
        try:
            await waiter
        finally:
            self._waiter = None
            if timer is not None:
                timer.cancel()

    @property
    def writable(self) -> bool:
        return self.transport is not None and not self.transport.is_closing()

    def write_now(self, data: bytes) -> None:
        """Write without waiting for the peer to read (dropped once the connection is
        going: a peer that left gets nothing more)."""
        if self.writable:
            assert self.transport is not None
            self.transport.write(data)

    async def write(self, data: bytes, timeout: float | None) -> None:
        """Write, then wait while the peer is behind (TimeoutError after ``timeout``)."""
        if not self.writable:
            raise ConnectionResetError("the peer closed the connection")
        assert self.transport is not None
        self.transport.write(data)
        await self.drain(timeout)

    async def drain(self, timeout: float | None) -> None:
        while self._write_paused and self.writable:
            await self.wait(timeout)
        if self.error is not None:
            raise self.error

    def take(self, size: int) -> bytes:
        """Up to ``size`` buffered bytes, removed from the buffer."""
        data = bytes(self.buffer[:size])
        del self.buffer[:size]
        if self._read_paused and len(self.buffer) < READ_HIGH // 2 and self.transport:
            self._read_paused = False
            self.transport.resume_reading()
        return data

    async def fill(self, timeout: float | None) -> bool:
        """Wait for more bytes; False at the end of the stream."""
        if self.closed:
            return False
        await self.wait(timeout)
        return bool(self.buffer) or not self.closed

    async def read_until(self, delimiter: bytes, limit: int, timeout: float | None) -> bytes:
        """The bytes up to and including ``delimiter``; EOFError if the stream ends first,
        ``LimitExceeded`` past ``limit`` bytes without it."""
        start = 0
        while True:
            found = self.buffer.find(delimiter, start)
            if found >= 0:
                return self.take(found + len(delimiter))
            if len(self.buffer) > limit:
                raise LimitExceeded(f"no {delimiter!r} within {limit} bytes")
            start = max(0, len(self.buffer) - len(delimiter) + 1)
            if not await self.fill(timeout):
                raise EOFError

    async def read_exactly(self, size: int, timeout: float | None) -> bytes:
        """``size`` bytes; EOFError if the stream ends first. Taken as they come: waiting
        for all of them in the buffer would wait forever past ``READ_HIGH``, where reading
        pauses until the buffer is taken from."""
        parts: list[bytes] = []
        remaining = size
        while remaining:
            if not self.buffer and not await self.fill(timeout):
                raise EOFError
            part = self.take(min(remaining, len(self.buffer)))
            parts.append(part)
            remaining -= len(part)
        return b"".join(parts) if len(parts) != 1 else parts[0]

    def close(self) -> None:
        self.closed = True
        if self.transport is not None:
            self.transport.close()


def _expire(waiter: asyncio.Future[None]) -> None:
    if not waiter.done():
        waiter.set_exception(TimeoutError())
