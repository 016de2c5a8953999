"""Asynchronous reading and writing of the proxy's own standard streams.

Pipes (what hosts give a server) and terminals go through asyncio's pipe transports,
so a host that reads slowly never blocks the event loop; a regular file (a test's
redirect) falls back to a reader thread or plain writes.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import selectors
import stat
import threading
from collections.abc import Callable

from inspector.transports.readsize import read_in_heap_sized_chunks

READ_CHUNK = 1 << 16
FLUSH_AT = 1 << 16  # queued bytes that are written at once, not at the end of the turn


async def open_reader(fd: int) -> asyncio.StreamReader:
    """A StreamReader over ``fd`` (which stays open: the caller owns it)."""
    loop = asyncio.get_running_loop()
    reader = asyncio.StreamReader(limit=READ_CHUNK)
    read_in_heap_sized_chunks()
    if _pollable(fd):
        pipe = open(fd, "rb", buffering=0, closefd=False)  # noqa: SIM115 - the transport closes it
        try:
            await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), pipe)
            return reader
        except (ValueError, OSError):  # /dev/null and the like: epoll refuses them
            pass
    threading.Thread(target=_pump_file, args=(loop, reader, fd), daemon=True).start()
    return reader


def _pollable(fd: int) -> bool:
    """Whether the event loop can wait on ``fd``: not a regular file, nor a device epoll
    refuses (``/dev/null``) - asyncio would find out only later, in a callback."""
    if stat.S_ISREG(os.fstat(fd).st_mode):
        return False
    with selectors.DefaultSelector() as selector:
        try:
            selector.register(fd, selectors.EVENT_READ | selectors.EVENT_WRITE)
        except (OSError, ValueError):
            return False
    return True


def _pump_file(loop: asyncio.AbstractEventLoop, reader: asyncio.StreamReader, fd: int) -> None:
    try:
        while chunk := os.read(fd, READ_CHUNK):
            loop.call_soon_threadsafe(reader.feed_data, chunk)
    except OSError:
        pass
    with contextlib.suppress(RuntimeError):  # the loop is gone: nobody is reading
        loop.call_soon_threadsafe(reader.feed_eof)


class _Flow(asyncio.BaseProtocol):
    def __init__(self) -> None:
        self.ready = asyncio.Event()
        self.ready.set()
        self.lost = False

    def pause_writing(self) -> None:
        self.ready.clear()

    def resume_writing(self) -> None:
        self.ready.set()

    def connection_lost(self, exc: Exception | None) -> None:
        self.lost = True
        self.ready.set()


class PipeWriter:
    """Writes to ``fd`` without blocking the loop; ``write`` never waits (the transport
    buffers), ``drain`` waits until the reader caught up.

    Frames written in one turn of the event loop go out in one write at its end (a burst
    of answers wakes the host once, not once each); ``before`` runs just before that
    write (the proxy's wire flushes its recording there: write-ahead)."""

    def __init__(self, fd: int, owned: bool, before: Callable[[], None] | None = None) -> None:
        self.fd = fd
        self.owned = owned  # closing the writer closes the fd (the reader sees the end)
        self.before = before
        self._transport: asyncio.WriteTransport | None = None
        self._flow = _Flow()
        self._pending: list[bytes] = []
        self._pending_size = 0
        self.broken = False  # the reader went away (EPIPE)

    @classmethod
    async def open(
        cls, fd: int, *, owned: bool = True, before: Callable[[], None] | None = None
    ) -> PipeWriter:
        writer = cls(fd, owned, before)
        if not _pollable(fd):  # a file: plain writes do not block for long
            return writer
        loop = asyncio.get_running_loop()
        pipe = open(fd, "wb", buffering=0, closefd=False)  # noqa: SIM115 - the transport closes it
        try:
            transport, _ = await loop.connect_write_pipe(lambda: writer._flow, pipe)
        except (ValueError, OSError):  # /dev/null and the like: epoll refuses them
            return writer
        writer._transport = transport
        return writer

    def write(self, data: bytes) -> None:
        """Queue ``data`` for the write at the end of this turn of the loop."""
        if self.broken or not data:
            return
        if not self._pending:
            try:
                asyncio.get_running_loop().call_soon(self.flush)
            except RuntimeError:  # no loop: at once
                self._pending.append(data)
                self.flush()
                return
        self._pending.append(data)
        self._pending_size += len(data)
        if self._pending_size >= FLUSH_AT:
            self.flush()

    def flush(self) -> None:
        """Write what is queued now (``before`` first)."""
        if not self._pending:
            return
        data = b"".join(self._pending) if len(self._pending) > 1 else self._pending[0]
        self._pending.clear()
        self._pending_size = 0
        if self.before is not None:
            self.before()
        self._write(data)

    def _write(self, data: bytes) -> None:
        if self.broken:
            return
        if self._transport is None:
            try:
                view = memoryview(data)
                while view:
                    view = view[os.write(self.fd, view) :]
            except OSError:
                self.broken = True
            return
        if self._flow.lost or self._transport.is_closing():
            self.broken = True
            return
        self._transport.write(data)

    async def drain(self) -> None:
        self.flush()
        if self._transport is not None and not self._flow.lost:
            await self._flow.ready.wait()
            while self._transport.get_write_buffer_size() and not self._flow.lost:
                await asyncio.sleep(0.005)  # the buffer is below the high-water mark: finish it

    async def close(self) -> None:
        """Flush what is buffered, then close (the reader sees the end of the stream)."""
        with contextlib.suppress(Exception):
            await self.drain()
        if self._transport is not None:
            self._transport.close()
            await asyncio.sleep(0)  # its connection_lost runs: the fd is no longer watched
        if self.owned:
            with contextlib.suppress(OSError):
                os.close(self.fd)
