"""A stdio server's process: started, its pipes handed to the event loop, its exit seen.

    process, lifeline = await start_server(argv, env=env, cwd=cwd, grace=2.0, limit=1 << 16)
    process.stdin.write(b"...")      # asyncio streams, as asyncio's subprocess gives
    await process.stdout.read(n)
    process.returncode               # None while it runs

Two ways, one result. The first server of the inspector is started here (``Popen``, a
vfork and the child's exec waited for, ~1 ms on a quiet machine). Every server started
while the lifeline watchdog runs is started *by the watchdog* (``Watchdog.start``, the
pipes passed over its socket), for two reasons a workspace of twenty servers showed:

- the event loop never waits for a fork and an exec (on a busy machine each took 10-30
  ms, and twenty of them held the keys), nor for the thread ``asyncio`` starts per child
  to wait for its exit (``Thread.start`` waits until it runs);
- the servers share the watchdog's session. Linux gives each session an equal share of
  the CPU (autogroups): twenty servers in twenty sessions left the app a twenty-first
  while they started, and its keys waited ~0.5 s; in one they weigh as much as the app.

Either way the server runs in a process group of its own (the group signals of
``close``), and the watchdog watches that group from the moment it exists or right
after. The exit is seen by polling (``returncode``: ``waitpid`` here, the watchdog's
word for those it started), as the stdio transport polls it anyway.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import subprocess
from collections.abc import Callable, Sequence
from typing import Any

from inspector.transports import lifeline
from inspector.transports.lifeline import Lifeline, Watchdog, WatchdogGone


class ServerProcess:
    """A started server: its pid, its pipes as asyncio streams, its exit code."""

    def __init__(
        self,
        pid: int,
        streams: tuple[asyncio.StreamWriter, asyncio.StreamReader, asyncio.StreamReader],
        pipes: dict[int, asyncio.BaseTransport],
        exit_code: Callable[[], int | None],
    ) -> None:
        self.pid = pid
        self.stdin, self.stdout, self.stderr = streams
        self.pipes = pipes  # fd (0, 1, 2) -> the loop's transport of that pipe
        self._exit_code = exit_code
        self._code: int | None = None

    @property
    def returncode(self) -> int | None:
        """The exit code (-N: ended by signal N), None while it runs."""
        if self._code is None:
            self._code = self._exit_code()
        return self._code

    async def wait(self, poll: float = 0.02) -> int:
        """Its exit code, once it has exited."""
        while (code := self.returncode) is None:
            await asyncio.sleep(poll)
        return code


async def start_server(
    argv: Sequence[str], *, env: dict[str, str], cwd: str | None, grace: float, limit: int
) -> tuple[ServerProcess, Lifeline]:
    """Start the server (see the module doc for how), watched by the lifeline; its pipes
    handed to the loop. ``OSError`` when it cannot start."""
    dog = lifeline.starter()
    if dog is not None:
        try:
            return await _through(dog, argv, env, cwd or os.getcwd(), grace, limit)
        except WatchdogGone:
            pass  # it died meanwhile: started here instead
    return await _here(argv, env, cwd, grace, limit)


async def _here(
    argv: Sequence[str], env: dict[str, str], cwd: str | None, grace: float, limit: int
) -> tuple[ServerProcess, Lifeline]:
    popen = subprocess.Popen(
        argv,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=env,
        cwd=cwd,
        start_new_session=True,
    )
    watch = Lifeline(popen.pid, grace)  # before any await: the next server sees its watchdog
    files = [popen.stdin, popen.stdout, popen.stderr]
    return await _hand_over(popen.pid, files, popen.poll, watch, limit)


async def _through(
    dog: Watchdog, argv: Sequence[str], env: dict[str, str], cwd: str, grace: float, limit: int
) -> tuple[ServerProcess, Lifeline]:
    stdin_read, stdin_write = os.pipe()
    stdout_read, stdout_write = os.pipe()
    stderr_read, stderr_write = os.pipe()
    ours = (stdin_write, stdout_read, stderr_read)
    try:
        started = dog.start(argv, env, cwd, grace, [stdin_read, stdout_write, stderr_write])
    finally:
        for fd in (stdin_read, stdout_write, stderr_write):  # the watchdog holds them now
            os.close(fd)
    try:
        pid = await asyncio.shield(asyncio.wrap_future(started))  # a cancel leaves it be
    except asyncio.CancelledError:
        started.add_done_callback(lambda done: _abandon(done, dog, ours))
        raise
    except BaseException:
        _close(ours)
        raise
    watch = Lifeline(pid, grace, watched_by=dog)
    files = [open(fd, "wb" if n == 0 else "rb", buffering=0) for n, fd in enumerate(ours)]  # noqa: SIM115 - the loop closes them
    return await _hand_over(pid, files, lambda: dog.exit_code(pid), watch, limit)


async def _hand_over(
    pid: int,
    files: list[Any],
    exit_code: Callable[[], int | None],
    watch: Lifeline,
    limit: int,
) -> tuple[ServerProcess, Lifeline]:
    """The started server's pipes handed to the loop; if that fails, its group ended."""
    try:
        return await _connect(pid, files, exit_code, limit), watch
    except BaseException:
        _end(pid, watch)
        raise


async def _connect(
    pid: int, files: list[Any], exit_code: Callable[[], int | None], limit: int
) -> ServerProcess:
    """The pipes (our ends of stdin, stdout, stderr, as files) as asyncio streams, as
    ``asyncio.subprocess`` makes them."""
    loop = asyncio.get_running_loop()
    try:
        pipes: dict[int, asyncio.BaseTransport] = {}
        stdout, pipes[1] = await _reader(loop, files[1], limit)
        stderr, pipes[2] = await _reader(loop, files[2], limit)
        write, flow = await loop.connect_write_pipe(asyncio.streams.FlowControlMixin, files[0])
        pipes[0] = write
    except BaseException:
        for file in files:
            with contextlib.suppress(OSError):
                file.close()
        raise
    stdin = asyncio.StreamWriter(write, flow, None, loop)
    return ServerProcess(pid, (stdin, stdout, stderr), pipes, exit_code)


async def _reader(
    loop: asyncio.AbstractEventLoop, pipe: Any, limit: int
) -> tuple[asyncio.StreamReader, asyncio.BaseTransport]:
    reader = asyncio.StreamReader(limit=limit, loop=loop)
    protocol = asyncio.StreamReaderProtocol(reader, loop=loop)
    transport, _ = await loop.connect_read_pipe(lambda: protocol, pipe)
    return reader, transport


def _abandon(
    started: Any, dog: Watchdog, fds: tuple[int, int, int]
) -> None:  # a concurrent future, done in the watchdog's reader thread
    """A start its caller gave up on (a workspace server removed, the app quit while it
    started): the server it made, if any, is ended by the watchdog."""
    _close(fds)
    if not started.cancelled() and started.exception() is None:
        Lifeline(started.result(), 0.0, watched_by=dog)._let_go(end=True)


def _end(pid: int, watch: Lifeline) -> None:
    """SIGKILL the group of a server never handed over (nothing in it outlives that),
    its lifeline released."""
    with contextlib.suppress(OSError):
        os.killpg(pid, signal.SIGKILL)
    watch.release()


def _close(fds: tuple[int, ...]) -> None:
    for fd in fds:
        with contextlib.suppress(OSError):
            os.close(fd)
