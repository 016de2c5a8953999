"""The host on the proxy's own standard streams: what a host that starts servers sees.

Frames from the host are stdin's lines, passed on byte for byte (blank and malformed
lines too, and a last line without its newline). Frames for the host go to stdout the
same way; the server's stderr goes on to the proxy's stderr.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable

from inspector.proxy.pipes import PipeWriter, open_reader
from inspector.transports.stdio import iter_lines
from inspector.wire.events import Channel, WireEvent
from inspector.wire.jsonrpc import encode


class StdioHost:
    """The host end of a relay over stdin, stdout and stderr (file descriptors)."""

    kind = "stdio"

    def __init__(self, reader: asyncio.StreamReader, out: PipeWriter, err: PipeWriter | None):
        self._reader = reader
        self._out = out
        self._err = err

    coalesces = True  # frames go out at the end of the loop's turn, after ``before``

    @classmethod
    async def open(
        cls,
        stdin: int = 0,
        stdout: int = 1,
        stderr: int | None = 2,
        before: Callable[[], None] | None = None,
    ) -> StdioHost:
        """``before``: runs just before each write to stdout or stderr (the wire's sync)."""
        reader = await open_reader(stdin)
        out = await PipeWriter.open(stdout, before=before)
        err = (
            await PipeWriter.open(stderr, owned=False, before=before)
            if stderr is not None
            else None
        )
        return cls(reader, out, err)

    def frames(self) -> AsyncIterator[tuple[bytes, bool]]:
        """The host's lines: ``(line without its newline, terminated)``."""
        return iter_lines(self._reader)

    def send(self, raw: bytes, event: WireEvent) -> None:
        """A frame for the host (never waits: the pipe transport buffers). A stdio server's
        line goes on as it was (a last line without its newline, without one); a message
        from an HTTP server becomes one line (compacted only if it spans several)."""
        if event.channel is Channel.STDOUT:
            self._out.write(raw if event.meta.get("unterminated") else raw + b"\n")
            return
        raw = raw.strip()
        if b"\n" in raw or b"\r" in raw:
            raw = encode(event.message)
        self._out.write(raw + b"\n")

    def stderr(self, line: bytes) -> None:
        if self._err is not None:
            self._err.write(line + b"\n")

    @property
    def gone(self) -> bool:
        """The host closed its end of stdout (writes fail with EPIPE)."""
        return self._out.broken

    async def close(self) -> None:
        """Flush and close stdout: the host sees the end of the stream."""
        await self._out.close()
        if self._err is not None:
            await self._err.drain()
