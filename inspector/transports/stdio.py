"""stdio transport: spawn the server, one JSON-RPC message per line.

stdout lines become events (a non-JSON line is an event with a parse error, not a
crash); stderr lines become events on their own channel. The server runs in its
own process group: ``close`` ends the whole group (stdin closed, then SIGTERM, then
SIGKILL), and the lifeline watchdog (``inspector.transports.lifeline``) does the same if
the inspector dies without closing (``kill -9``, a crash). How a server is started (here
or by that watchdog, off the event loop) is ``server_process``'s; no ``preexec_fn`` either
way (it was PR_SET_PDEATHSIG): it makes CPython fork the whole app, page tables and all,
instead of vfork, and twenty servers of a workspace held the event loop ~80 ms each.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import shlex
import shutil
import signal
import time
from collections import deque
from collections.abc import AsyncIterator, Callable, Sequence
from typing import Any

import anyio
from anyio.abc import TaskGroup

from inspector.transports.lifeline import Lifeline
from inspector.transports.readsize import read_in_heap_sized_chunks
from inspector.transports.server_process import ServerProcess, start_server
from inspector.wire.events import Channel, Direction, WireEvent
from inspector.wire.jsonrpc import decode, make_event
from inspector.wire.transport import (
    ConnectionLost,
    FrameMeta,
    Transport,
    TransportError,
    TransportHost,
    emit_all,
    with_meta,
)

READ_CHUNK = 1 << 16
STDERR_TAIL = 20
NOISE_TAIL = 5
NOISE_WIDTH = 200  # a stray line may be megabytes: its start is the clue
GRACE_SECONDS = 2.0
EXIT_POLL = 0.25  # how often a running server is checked for having exited
CLOSE_POLL = 0.02  # the same while closing
WRITE_EXIT_WAIT = 0.5  # after a failed write, how long its exit code is waited for
SLICE = 0.004  # seconds of reading at most before the event loop gets a turn
REST = 0.002  # seconds the reader then stands aside (keys, the screen: bench/log_flood.py)
BATCH = 128  # lines handled at once at most (a 64 KiB read of short lines holds ~600)
IN, STDOUT = Direction.IN, Channel.STDOUT
DRAIN_ABOVE = 1 << 16  # a relay waits for the server to read only past this much unread


async def iter_line_batches(
    stream: asyncio.StreamReader,
) -> AsyncIterator[tuple[list[bytes], bool]]:
    """Split a stream into lines of any length, the lines of each read together:
    ``(lines without their \\n, terminated)``.

    The last line comes alone with ``terminated`` False when the stream ended without a
    newline; nothing else is changed (``\\r`` and blank lines stay). A batch handed out is
    not held here once the consumer has it: the last line a server sent (often its biggest
    answer) stayed alive beside the log's copy of it until another line came."""
    buffer = bytearray()
    scanned = 0  # bytes of the buffer known to hold no newline: a 50 MB line is scanned once
    try:
        while chunk := await stream.read(READ_CHUNK):
            buffer += chunk
            start = 0
            lines: list[bytes] = []
            while (end := buffer.find(b"\n", max(start, scanned))) >= 0:
                with memoryview(buffer) as view:  # one copy of the line, not two
                    lines.append(bytes(view[start:end]))
                start = end + 1
            del buffer[:start]
            scanned = len(buffer)
            if lines:
                yield lines, True
            del lines  # not held while the next read is awaited
    except (ConnectionError, OSError):
        pass  # the pipe broke: what we have is all there is
    if buffer:
        yield [bytes(buffer)], False


async def iter_lines(stream: asyncio.StreamReader) -> AsyncIterator[tuple[bytes, bool]]:
    """``iter_line_batches`` a line at a time: ``(line without its \\n, terminated)``."""
    async for lines, terminated in iter_line_batches(stream):
        lines.reverse()
        while lines:  # popped as handed out: no name here holds one while waiting
            yield lines.pop(), terminated


async def _read_lines(
    stream: asyncio.StreamReader, on_lines: Callable[[list[bytes], bool], None]
) -> None:
    """``on_lines(lines, terminated)`` for the lines of ``stream``, in order, at most
    ``BATCH`` at a time (a read's lines are handled together: one recording flush for
    them, not one each), standing aside ``REST`` after each ``SLICE`` of work: while the
    pipe holds data, reading never waits, so a flood (50,000 lines a second) would
    otherwise keep the loop, and the UI's keys, from everything else for as long as it
    lasts (keys took 0.4-1.3 s). A server faster than that is slowed by its full pipe:
    nothing is lost."""
    until = time.monotonic() + SLICE
    async for lines, terminated in iter_line_batches(stream):
        for start in range(0, len(lines), BATCH):
            on_lines(lines[start : start + BATCH] if len(lines) > BATCH else lines, terminated)
            if time.monotonic() > until:
                await asyncio.sleep(REST)
                until = time.monotonic() + SLICE
        del lines  # not held while the next batch is awaited (``iter_line_batches``)


class StdioTransport(Transport):
    """A server started as a subprocess."""

    kind = "stdio"
    line_framed = True

    def __init__(
        self,
        command: str,
        args: Sequence[str] = (),
        *,
        env: dict[str, str] | None = None,
        cwd: str | None = None,
        grace: float = GRACE_SECONDS,
        keep_blank: bool = False,
    ) -> None:
        """``keep_blank``: blank stdout lines become events too (a relay passes them on)."""
        self.command = command
        self.args = list(args)
        self.env = dict(env or {})
        self.cwd = cwd
        self.grace = grace
        self.keep_blank = keep_blank
        self.process: ServerProcess | None = None
        self.lifeline: Lifeline | None = None
        self._stderr: deque[str] = deque(maxlen=STDERR_TAIL)
        self._noise: deque[str] = deque(maxlen=NOISE_TAIL)  # stdout lines not JSON-RPC
        self._host: TransportHost | None = None
        self._closing = False
        self._reported = False
        self._stderr_done = anyio.Event()
        self._stdout_done = anyio.Event()
        self._write_lock = anyio.Lock(fast_acquire=True)  # no extra loop turn per frame
        # a relay's: lines written in one turn of the loop go in one write at its end,
        # this called first (the relay's recording is flushed there: write-ahead)
        self.before_write: Callable[[], None] | None = None
        self._queued: list[bytes] = []

    @property
    def target(self) -> str:
        return shlex.join([self.command, *self.args])

    @property
    def stderr_tail(self) -> list[str]:
        return list(self._stderr)

    def target_info(self) -> dict[str, Any]:
        return {
            "transport": self.kind,
            "command": self.command,
            "args": self.args,
            "env": dict(self.env),
            "cwd": self.cwd,
        }

    async def start(self, host: TransportHost, task_group: TaskGroup) -> None:
        self._host = host
        if self.cwd is not None and not os.path.isdir(self.cwd):
            raise TransportError(f"--cwd {self.cwd!r} is not a directory")
        executable = shutil.which(self.command, path=self._path())
        if executable is None:
            raise TransportError(
                f"command not found: {self.command!r}; check the spelling, or give the full "
                "path (the server command comes after `--`)"
            )
        read_in_heap_sized_chunks()
        try:
            self.process, self.lifeline = await start_server(
                [executable, *self.args],
                env={**os.environ, **self.env},
                cwd=self.cwd,
                grace=self.grace,
                limit=READ_CHUNK,
            )
        except OSError as exc:
            raise TransportError(f"could not start {self.target}: {exc.strerror or exc}") from exc
        host.emit(
            WireEvent(
                Direction.LOCAL,
                Channel.SYSTEM,
                f"started pid {self.process.pid}: {self.target}".encode(),
                meta={"pid": self.process.pid},
            )
        )
        task_group.start_soon(self._read_stderr)
        task_group.start_soon(self._read_stdout)
        task_group.start_soon(self._watch_exit)

    def _path(self) -> str | None:
        return self.env.get("PATH", os.environ.get("PATH"))

    async def _read_stdout(self) -> None:
        assert self.process is not None and self.process.stdout is not None
        await self.read_stdout(self.process.stdout)
        self._stdout_done.set()
        await self._report_exit()

    async def read_stdout(self, stream: asyncio.StreamReader) -> None:
        """The server's stdout to the host, a read's lines together (``bench/ingest_cpu.py``
        feeds it a stream of its own)."""
        assert self._host is not None
        host, keep_blank, big, decode_big = self._host, self.keep_blank, self._big, self._big_decode

        def on_lines(lines: list[bytes], terminated: bool) -> None:
            now, mono = time.time(), time.monotonic()  # read at one moment: one time for all
            events = []
            for line in lines:
                if keep_blank or (line and not line.isspace()):
                    message, error = decode(line) if len(line) < big else decode_big(line)
                    meta = {} if terminated else {"unterminated": True}
                    events.append(
                        WireEvent(IN, STDOUT, line, message, error, meta, [], 0, now, mono)
                    )
                    if error is not None:
                        self._noise_line(line)
            if events:
                emit_all(host, events)

        await _read_lines(stream, on_lines)

    def _noise_line(self, line: bytes) -> None:
        text = line[:NOISE_WIDTH].rstrip(b"\r").decode("utf-8", errors="replace")
        self._noise.append(text + ("…" if len(line) > NOISE_WIDTH else ""))

    async def _watch_exit(self) -> None:
        """The server exited but its stdout stays open (a child of its own holds it, e.g.
        ``sleep 3017 &``): say so after the grace period instead of waiting forever."""
        assert self.process is not None
        while self.process.returncode is None:
            await anyio.sleep(EXIT_POLL)
        with anyio.move_on_after(self.grace):
            await self._stdout_done.wait()
        await self._report_exit()

    async def _exited(self, within: float) -> bool:
        """Whether the server process exits within ``within`` seconds. Not
        ``process.wait()``: that also waits for the pipes, which a child may hold."""
        assert self.process is not None
        with anyio.move_on_after(within):
            while self.process.returncode is None:
                await anyio.sleep(CLOSE_POLL)
        return self.process.returncode is not None

    async def _read_stderr(self) -> None:
        assert self.process is not None and self.process.stderr is not None
        await _read_lines(self.process.stderr, self._stderr_lines)
        self._stderr_done.set()

    def _stderr_lines(self, lines: list[bytes], terminated: bool) -> None:
        assert self._host is not None
        events = []
        for line in lines:
            line = line.rstrip(b"\r")
            self._stderr.append(line.decode("utf-8", errors="replace"))
            events.append(WireEvent(Direction.IN, Channel.STDERR, line))
        emit_all(self._host, events)

    async def _report_exit(self) -> None:
        assert self.process is not None and self._host is not None
        await self._exited(self.grace)
        with anyio.move_on_after(0.5):  # let the last stderr lines in: they say why
            await self._stderr_done.wait()
        if self._reported:
            return
        self._reported = True
        code = self.process.returncode
        if self._closing:
            self._host.connection_lost(
                ConnectionLost("server stopped", exit_code=code, expected=True)
            )
        else:
            what = "the server closed its stdout" if code is None else "the server exited"
            self._host.connection_lost(self._lost(what, code))

    def _lost(self, what: str, code: int | None) -> ConnectionLost:
        return ConnectionLost(
            what,
            exit_code=code,
            stderr_tail=list(self._stderr)[-8:],
            stdout_noise=list(self._noise),
        )

    def exit_report(self) -> ConnectionLost | None:
        if self.process is None or self.process.returncode is None:
            return None
        return self._lost("the server exited", self.process.returncode)

    async def send_raw(
        self, raw: bytes, message: Any = None, *, meta: FrameMeta | None = None
    ) -> None:
        await self.send_line(raw, message, meta=meta)

    async def send_line(
        self,
        raw: bytes,
        message: Any = None,
        *,
        meta: FrameMeta | None = None,
        terminated: bool = True,
        error: str | None = None,
    ) -> None:
        """Emit the event (``meta`` on it), then write ``raw`` and its newline (none when
        not ``terminated``: a relay passes on a last line that had none). ``error`` is the
        known parse error of ``raw`` (saves parsing it again)."""
        assert self._host is not None
        if self.process is None or self.process.stdin is None:
            raise TransportError("the server is not running")
        framing = {} if terminated else {"unterminated": True}
        if message is None and error is not None:
            event = WireEvent(Direction.OUT, Channel.STDIN, raw, error=error, meta=framing)
        else:
            event = make_event(Direction.OUT, Channel.STDIN, raw, meta=framing, message=message)
        self._host.emit(with_meta(event, meta))
        data = raw + b"\n" if terminated else raw
        if self.before_write is not None:
            if not self._queued:
                asyncio.get_running_loop().call_soon(self._write_queued)
            self._queued.append(data)
            data = b""
            transport = self.process.stdin.transport
            if transport.get_write_buffer_size() < DRAIN_ABOVE and not transport.is_closing():
                return  # the server keeps up: no lock, no drain, no extra work per frame
        async with self._write_lock:
            try:
                if data:
                    self.process.stdin.write(data)
                await self.process.stdin.drain()  # waits only while the server lags behind
            except (ConnectionError, BrokenPipeError, RuntimeError) as exc:
                # the pipe broke because the server exited: say how, once it is known
                exited = await self._exited(WRITE_EXIT_WAIT)
                if exited:  # reported as the reader would (code, stderr), not later than
                    await self._report_exit()  # the error: the session tells that instead
                why = (
                    f"it exited with exit code {self.process.returncode}"
                    if exited
                    else f"{exc}; it has probably exited"
                )
                raise TransportError(f"could not write to the server: {why}") from exc

    def batch_writes(self, before: Callable[[], None]) -> None:
        self.before_write = before

    def _write_queued(self) -> None:
        queued, self._queued = self._queued, []
        if not queued or self.process is None or self.process.stdin is None:
            return
        if self.before_write is not None:
            self.before_write()
        with contextlib.suppress(ConnectionError, RuntimeError):  # its exit is reported
            self.process.stdin.write(b"".join(queued))

    def keep_blank_lines(self) -> None:
        self.keep_blank = True

    async def drained(self, timeout: float = 1.0) -> None:
        """Wait (at most ``timeout`` s) until all the server wrote is read and emitted: a
        relay passes its last lines on before it closes the host's side."""
        if self.process is None:
            return
        with anyio.move_on_after(timeout):
            await self._stdout_done.wait()
            await self._stderr_done.wait()

    async def close(self) -> None:
        """stdin closed, 2 s, SIGTERM to the group, 2 s, SIGKILL to the group; then SIGKILL
        to what is left of the group once the server is gone, and the lifeline released."""
        if self._closing:
            return
        self._closing = True
        process = self.process
        if process is None:
            return
        self._write_queued()  # lines of this turn still go, before the end of the stream
        if process.stdin is not None:
            with contextlib.suppress(Exception):
                process.stdin.close()
        for sig in (None, signal.SIGTERM, signal.SIGKILL):
            if sig is not None:
                self._signal_group(sig)
            if await self._exited(self.grace):
                break
        self._signal_group(signal.SIGKILL, only_others=True)  # what it left behind
        await self._release_lifeline()
        if not self._reported and self._host is not None:
            self._reported = True
            self._host.connection_lost(
                ConnectionLost("server stopped", exit_code=process.returncode, expected=True)
            )

    async def _release_lifeline(self) -> None:
        """The group is down: the watchdog may go (and is reaped, briefly awaited)."""
        lifeline, self.lifeline = self.lifeline, None
        if lifeline is None:
            return
        lifeline.release()
        with anyio.move_on_after(1.0):
            while not lifeline.exited():
                await anyio.sleep(0.01)

    def _signal_group(self, sig: int, only_others: bool = False) -> None:
        """Signal the server's whole process group (it may have spawned helpers)."""
        process = self.process
        if process is None:
            return
        if only_others and process.returncode is None:
            return
        with contextlib.suppress(ProcessLookupError, PermissionError, OSError):
            os.killpg(process.pid, sig)
