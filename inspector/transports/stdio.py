"""stdio transport: spawn the server, one JSON-RPC message per line.

stdout lines become events (a non-JSON line is an event with a parse error, not a
crash); stderr lines become events on their own channel. The server runs in its
own process group and, on Linux, dies with us (PR_SET_PDEATHSIG), so neither a
normal exit, Ctrl+C nor a crash of the inspector leaves an orphan.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import shlex
import shutil
import signal
import sys
from collections import deque
from collections.abc import Callable, Sequence
from typing import Any

import anyio
from anyio.abc import TaskGroup

from inspector.engine.events import Channel, Direction, WireEvent
from inspector.engine.jsonrpc import make_event
from inspector.transports.base import ConnectionLost, Transport, TransportError, TransportHost

READ_CHUNK = 1 << 16
STDERR_TAIL = 20
GRACE_SECONDS = 2.0


async def _read_lines(stream: asyncio.StreamReader,
                      on_line: Callable[[bytes, bool], None]) -> None:
    """Split a stream into lines of any length; ``on_line(line, terminated)``."""
    buffer = bytearray()
    try:
        while chunk := await stream.read(READ_CHUNK):
            buffer += chunk
            start = 0
            while (end := buffer.find(b"\n", start)) >= 0:
                on_line(bytes(buffer[start:end]), True)
                start = end + 1
            del buffer[:start]
    except (ConnectionError, OSError):
        pass  # the pipe broke: what we have is all there is
    if buffer:
        on_line(bytes(buffer), False)


def _die_with_parent() -> None:  # pragma: no cover - runs in the child between fork and exec
    """Ask Linux to SIGTERM the server if the inspector dies without cleaning up."""
    try:
        import ctypes

        libc = ctypes.CDLL("libc.so.6", use_errno=True)
        libc.prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG
    except Exception:
        pass


class StdioTransport(Transport):
    """A server started as a subprocess."""

    kind = "stdio"

    def __init__(self, command: str, args: Sequence[str] = (), *,
                 env: dict[str, str] | None = None, cwd: str | None = None,
                 grace: float = GRACE_SECONDS) -> None:
        self.command = command
        self.args = list(args)
        self.env = dict(env or {})
        self.cwd = cwd
        self.grace = grace
        self.process: asyncio.subprocess.Process | None = None
        self.stderr_tail: deque[str] = deque(maxlen=STDERR_TAIL)
        self._host: TransportHost | None = None
        self._closing = False
        self._reported = False
        self._stderr_done = anyio.Event()
        self._write_lock = anyio.Lock()

    @property
    def target(self) -> str:
        return shlex.join([self.command, *self.args])

    def target_info(self) -> dict[str, Any]:
        return {"transport": self.kind, "command": self.command, "args": self.args,
                "env": dict(self.env), "cwd": self.cwd}

    async def start(self, host: TransportHost, task_group: TaskGroup) -> None:
        self._host = host
        if self.cwd is not None and not os.path.isdir(self.cwd):
            raise TransportError(f"--cwd {self.cwd!r} is not a directory")
        executable = shutil.which(self.command, path=self._path())
        if executable is None:
            raise TransportError(
                f"command not found: {self.command!r}; check the spelling, or give the full "
                "path (the server command comes after `--`)")
        preexec: Callable[[], None] | None = _die_with_parent if sys.platform == "linux" else None
        try:
            self.process = await asyncio.create_subprocess_exec(
                executable, *self.args, stdin=asyncio.subprocess.PIPE,
                stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
                env={**os.environ, **self.env}, cwd=self.cwd, start_new_session=True,
                preexec_fn=preexec, limit=READ_CHUNK)
        except OSError as exc:
            raise TransportError(f"could not start {self.target}: {exc.strerror or exc}") from exc
        host.emit(WireEvent(Direction.LOCAL, Channel.SYSTEM,
                            f"started pid {self.process.pid}: {self.target}".encode(),
                            meta={"pid": self.process.pid}))
        task_group.start_soon(self._read_stderr)
        task_group.start_soon(self._read_stdout)

    def _path(self) -> str | None:
        return self.env.get("PATH", os.environ.get("PATH"))

    async def _read_stdout(self) -> None:
        assert self.process is not None and self.process.stdout is not None
        assert self._host is not None
        host = self._host

        def on_line(line: bytes, terminated: bool) -> None:
            if line.strip():
                meta = {} if terminated else {"unterminated": True}
                host.emit(make_event(Direction.IN, Channel.STDOUT, line, meta=meta))

        await _read_lines(self.process.stdout, on_line)
        await self._report_exit()

    async def _read_stderr(self) -> None:
        assert self.process is not None and self.process.stderr is not None
        await _read_lines(self.process.stderr, lambda line, _: self._stderr_line(line))
        self._stderr_done.set()

    def _stderr_line(self, line: bytes) -> None:
        assert self._host is not None
        line = line.rstrip(b"\r")
        self.stderr_tail.append(line.decode("utf-8", errors="replace"))
        self._host.emit(WireEvent(Direction.IN, Channel.STDERR, line))

    async def _report_exit(self) -> None:
        assert self.process is not None and self._host is not None
        with anyio.move_on_after(self.grace):
            await self.process.wait()
        with anyio.move_on_after(0.5):  # let the last stderr lines in: they say why
            await self._stderr_done.wait()
        if self._reported:
            return
        self._reported = True
        code = self.process.returncode
        if self._closing:
            self._host.connection_lost(ConnectionLost("server stopped", exit_code=code,
                                                      expected=True))
        else:
            what = "the server closed its stdout" if code is None else "the server exited"
            self._host.connection_lost(ConnectionLost(what, exit_code=code,
                                                      stderr_tail=list(self.stderr_tail)[-8:]))

    async def send_raw(self, raw: bytes, message: Any = None) -> None:
        assert self._host is not None
        if self.process is None or self.process.stdin is None:
            raise TransportError("the server is not running")
        self._host.emit(make_event(Direction.OUT, Channel.STDIN, raw, message=message))
        async with self._write_lock:
            try:
                self.process.stdin.write(raw + b"\n")
                await self.process.stdin.drain()
            except (ConnectionError, BrokenPipeError, RuntimeError) as exc:
                raise TransportError(f"could not write to the server: {exc}; "
                                     "it has probably exited") from exc

    async def close(self) -> None:
        """stdin closed, 2 s, SIGTERM to the group, 2 s, SIGKILL to the group."""
        if self._closing:
            return
        self._closing = True
        process = self.process
        if process is None:
            return
        if process.stdin is not None:
            with contextlib.suppress(Exception):
                process.stdin.close()
        for sig in (None, signal.SIGTERM, signal.SIGKILL):
            if sig is not None:
                self._signal_group(sig)
            with anyio.move_on_after(self.grace):
                await process.wait()
            if process.returncode is not None:
                break
        self._signal_group(signal.SIGKILL, only_others=True)
        if not self._reported and self._host is not None:
            self._reported = True
            self._host.connection_lost(ConnectionLost("server stopped",
                                                      exit_code=process.returncode,
                                                      expected=True))

    def _signal_group(self, sig: int, only_others: bool = False) -> None:
        """Signal the server's whole process group (it may have spawned helpers)."""
        process = self.process
        if process is None:
            return
        if only_others and process.returncode is None:
            return
        with contextlib.suppress(ProcessLookupError, PermissionError, OSError):
            os.killpg(process.pid, sig)
