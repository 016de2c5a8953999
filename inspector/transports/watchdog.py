"""The lifeline's watchdog process (see ``lifeline``): this file run as a script.

Standard library only, and only the few modules it uses (it starts beside every first
stdio server, on the same cores): it reads the inspector's messages on stdin until
end-of-file, then ends the process groups still watched. Group ids 0 and 1 (our own
group, init's) are never taken: a stray or hostile line cannot make it signal those.

Where stdin is a ``SOCK_SEQPACKET`` socket (Linux) it also starts servers for the
inspector (``S`` with the server's three pipe ends passed along, ``SCM_RIGHTS``): each in
a process group of its own, inside this process's session, watched from the moment it
exists; it answers ``P PID`` (started) or ``E ERRNO TEXT``, and ``X PID CODE`` once the
server has exited (it is their parent, so it reaps them). Why: see ``server_process``.
"""

from __future__ import annotations

import contextlib
import os
import select
import signal
import socket
import sys
import time

TYPE_CHECKING = False  # typing is not imported: mypy reads the block, Python skips it
if TYPE_CHECKING:
    from collections.abc import Callable
    from subprocess import Popen

    Ender = Callable[[int, float], None]

POLL = 0.05


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


def _end_one(pgid: int, grace: float) -> None:
    end_groups({pgid: grace})


def main() -> int:
    """The watchdog: read the inspector's messages until end-of-file, then end the groups
    still watched."""
    for sig in (signal.SIGHUP, signal.SIGINT, signal.SIGTSTP):
        # the terminal's signals are not for us. A handler, not SIG_IGN: the servers we
        # start get the default back at exec (an ignored signal would stay ignored)
        signal.signal(sig, _ignore)
    groups: dict[int, float] = {}
    try:
        channel = socket.socket(fileno=0)
    except OSError:  # a pipe: group lines only
        pending = b""
        while chunk := os.read(0, 4096):
            *lines, pending = (pending + chunk).split(b"\n")
            for line in lines:
                heard(groups, line)
    else:
        Spawner(channel, groups).serve()
    end_groups(groups)
    return 0


def _ignore(signum: int, frame: object) -> None:
    """A signal handled by doing nothing."""


class Spawner:
    """The socket end: group lines as in a pipe, and servers started and reaped."""

    BUFFER = 1 << 20  # a start message: the command, its environment, its folder

    def __init__(self, channel: socket.socket, groups: dict[int, float]) -> None:
        self.channel = channel
        self.groups = groups
        self.children: dict[int, Popen[bytes]] = {}
        self.ending: dict[int, float] = {}  # pgid -> when it gets SIGKILL

    def serve(self) -> None:
        """Until end-of-file: messages acted on, exited servers reaped and told."""
        wake_read, wake_write = os.pipe()
        os.set_blocking(wake_read, False)
        os.set_blocking(wake_write, False)
        signal.set_wakeup_fd(wake_write)
        signal.signal(signal.SIGCHLD, _ignore)  # a handler, so the wakeup fd hears it
        channel = self.channel.fileno()
        while True:
            wait = POLL if self.ending else None  # groups being ended: checked as they go
            ready, _, _ = select.select([channel, wake_read], [], [], wait)
            self.end_due()
            if wake_read in ready:
                with contextlib.suppress(OSError):
                    os.read(wake_read, 4096)
                self.reap()
            if channel in ready:
                try:
                    data, fds, flags, _ = socket.recv_fds(self.channel, self.BUFFER, 3)
                except OSError:
                    data, fds, flags = b"", [], 0
                if not data:  # the inspector is gone: what is being ended goes with the rest
                    now = time.monotonic()
                    for pgid, deadline in self.ending.items():
                        self.groups[pgid] = max(0.0, deadline - now)
                    return
                try:
                    self.heard(data, fds, truncated=bool(flags & socket.MSG_TRUNC))
                finally:
                    for fd in fds:
                        with contextlib.suppress(OSError):
                            os.close(fd)

    def heard(self, data: bytes, fds: list[int], truncated: bool) -> None:
        if data[:1] != b"S":
            heard(self.groups, data.rstrip(b"\n"), end=self.end_later)
        elif truncated or len(fds) != 3:
            self.say(b"E 0 the start message was cut short or lacked its pipes")
        else:
            self.start(data[1:], fds)

    def start(self, payload: bytes, fds: list[int]) -> None:
        """Start a server: ``payload`` is JSON (argv, env, cwd, grace); ``fds`` its
        stdin, stdout and stderr."""
        import json  # only once the inspector starts a server through us
        import subprocess

        try:
            spec = json.loads(payload)
            process = subprocess.Popen(
                spec["argv"],
                stdin=fds[0],
                stdout=fds[1],
                stderr=fds[2],
                env=spec["env"],
                cwd=spec["cwd"],
                process_group=0,  # its own group, for the group signals; in our session
            )
        except OSError as exc:
            self.say(f"E {exc.errno or 0} {exc.strerror or exc}".encode())
        except (ValueError, KeyError, TypeError) as exc:
            self.say(f"E 0 not a start message: {exc}".encode())
        else:
            self.groups[process.pid] = float(spec.get("grace", 2.0))
            self.children[process.pid] = process
            self.say(f"P {process.pid}".encode())

    def end_later(self, pgid: int, grace: float) -> None:
        """``!PGID``: SIGTERM now, SIGKILL once its grace is over (``end_due``), while
        starts and exits go on being answered (``end_groups`` would wait here)."""
        with contextlib.suppress(OSError):
            os.killpg(pgid, signal.SIGTERM)
        self.ending[pgid] = time.monotonic() + grace

    def end_due(self) -> None:
        """SIGKILL what is left of each group being ended whose grace is over."""
        now = time.monotonic()
        for pgid, deadline in list(self.ending.items()):
            if not _group_alive(pgid):
                del self.ending[pgid]
            elif now >= deadline:
                with contextlib.suppress(OSError):
                    os.killpg(pgid, signal.SIGKILL)
                del self.ending[pgid]

    def reap(self) -> None:
        for pid, process in list(self.children.items()):
            code = process.poll()
            if code is not None:
                del self.children[pid]
                self.say(f"X {pid} {code}".encode())

    def say(self, message: bytes) -> None:
        with contextlib.suppress(OSError):  # the inspector is gone: end-of-file comes next
            self.channel.send(message)


def heard(groups: dict[int, float], line: bytes, end: Ender | None = None) -> None:
    """One line of the inspector's: ``+PGID GRACE`` watch, ``-PGID`` no longer,
    ``!PGID`` end it now (``end(pgid, grace)``; by default waiting for it to go)."""
    try:
        op, numbers = line[:1], line[1:].split()
        pgid = int(numbers[0])
        if pgid <= 1:
            return  # 0 is our own group, 1 init's: never a server's
        if op == b"+":
            groups[pgid] = float(numbers[1])
        elif op in (b"-", b"!"):
            grace = groups.pop(pgid, None)
            if op == b"!" and grace is not None:
                (end or _end_one)(pgid, grace)
    except (IndexError, ValueError):
        pass  # not a line of ours: nothing to act on


if __name__ == "__main__":  # pragma: no cover - runs as the watchdog process
    sys.exit(main())
