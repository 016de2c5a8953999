"""The lifeline's watchdog process (see ``lifeline``): this file run as a script.

Standard library only, and only the few modules it uses (it starts beside every first
stdio server, on the same cores): it reads the inspector's lines on stdin until
end-of-file, then ends the process groups still watched. Group ids 0 and 1 (our own
group, init's) are never taken: a stray or hostile line cannot make it signal those.
"""

from __future__ import annotations

import contextlib
import os
import signal
import sys
import time

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
        if pgid <= 1:
            return  # 0 is our own group, 1 init's: never a server's
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
