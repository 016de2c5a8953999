"""A lifeline for a stdio server's process group: it goes when the inspector goes.

Each stdio server gets a small watchdog process, started in its own session (a closing
terminal's SIGHUP does not reach it), whose stdin is a pipe whose only writer is the
inspector. When the inspector ends the server itself it writes ``release`` and closes
the pipe: the watchdog exits and does nothing. When the inspector dies any other way
(``kill -9``, a crash, a hangup it did not survive) the kernel closes the pipe; the
watchdog reads end-of-file without ``release`` and sends SIGTERM to the server's
process group, then SIGKILL after the grace period. The group holds the server and
every process it started that did not leave it (``sleep 3017 &``, worker processes);
a process that left it (``setsid``, a daemon) is out of reach, as it is for the
orderly shutdown.

POSIX only (process groups and ``killpg``). The watchdog is this file run as a script,
standard library only, so it starts in a few milliseconds and off the critical path:
each stdio server starts one, so it imports only what it uses (``subprocess``, twenty
modules more, is the inspector's side's, imported there).
"""

from __future__ import annotations

import contextlib
import os
import signal
import sys
import time

RELEASE = b"release"
POLL = 0.05


class Lifeline:
    """The inspector's end of one watchdog (see the module doc)."""

    def __init__(self, pgid: int, grace: float) -> None:
        import subprocess

        read, self._write = os.pipe()
        try:
            self.process: subprocess.Popen[bytes] | None = subprocess.Popen(
                [sys.executable, "-I", "-S", __file__, str(pgid), f"{grace:g}"],
                stdin=read,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
                start_new_session=True,
                close_fds=True,
            )
        except OSError:
            os.close(self._write)
            self._write = -1
            self.process = None
        finally:
            os.close(read)

    @property
    def armed(self) -> bool:
        return self._write >= 0

    def release(self) -> None:
        """The group is down (or never to be touched again): the watchdog exits idle."""
        if self._write < 0:
            return
        with contextlib.suppress(OSError):
            os.write(self._write, RELEASE)
        os.close(self._write)
        self._write = -1

    def exited(self) -> bool:
        """Whether the watchdog has exited (and is reaped); True when none was started."""
        return self.process is None or self.process.poll() is not None

    def __del__(self) -> None:  # pragma: no cover - a transport dropped without close()
        if getattr(self, "_write", -1) >= 0:
            with contextlib.suppress(OSError):
                os.close(self._write)  # no release: the watchdog ends the group


def _group_alive(pgid: int) -> bool:
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def end_group(pgid: int, grace: float) -> None:
    """SIGTERM the group, wait up to ``grace`` for it to go, then SIGKILL what is left."""
    with contextlib.suppress(OSError):
        os.killpg(pgid, signal.SIGTERM)
    deadline = time.monotonic() + grace
    while time.monotonic() < deadline and _group_alive(pgid):
        time.sleep(POLL)
    with contextlib.suppress(OSError):
        os.killpg(pgid, signal.SIGKILL)


def main(argv: list[str]) -> int:
    pgid, grace = int(argv[1]), float(argv[2])
    for sig in (signal.SIGHUP, signal.SIGINT, signal.SIGTSTP):
        signal.signal(sig, signal.SIG_IGN)  # the terminal's signals are not for us
    said = b""
    while chunk := os.read(0, 64):
        said += chunk
    if said != RELEASE:
        end_group(pgid, grace)
    return 0


if __name__ == "__main__":  # pragma: no cover - runs as the watchdog process
    sys.exit(main(sys.argv))
