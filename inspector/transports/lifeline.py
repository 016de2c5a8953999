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

POSIX only (process groups and ``killpg``). The watchdog is ``watchdog.py`` run as a
script (standard library only, a few milliseconds to start, off the critical path); this
module is the inspector's end of it.
"""

from __future__ import annotations

import contextlib
import os
import subprocess
import sys
import threading
from pathlib import Path

SCRIPT = str(Path(__file__).with_name("watchdog.py"))  # run as ``python -I -S SCRIPT``


class Watchdog:
    """The inspector's end of the one watchdog process: its pipe and the groups it
    watches (pgid -> grace)."""

    def __init__(self, groups: dict[int, float]) -> None:
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
