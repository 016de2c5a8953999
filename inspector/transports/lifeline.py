"""A lifeline for stdio servers' process groups: they go when the inspector goes.

One small watchdog process watches every stdio server of the inspector. It is started
in its own session (a closing terminal's SIGHUP does not reach it), and its stdin is a
pipe whose only writer is the inspector. Each server's group is announced on it when
the server starts (``+PGID GRACE``) and withdrawn once the inspector has ended the
group itself (``-PGID``); when the last is withdrawn the inspector closes the pipe and
the watchdog exits, having done nothing. When the inspector dies any other way
(``kill -9``, a crash, a hangup it did not survive) the kernel closes the pipe; the
watchdog reads end-of-file with groups still announced and sends each SIGTERM, then
SIGKILL after its grace period. A group holds its server and every process it started
that did not leave it (``sleep 3017 &``, worker processes); a process that left it
(``setsid``, a daemon) is out of reach, as it is for the orderly shutdown.

One watchdog for all, not one per server: a workspace of twenty servers started twenty
Pythons (~25 ms of CPU each) beside the servers' own start, on the same cores.

Where the platform has ``SOCK_SEQPACKET`` Unix sockets (Linux) the pipe is such a socket,
and the watchdog also starts servers for the inspector (``Watchdog.start``; why and when:
``server_process``): a server so started is watched from the moment it exists, the
watchdog is its parent and tells its exit (``X PID CODE``), read here by a thread.

POSIX only (process groups and ``killpg``). The watchdog is ``watchdog.py`` run as a
script (standard library only, a few milliseconds to start, off the critical path); this
module is the inspector's end of it.
"""

from __future__ import annotations

import collections
import concurrent.futures
import contextlib
import errno
import json
import os
import socket
import subprocess
import sys
import threading
from collections.abc import Sequence
from pathlib import Path

from inspector.errors import InspectorError

SCRIPT = str(Path(__file__).with_name("watchdog.py"))  # run as ``python -I -S SCRIPT``
LOST = -1  # the exit code of a server whose watchdog died before telling it


class WatchdogGone(InspectorError, OSError):
    """The watchdog ended before it answered a start (the server was not started: it is
    then started by the inspector itself)."""


class Watchdog:
    """The inspector's end of the one watchdog process: its channel (a socket where it
    can start servers, else a pipe), the groups it watches (pgid -> grace), the starts
    it has yet to answer and the exit codes it told."""

    def __init__(self, groups: dict[int, float]) -> None:
        self.sock: socket.socket | None = None
        try:
            if not _starts:
                raise OSError("starts are off")
            self.sock, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
            read, self.fd = theirs.detach(), self.sock.fileno()
        except (OSError, AttributeError):  # no SEQPACKET (macOS): a pipe, and no starts
            read, self.fd = os.pipe()
        try:
            self.process: subprocess.Popen[bytes] | None = subprocess.Popen(
                [sys.executable, "-I", "-S", SCRIPT],
                stdin=read,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
                start_new_session=True,
                close_fds=True,
            )
        except OSError:
            self._close()
            self.process = None
        finally:
            os.close(read)
        self.groups: dict[int, float] = {}
        self.starts: collections.deque[tuple[concurrent.futures.Future[int], float]] = (
            collections.deque()
        )
        self.exits: dict[int, int] = {}  # pid -> exit code, of servers it started
        self.gone = False  # it ended without us closing its channel
        self._reader: threading.Thread | None = None
        for pgid, grace in groups.items():  # a watchdog that died: its groups carried over
            self.watch(pgid, grace)

    @property
    def running(self) -> bool:
        return (
            self.fd >= 0
            and not self.gone
            and self.process is not None
            and self.process.poll() is None
        )

    @property
    def starts_servers(self) -> bool:
        return self.sock is not None and self.running

    def watch(self, pgid: int, grace: float) -> bool:
        if self._say(f"+{pgid} {grace:g}\n"):
            self.groups[pgid] = grace
            return True
        return False

    def unwatch(self, pgid: int, end: bool = False) -> None:
        """The group is down (``end``: is to be ended now); the last one gone (and no
        start awaited), the channel is closed and the watchdog exits."""
        if self.groups.pop(pgid, None) is None:
            return
        self._say(f"{'!' if end else '-'}{pgid}\n")
        self._close_if_idle()

    def start(
        self, argv: Sequence[str], env: dict[str, str], cwd: str, grace: float, fds: list[int]
    ) -> concurrent.futures.Future[int]:
        """Ask the watchdog to start a server on ``fds`` (its stdin, stdout, stderr; ours
        may be closed once this returns): the future gets its pid, or an ``OSError``."""
        assert self.sock is not None
        started: concurrent.futures.Future[int] = concurrent.futures.Future()
        spec = {"argv": list(argv), "env": env, "cwd": cwd, "grace": grace}
        with _lock:  # awaited before it is asked: the answer may come before send returns
            self.starts.append((started, grace))
            try:
                socket.send_fds(self.sock, [b"S" + json.dumps(spec).encode()], fds)
            except OSError as exc:
                self.starts.pop()
                started.set_exception(WatchdogGone(exc.errno, f"the watchdog is gone: {exc}"))
                return started
        _end_dropped()
        if self._reader is None:
            self._reader = threading.Thread(target=self._read, name="lifeline", daemon=True)
            self._reader.start()
        return started

    def exit_code(self, pid: int) -> int | None:
        """The exit code of a server it started; None while it runs; ``LOST`` when the
        watchdog died first and the server is gone."""
        code = self.exits.get(pid)
        if code is None and self.gone:
            try:
                os.kill(pid, 0)
            except ProcessLookupError:
                return LOST
            except PermissionError:
                pass
        return code

    def _read(self) -> None:
        """The watchdog's answers (a thread of its own: it writes when a server starts
        or exits, whatever event loop, if any, is running)."""
        assert self.sock is not None
        while True:
            try:
                message = self.sock.recv(4096)
            except OSError:
                message = b""
            if not message:
                break
            kind, _, rest = message.partition(b" ")
            if kind == b"X":
                pid, code = rest.split()
                self.exits[int(pid)] = int(code)
            elif kind in (b"P", b"E") and self.starts:
                with _lock:
                    started, grace = self.starts.popleft()
                    if kind == b"P":
                        self.groups[int(rest)] = grace  # it watches the group already
                        # a pid used again (they wrap): the exit told is a former server's
                        self.exits.pop(int(rest), None)
                    else:
                        self._close_if_idle()
                with contextlib.suppress(concurrent.futures.InvalidStateError):
                    if kind == b"P":
                        started.set_result(int(rest))
                    else:
                        number, _, text = rest.partition(b" ")
                        started.set_exception(OSError(int(number) or None, text.decode()))
        with _lock:
            self.gone = self.fd >= 0  # not closed by us: it died
            while self.starts:
                self.starts.popleft()[0].set_exception(
                    WatchdogGone(errno.EPIPE, "the watchdog ended before it started the server")
                )

    def _say(self, line: str) -> bool:
        if self.fd < 0:
            return False
        try:
            if self.sock is not None:
                self.sock.send(line.encode())  # one message: one line
            else:
                os.write(self.fd, line.encode())  # a short line: one atomic write
        except OSError:
            self.gone = True  # its end is closed: it died (maybe not reaped yet)
            return False
        return True

    def _close_if_idle(self) -> None:
        """No group to watch and no start awaited: the channel closes, the watchdog goes."""
        if not self.groups and not self.starts:
            self._close()

    def _close(self) -> None:
        """Our end closed: end-of-file for the watchdog, which then exits."""
        if self.fd < 0:
            return
        self.fd = -1
        if self.sock is not None:
            with contextlib.suppress(OSError):
                self.sock.shutdown(socket.SHUT_RDWR)  # wakes the reader thread too
            self.sock.close()
        else:
            with contextlib.suppress(OSError):
                os.close(self.fd)


_lock = threading.Lock()
_watchdog: Watchdog | None = None
# groups of lifelines dropped (``__del__``) while the lock was held, perhaps by the very
# code the garbage collector interrupted: ended by the next lifeline call, lock free
_dropped: collections.deque[tuple[Watchdog, int]] = collections.deque()


def _end_dropped() -> None:
    """End the groups of lifelines dropped while the lock was held. Called without it."""
    while _dropped:
        try:
            dog, pgid = _dropped.popleft()
        except IndexError:  # another thread took the last
            return
        with _lock:
            dog.unwatch(pgid, end=True)


_starts = True  # whether watchdogs may start servers (see ``start_servers_here``)


def start_servers_here() -> None:
    """Every server is started by the inspector itself, the watchdog only watches (over a
    pipe). For Locust: under gevent's patches the socket and the reader thread here would
    be gevent's, waiting on a hub nothing runs."""
    global _starts
    _starts = False


def _current() -> Watchdog:
    """The running watchdog, started when there is none (or it died: then its groups
    are given to the new one). Called with ``_lock`` held."""
    global _watchdog
    dog = _watchdog
    if dog is None or not dog.running:
        carried = dog.groups if dog is not None and dog.fd >= 0 else {}
        if dog is not None:
            dog._close()
        dog = _watchdog = Watchdog(carried)
    return dog


def starter() -> Watchdog | None:
    """The running watchdog if it can start servers; None when there is none (the server
    started here starts one, for those that come next) or it cannot."""
    with _lock:
        dog = _watchdog
        return dog if dog is not None and dog.starts_servers else None


class Lifeline:
    """One server group's place in the watchdog's watch (see the module doc)."""

    def __init__(self, pgid: int, grace: float, watched_by: Watchdog | None = None) -> None:
        """``watched_by``: the watchdog that started the server (and so watches it)."""
        self.pgid = pgid
        if watched_by is not None:
            self.watchdog, self._armed = watched_by, True
            return
        with _lock:
            self.watchdog = _current()
            self._armed = self.watchdog.watch(pgid, grace)
            if not self._armed:  # it died just now (not reaped yet): a new one watches
                self.watchdog = _current()
                self._armed = self.watchdog.watch(pgid, grace)
        _end_dropped()

    @property
    def process(self) -> subprocess.Popen[bytes] | None:
        """The watchdog process (shared by every server's lifeline)."""
        return self.watchdog.process

    def release(self) -> None:
        """The group is down (or never to be touched again): no longer watched."""
        self._let_go(end=False)

    def exited(self) -> bool:
        """After ``release``: whether the watchdog is done with the group (it still
        watches others, or it has exited and is reaped); True when none was started."""
        dog = self.watchdog
        if dog.process is None or dog.groups:
            return True
        return dog.process.poll() is not None

    def _let_go(self, end: bool) -> None:
        if not self._armed:
            return
        self._armed = False
        with _lock:
            self.watchdog.unwatch(self.pgid, end=end)
        _end_dropped()

    def __del__(self) -> None:  # a transport dropped without close()
        """The watchdog ends the group, as if we had died. Never waits for the lock: the
        garbage collector may run this inside code that holds it (a deadlock, seen in a
        CI run); then the group is ended by the next lifeline call."""
        if not getattr(self, "_armed", False):
            return
        self._armed = False
        # not contextlib.suppress: at interpreter exit this module's names may be gone
        # (then our end closes anyway, and the watchdog ends the group at end-of-file)
        try:
            if _lock.acquire(blocking=False):
                try:
                    self.watchdog.unwatch(self.pgid, end=True)
                finally:
                    _lock.release()
            else:
                _dropped.append((self.watchdog, self.pgid))
        except Exception:  # nothing to tell, and nobody to tell it to
            pass
