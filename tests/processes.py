"""Processes as the tests see them: is a pid still running; ctrl+c as in a terminal; the
line a child prints when it is ready."""

from __future__ import annotations

import os
import select
import signal
import time
from pathlib import Path
from typing import IO


def alive(pid: int) -> bool:
    """Whether ``pid`` runs: a zombie waiting for its parent to reap it does not."""
    try:
        os.kill(pid, 0)
        # the state follows the command's name in parentheses, which may hold spaces
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (ProcessLookupError, OSError):
        return False
    return state != "Z"


def default_sigint() -> None:
    """In the child before exec: SIGINT neither ignored nor blocked (both are inherited
    across exec, and a process started with it ignored rightly keeps ignoring it)."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})


def line_with(stream: IO[bytes], marker: bytes, timeout: float) -> tuple[bytes | None, bytes]:
    """The first line a child writes on ``stream`` (its stdout or stderr pipe) that holds
    ``marker``, and all it wrote up to that line's end; None for the line when the pipe
    ended or ``timeout`` passed first. Byte by byte from the pipe itself: a ``select`` on
    the buffered file misses lines its buffer already holds (two lines in one write: the
    second waited for the timeout), and nothing after the line is taken from later
    readers."""
    fd = stream.fileno()
    seen, line = bytearray(), bytearray()
    deadline = time.monotonic() + timeout
    while (left := deadline - time.monotonic()) > 0:
        if not select.select([fd], [], [], min(left, 0.2))[0]:
            continue
        byte = os.read(fd, 1)
        if not byte:
            break
        seen += byte
        if byte != b"\n":
            line += byte
        elif marker in line:
            return bytes(line), bytes(seen)
        else:
            line.clear()
    return None, bytes(seen)
