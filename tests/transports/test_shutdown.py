"""Issue 11.2: nothing lingers. A server that leaves a child holding its stdout
(``sleep 3017``) is cleaned up whole by every way out: the TUI's ``q``, the app's own
teardown, a hangup of the real TUI in a terminal, SIGTERM of the CLI, and ``kill -9`` of
the inspector (the lifeline watchdog)."""

from __future__ import annotations

import concurrent.futures
import contextlib
import fcntl
import json
import os
import select
import signal
import socket
import struct
import subprocess
import termios
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import pytest
from cli_runner import inspector_argv
from paths import PY, ROOT, SERVERS
from processes import alive
from tui_helpers import wait_for

from inspector.engine.session import Session
from inspector.target import Target
from inspector.transports.lifeline import Lifeline
from inspector.transports.lifeline import _lock as lifeline_lock
from inspector.transports.stdio import StdioTransport
from inspector.transports.watchdog import heard
from inspector.tui.app import InspectorApp

SERVER = str(SERVERS / "stdio_grandchild.py")
BOUND = 15.0  # the close takes at most 3 x 2 s; the machine is slow and shared


def wait_pids(pidfile: Path, timeout: float = BOUND) -> tuple[int, int]:
    deadline = time.monotonic() + timeout
    while not pidfile.exists():
        assert time.monotonic() < deadline, "the server never started"
        time.sleep(0.05)
    server, grandchild = (int(x) for x in pidfile.read_text().split())
    return server, grandchild


def wait_gone(*pids: int, timeout: float = BOUND) -> None:
    deadline = time.monotonic() + timeout
    while any(alive(p) for p in pids):
        assert time.monotonic() < deadline, f"still running: {[p for p in pids if alive(p)]}"
        time.sleep(0.05)


@pytest.fixture
def reaper() -> Iterator[list[int]]:
    """Pids a failed test must not leave behind."""
    pids: list[int] = []
    yield pids
    for pid in pids:
        with contextlib.suppress(OSError):
            os.kill(pid, signal.SIGKILL)


def last_note(session_file: Path) -> str:
    events = [json.loads(line) for line in session_file.read_text().splitlines()[1:]]
    return str([e for e in events if e["ch"] == "system"][-1].get("raw", ""))


# ------------------------------------------------------------------ the TUI (Pilot)


@pytest.mark.slow
async def test_tui_q_ends_the_servers_children(tmp_path: Path, reaper: list[int]) -> None:
    pidfile = tmp_path / "pids"
    app = InspectorApp(Target(command=PY, args=[SERVER, str(pidfile)]))
    async with app.run_test() as pilot:
        await wait_for(pilot, lambda: app.controller is not None and app.controller.connected)
        server, grandchild = wait_pids(pidfile)
        reaper += [server, grandchild]
        assert alive(grandchild)
        await pilot.press("q")
        with anyio.fail_after(BOUND):  # gone before the app is torn down
            while alive(server) or alive(grandchild):
                await anyio.sleep(0.05)
        assert app.quitting


@pytest.mark.slow
async def test_tui_teardown_without_q_ends_them_too(tmp_path: Path, reaper: list[int]) -> None:
    """The app's own exit (an error, exit()): the same shutdown runs before the loop ends."""
    pidfile = tmp_path / "pids"
    app = InspectorApp(Target(command=PY, args=[SERVER, str(pidfile), "ignore-term"]))
    async with app.run_test() as pilot:
        await wait_for(pilot, lambda: app.controller is not None and app.controller.connected)
        server, grandchild = wait_pids(pidfile)
        reaper += [server, grandchild]
        app.exit()
    assert not alive(server) and not alive(grandchild)  # no wait: the teardown awaited it


async def test_server_exit_with_stdout_held_open_is_noticed(tmp_path: Path) -> None:
    """The server exits but its child keeps the pipe: the session hears of it anyway, and
    closing it ends the child."""
    pidfile = tmp_path / "pids"
    transport = StdioTransport(PY, [SERVER, str(pidfile), "exit-after-init"], grace=0.5)
    with anyio.fail_after(BOUND):
        async with Session(transport) as session:
            await session.initialize()
            while session.lost is None:
                await anyio.sleep(0.05)
            assert "exited" in session.lost.message and session.lost.exit_code == 0
            _, grandchild = wait_pids(pidfile)
            assert alive(grandchild)
    wait_gone(grandchild)


# ------------------------------------------------------------------ real processes


class Terminal:
    """A real ``mcp-inspect`` TUI on a pseudo-terminal it controls; ``hang_up`` closes
    the terminal as closing a terminal window (or ``tmux kill-session``) does."""

    def __init__(self, args: list[str], env: dict[str, str]) -> None:
        self.master, slave = os.openpty()
        fcntl.ioctl(self.master, termios.TIOCSWINSZ, struct.pack("HHHH", 40, 120, 0, 0))
        self.process = subprocess.Popen(
            inspector_argv(*args),
            stdin=slave,
            stdout=slave,
            stderr=slave,
            cwd=ROOT,
            env=env,
            start_new_session=True,
            preexec_fn=lambda: fcntl.ioctl(0, termios.TIOCSCTTY, 0),  # our controlling tty
        )
        os.close(slave)
        self.screen = bytearray()
        self._hanging_up = threading.Event()
        self._drain = threading.Thread(target=self._read, daemon=True)
        self._drain.start()

    def _read(self) -> None:  # the app must never block on a full terminal
        while not self._hanging_up.is_set():
            try:
                if not select.select([self.master], [], [], 0.05)[0]:
                    continue
                data = os.read(self.master, 65536)
            except (OSError, ValueError):  # closed (ValueError: its number is now -1)
                return
            if not data:
                return
            self.screen += data

    def hang_up(self) -> None:
        """Close the terminal's master side. Not while the reader is in a ``read`` of it:
        the kernel closes the file only when that read returns, which an app that has
        stopped writing never lets happen (a hang-up that came late, or never)."""
        self._hanging_up.set()
        self._drain.join(10)
        self._close_master()

    def _close_master(self) -> None:
        if self.master >= 0:  # once: the number may belong to another file afterwards
            os.close(self.master)
            self.master = -1

    def drained(self) -> None:
        """Everything the app wrote is in ``screen`` (the app has exited)."""
        self._drain.join(10)

    def close(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
        self.process.wait(10)
        with contextlib.suppress(OSError):
            self._close_master()


@pytest.mark.slow
@pytest.mark.parametrize("how", ["hangup", "sigterm", "kill-9"])
def test_real_tui_in_a_terminal(how: str, tmp_path: Path, reaper: list[int]) -> None:
    """SIGHUP and SIGTERM: the orderly shutdown (the session file ends with the server
    stopped; SIGTERM leaves the terminal open, so no traceback may reach it either).
    kill -9: nothing of ours runs; the lifeline watchdog ends the group."""
    pidfile = tmp_path / "pids"
    env = {**os.environ, "XDG_STATE_HOME": str(tmp_path / "state"), "TERM": "xterm-256color"}
    term = Terminal(["--", PY, SERVER, str(pidfile)], env)
    try:
        server, grandchild = wait_pids(pidfile, timeout=60)  # a cold start of the TUI
        reaper += [server, grandchild]
        sessions = tmp_path / "state" / "mcp-inspect" / "sessions"
        deadline = time.monotonic() + 60
        while not any("tools/list" in p.read_text() for p in sessions.glob("*.jsonl")):
            assert time.monotonic() < deadline, bytes(term.screen[-2000:])
            time.sleep(0.1)
        assert alive(grandchild)
        if how == "hangup":
            term.hang_up()
        elif how == "sigterm":
            term.process.send_signal(signal.SIGTERM)
        else:
            term.process.kill()
        wait_gone(server, grandchild)
        if how in ("hangup", "sigterm"):
            term.process.wait(BOUND)
            handled = signal.SIGHUP if how == "hangup" else signal.SIGTERM
            # it was handled (not -N), and the status says the signal ended it, as a shell does
            assert term.process.returncode == 128 + handled
            (session_file,) = sessions.glob("*.jsonl")
            assert last_note(session_file).startswith("closed: server stopped")
            header = json.loads(session_file.read_text().splitlines()[0])
            assert isinstance(header, dict)  # the file is whole: every line is JSON
        if how == "sigterm":
            term.drained()
            assert b"Traceback" not in term.screen, bytes(term.screen[-3000:])
    finally:
        term.close()


def cpu_seconds(pid: int) -> float | None:
    """The CPU (user + system) seconds a process has used; None once it has exited (a
    zombie or gone)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return None
    if fields[0] in ("Z", "X"):
        return None
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def cpu_until_exit(pid: int) -> float:
    """The CPU seconds a process has used when it exits (read every 50 ms until then)."""
    used = 0.0
    while (now := cpu_seconds(pid)) is not None:
        used = now
        time.sleep(0.05)
    return used


@pytest.mark.slow
def test_after_a_hangup_the_tui_waits_for_its_server_without_spinning(tmp_path: Path) -> None:
    """After a hangup stdin is /dev/null, always readable: Textual's input thread spun on
    it, a whole core taken until the app exited (the seconds a server that ignores
    SIGTERM takes to be killed, here 4), from the close it slowed down. The TUI stops
    reading the terminal at the hangup."""
    env = {**os.environ, "XDG_STATE_HOME": str(tmp_path / "state"), "TERM": "xterm-256color"}
    term = Terminal(["--", PY, str(SERVERS / "stdio_misbehave.py"), "ignore-term"], env)
    try:
        sessions = tmp_path / "state" / "mcp-inspect" / "sessions"
        deadline = time.monotonic() + 60
        while not any("tools/list" in p.read_text() for p in sessions.glob("*.jsonl")):
            assert time.monotonic() < deadline, bytes(term.screen[-2000:])
            time.sleep(0.1)
        time.sleep(0.5)  # the app settles after its start
        tui = term.process.pid
        before, began = cpu_seconds(tui), time.monotonic()
        assert before is not None
        term.hang_up()
        used, took = cpu_until_exit(tui) - before, time.monotonic() - began
        assert term.process.wait(BOUND) == 128 + signal.SIGHUP
        assert took > 2.0  # the server's grace periods: a window to spin in
        assert used < 0.35 * took, f"{used:.2f} s of CPU in the {took:.2f} s after the hangup"
    finally:
        term.close()


def test_cli_sigterm_closes_the_session_first(tmp_path: Path, reaper: list[int]) -> None:
    pidfile, record = tmp_path / "pids", tmp_path / "s.jsonl"
    cli = subprocess.Popen(
        [
            PY,
            "-m",
            "inspector",
            "--cli",
            "--record",
            str(record),
            "--method",
            "tools/call",
            "--tool-name",
            "hang",
            "--",
            PY,
            SERVER,
            str(pidfile),
        ],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        server, grandchild = wait_pids(pidfile, timeout=60)
        reaper += [server, grandchild]
        deadline = time.monotonic() + 60
        while "tools/call" not in record.read_text():
            assert time.monotonic() < deadline
            time.sleep(0.05)
        cli.send_signal(signal.SIGTERM)
        _, stderr = cli.communicate(timeout=BOUND)
    finally:
        if cli.poll() is None:
            cli.kill()
    assert cli.returncode == 128 + signal.SIGTERM, stderr
    error = json.loads(stderr.strip().splitlines()[-1])["error"]
    assert error["kind"] == "interrupted" and "SIGTERM" in error["message"]
    assert not alive(server) and not alive(grandchild)
    assert last_note(record).startswith("closed: server stopped")


@pytest.mark.slow
def test_cli_kill_9_leaves_nothing(tmp_path: Path, reaper: list[int]) -> None:
    pidfile = tmp_path / "pids"
    cli = subprocess.Popen(
        [
            PY,
            "-m",
            "inspector",
            "--cli",
            "--method",
            "tools/call",
            "--tool-name",
            "hang",
            "--",
            PY,
            SERVER,
            str(pidfile),
            "ignore-term",
        ],
        cwd=ROOT,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        server, grandchild = wait_pids(pidfile, timeout=60)
        reaper += [server, grandchild]
        cli.kill()
        cli.wait(10)
        wait_gone(server, grandchild)  # SIGTERM ignored: the watchdog's SIGKILL
    finally:
        if cli.poll() is None:
            cli.kill()


# ------------------------------------------------------------------ the lifeline itself


def start_group() -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        ["sh", "-c", "sleep 3017 & sleep 3018 & wait"],
        start_new_session=True,
        stdout=subprocess.DEVNULL,
    )


def test_lifeline_released_leaves_the_group_alone(reaper: list[int]) -> None:
    group = start_group()
    reaper.append(group.pid)
    try:
        lifeline = Lifeline(group.pid, grace=0.2)
        assert lifeline.process is not None
        lifeline.release()
        lifeline.process.wait(BOUND)
        assert group.poll() is None
    finally:
        os.killpg(group.pid, signal.SIGKILL)
        group.wait(5)


def cut(lifeline: Lifeline) -> None:
    """What the kernel does to the watchdog's channel (a socket, else a pipe) when the
    inspector dies."""
    dog = lifeline.watchdog
    if dog.sock is not None:
        # shut down first: a reader thread waiting in recv() holds the socket open (the
        # kernel closes it under that thread too when the inspector dies)
        with contextlib.suppress(OSError):
            dog.sock.shutdown(socket.SHUT_RDWR)
        dog.sock.close()
    else:
        os.close(dog.fd)
    dog.fd = -1


def test_lifeline_cut_ends_the_group() -> None:
    group = start_group()
    lifeline = Lifeline(group.pid, grace=0.2)
    assert lifeline.process is not None
    cut(lifeline)
    lifeline.process.wait(BOUND)
    group.wait(BOUND)
    assert left_in_group(group.pid) == []


def test_one_watchdog_watches_every_group(reaper: list[int]) -> None:
    """A workspace's servers share one watchdog (one Python started, not one each): a
    group released is left alone when the inspector dies, the others still watched end."""
    kept, ended, also_ended = start_group(), start_group(), start_group()
    reaper.append(kept.pid)
    try:
        lifelines = [Lifeline(g.pid, grace=0.2) for g in (kept, ended, also_ended)]
        watchdog = lifelines[0].process
        assert watchdog is not None
        assert all(lifeline.process is watchdog for lifeline in lifelines)
        lifelines[0].release()
        assert lifelines[0].exited()  # nothing to wait for: the watchdog watches the others
        assert watchdog.poll() is None
        cut(lifelines[1])
        watchdog.wait(BOUND)
        ended.wait(BOUND)
        also_ended.wait(BOUND)
        assert left_in_group(ended.pid) == left_in_group(also_ended.pid) == []
        assert kept.poll() is None
    finally:
        os.killpg(kept.pid, signal.SIGKILL)
        kept.wait(5)


def test_a_new_watchdog_once_the_last_group_is_released(reaper: list[int]) -> None:
    """The last group released, the watchdog exits; the next server gets a new one."""
    first, second = start_group(), start_group()
    reaper += [first.pid, second.pid]
    try:
        lifeline = Lifeline(first.pid, grace=0.2)
        lifeline.release()
        assert lifeline.process is not None
        lifeline.process.wait(BOUND)
        again = Lifeline(second.pid, grace=0.2)
        assert again.process is not None and again.process is not lifeline.process
        assert again.process.poll() is None
        again.release()
        again.process.wait(BOUND)
        assert first.poll() is None and second.poll() is None
    finally:
        for group in (first, second):
            os.killpg(group.pid, signal.SIGKILL)
            group.wait(5)


def test_an_answer_that_comes_before_the_start_returns_finds_its_start(
    monkeypatch: pytest.MonkeyPatch, reaper: list[int]
) -> None:
    """The watchdog may answer a start before ``send`` has returned here (a busy
    machine): the answer must find its start, else it was dropped, that start never
    ended, and every later answer went to the start before it (seen under load)."""
    keep = start_group()
    reaper.append(keep.pid)
    lifeline = Lifeline(keep.pid, grace=0.2)  # a running watchdog
    dog = lifeline.watchdog
    assert dog.starts_servers
    null = os.open(os.devnull, os.O_RDWR)
    send = socket.send_fds

    def slow(*args: Any, **kw: Any) -> int:
        sent = send(*args, **kw)
        time.sleep(0.3)  # the answer comes meanwhile
        return sent

    def start(code: int) -> concurrent.futures.Future[int]:
        return dog.start(["sh", "-c", f"exit {code}"], {}, "/", 0.2, [null] * 3)

    try:
        first = start(30)  # the reader is up
        reaper.append(first.result(timeout=BOUND))
        monkeypatch.setattr(socket, "send_fds", slow)
        second = start(31)
        reaper.append(second.result(timeout=BOUND))
        monkeypatch.undo()
        third = start(32)
        reaper.append(third.result(timeout=BOUND))
        started = reaper[1:]
        assert len(set(started)) == 3
        deadline = time.monotonic() + BOUND
        while any(dog.exit_code(pid) is None for pid in started):
            assert time.monotonic() < deadline
            time.sleep(0.02)
        # each pid is the one its start made: its exit code says which
        assert [dog.exit_code(pid) for pid in started] == [30, 31, 32]
    finally:
        os.close(null)
        for pid in reaper:
            with contextlib.suppress(OSError):
                os.killpg(pid, signal.SIGKILL)
        with lifeline_lock:
            for pid in reaper[1:]:
                dog.unwatch(pid)
        lifeline.release()


def test_a_group_is_not_given_to_a_watchdog_that_died_unreaped(
    monkeypatch: pytest.MonkeyPatch, reaper: list[int]
) -> None:
    """A watchdog that died a moment ago may not be reaped yet (still "running" by its
    process): a group given to it then went unwatched. The next watchdog takes it."""
    first, second = start_group(), start_group()
    reaper += [first.pid, second.pid]
    try:
        lifeline = Lifeline(first.pid, grace=0.2)
        dead = lifeline.process
        assert dead is not None
        dead.kill()
        dead.wait(BOUND)
        monkeypatch.setattr(dead, "poll", lambda: None)  # not reaped yet, as it seems
        again = Lifeline(second.pid, grace=0.2)
        assert again.process is not None and again.process is not dead
        assert set(again.watchdog.groups) == {first.pid, second.pid}  # both watched
        cut(again)
        again.process.wait(BOUND)
        first.wait(BOUND)
        second.wait(BOUND)
        assert left_in_group(first.pid) == left_in_group(second.pid) == []
    finally:
        for group in (first, second):
            with contextlib.suppress(OSError):
                os.killpg(group.pid, signal.SIGKILL)
            group.wait(5)


def test_a_lifeline_dropped_while_the_lock_is_held_does_not_deadlock(
    reaper: list[int],
) -> None:
    """The garbage collector may drop a lifeline inside code that holds the lifelines'
    lock (seen in a CI run: a start's JSON, then ``__del__`` waiting for the lock its own
    thread held, forever). It must not wait; its group is ended by the next call."""
    dropped_group, other = start_group(), start_group()
    reaper += [dropped_group.pid, other.pid]
    try:
        dropped = Lifeline(dropped_group.pid, grace=0.2)

        def collect_inside_the_lock() -> None:
            with lifeline_lock:
                dropped.__del__()  # as the collector would, here

        worker = threading.Thread(target=collect_inside_the_lock, daemon=True)
        worker.start()
        worker.join(BOUND)
        assert not worker.is_alive()  # it did not wait for the lock
        assert dropped_group.poll() is None  # not ended yet: the lock was held
        Lifeline(other.pid, grace=0.2).release()  # the next call ends it
        dropped_group.wait(BOUND)
        assert left_in_group(dropped_group.pid) == []
        assert other.poll() is None
    finally:
        for group in (dropped_group, other):
            with contextlib.suppress(OSError):
                os.killpg(group.pid, signal.SIGKILL)
            group.wait(5)


def test_the_watchdog_answers_starts_while_it_ends_a_group(reaper: list[int]) -> None:
    """``!PGID`` (a dropped transport's group) with a grace of 5 s, in a group that
    ignores SIGTERM: the watchdog goes on starting servers meanwhile (it waited out the
    grace first, and a server's exit came too late to be told), and SIGKILLs it after."""
    stubborn = subprocess.Popen(
        ["sh", "-c", "trap '' TERM; sleep 3019 & wait"], start_new_session=True
    )
    keep = start_group()
    reaper += [stubborn.pid, keep.pid]
    lifeline = Lifeline(keep.pid, grace=0.2)
    dog = lifeline.watchdog
    assert dog.starts_servers
    null = os.open(os.devnull, os.O_RDWR)
    try:
        time.sleep(0.2)  # the trap is set
        with lifeline_lock:
            dog.watch(stubborn.pid, 5.0)
            dog.unwatch(stubborn.pid, end=True)
        began = time.monotonic()
        started = dog.start(["sh", "-c", "exit 0"], {}, "/", 0.2, [null] * 3)
        reaper.append(started.result(timeout=BOUND))
        assert time.monotonic() - began < 2.5  # not after the 5 s
        assert stubborn.poll() is None  # SIGTERM ignored: still there
        stubborn.wait(BOUND)  # then SIGKILL, once its grace is over
        assert stubborn.returncode == -signal.SIGKILL
    finally:
        os.close(null)
        for pid in reaper:
            with contextlib.suppress(OSError):
                os.killpg(pid, signal.SIGKILL)
        lifeline.release()


def left_in_group(pgid: int, timeout: float = BOUND) -> list[int]:
    """``running_in_group`` once it is empty, or after ``timeout``: the group's processes
    get their signal together, and the leader reaped need not be the last to exit."""
    deadline = time.monotonic() + timeout
    while (found := running_in_group(pgid)) and time.monotonic() < deadline:
        time.sleep(0.05)
    return found


def running_in_group(pgid: int) -> list[int]:
    """Pids of the group's processes that still run (zombies aside: in a container whose
    init does not reap, the orphans' zombies stay)."""
    found = []
    for stat_file in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat_file.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[2]) == pgid and fields[0] != "Z":
            found.append(int(stat_file.parent.name))
    return found


def test_the_watchdog_never_takes_our_own_group_or_inits() -> None:
    """A line naming group 0 (the watchdog's own) or 1 (init's) is not a server's: it is
    never watched, so end-of-file never signals it (run by hand with a stray line, the
    watchdog as root sent SIGTERM to group 1)."""
    groups: dict[int, float] = {}
    for line in (b"+0 1", b"+1 1", b"+-5 1", b"+4242 1"):
        heard(groups, line)
    assert groups == {4242: 1.0}
