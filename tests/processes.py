"""Processes as the tests see them: is a pid still running; ctrl+c as in a terminal."""

from __future__ import annotations

import os
import signal
from pathlib import Path


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
