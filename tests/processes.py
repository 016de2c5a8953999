"""Processes as the tests see them: is a pid still running."""

from __future__ import annotations

import os
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
