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

POSIX only (process groups and ``killpg``). The watchdog is this file run as a script,
standard library only, so it starts in a few milliseconds and off the critical path; it
imports only what it uses (``subprocess``, twenty modules more, is the inspector's side's,
imported there).
"""

from __future__ import annotations

import contextlib
import os
import signal
import sys
import threading
import time
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import subprocess

POLL = 0.05


class Watchdog:
    """The inspector's end of the one watchdog process: its pipe and the groups it
    watches (pgid -> grace)."""

    def __init__(self, groups: dict[int, float]) -> None:
        import subprocess

        read, self.fd = os.pipe()
        try:
            self.process: subprocess.Popen[bytes] | None = subprocess.Popen(
                [sys.executable, "-I", "-S", __file__],
                stdin=read,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
                start_new_session=True,
                close_fds=True,
            )
        except OSError:
            os.close(self.fd)
            self.fd = -1
            self.process = None
        finally:
            os.close(read)
        self.groups: dict[int, float] = {}
        for pgid, grace in groups.items():  # a watchdog that died: its groups carried over
            self.watch(pgid, grace)

    @property
    def running(self) -> bool:
        return self.fd >= 0 and self.process is not None and self.process.poll() is None

    def watch(self, pgid: int, grace: float) -> bool:
        if self._say(f"+{pgid} {grace:g}\n"):
            self.groups[pgid] = grace
            return True
        return False

    def unwatch(self, pgid: int, end: bool = False) -> None:
        """The group is down (``end``: is to be ended now); the last one gone, the pipe
        is closed and the watchdog exits."""
        if self.groups.pop(pgid, None) is None:
            return
        self._say(f"{'!' if end else '-'}{pgid}\n")
        if not self.groups and self.fd >= 0:
            os.close(self.fd)
            self.fd = -1

    def _say(self, line: str) -> bool:
        if self.fd < 0:
            return False
        try:
            os.write(self.fd, line.encode())  # a short line: one atomic write
        except OSError:
            return False
        return True


_lock = threading.Lock()
_watchdog: Watchdog | None = None


def _current() -> Watchdog:
    """The running watchdog, started when there is none (or it died: then its groups
    are given to the new one)."""
    global _watchdog
    dog = _watchdog
    if dog is None or not dog.running:
        carried = dog.groups if dog is not None and dog.fd >= 0 else {}
        if dog is not None and dog.fd >= 0:
            os.close(dog.fd)
            dog.fd = -1
        dog = _watchdog = Watchdog(carried)
    return dog


class Lifeline:
    """One server group's place in the watchdog's watch (see the module doc)."""

    def __init__(self, pgid: int, grace: float) -> None:
        self.pgid = pgid
        with _lock:
            self.watchdog = _current()
            self._armed = self.watchdog.watch(pgid, grace)

    @property
    def armed(self) -> bool:
        return self._armed

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

    def __del__(self) -> None:  # pragma: no cover - a transport dropped without close()
        if getattr(self, "_armed", False):
            with contextlib.suppress(Exception):
                self._let_go(end=True)  # the watchdog ends the group, as if we had died


def _group_alive(pgid: int) -> bool:
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def end_groups(groups: dict[int, float]) -> None:
    """SIGTERM every group (pgid -> grace), wait up to each one's grace for it to go,
    then SIGKILL what is left of it."""
    began = time.monotonic()
    for pgid in groups:
        with contextlib.suppress(OSError):
            os.killpg(pgid, signal.SIGTERM)
    left = dict(groups)
    while left:
        waited = time.monotonic() - began
        for pgid, grace in list(left.items()):
            if waited >= grace or not _group_alive(pgid):
                with contextlib.suppress(OSError):
                    os.killpg(pgid, signal.SIGKILL)
                del left[pgid]
        if left:
            time.sleep(POLL)


def end_group(pgid: int, grace: float) -> None:
    """SIGTERM the group, wait up to ``grace`` for it to go, then SIGKILL what is left."""
    end_groups({pgid: grace})


def main() -> int:
    """The watchdog: read the inspector's lines until end-of-file, then end the groups
    still watched."""
    for sig in (signal.SIGHUP, signal.SIGINT, signal.SIGTSTP):
        signal.signal(sig, signal.SIG_IGN)  # the terminal's signals are not for us
    groups: dict[int, float] = {}
    pending = b""
    while chunk := os.read(0, 4096):
        *lines, pending = (pending + chunk).split(b"\n")
        for line in lines:
            heard(groups, line)
    end_groups(groups)
    return 0


def heard(groups: dict[int, float], line: bytes) -> None:
    """One line of the inspector's: ``+PGID GRACE`` watch, ``-PGID`` no longer,
    ``!PGID`` end it now."""
    try:
        op, numbers = line[:1], line[1:].split()
        pgid = int(numbers[0])
        if op == b"+":
            groups[pgid] = float(numbers[1])
        elif op in (b"-", b"!"):
            grace = groups.pop(pgid, None)
            if op == b"!" and grace is not None:
                end_groups({pgid: grace})
    except (IndexError, ValueError):
        pass  # not a line of ours: nothing to act on


if __name__ == "__main__":  # pragma: no cover - runs as the watchdog process
    sys.exit(main())
