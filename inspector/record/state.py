"""mcp-inspect's state folder: sessions, saved result files and screenshots go under it."""

from __future__ import annotations

import os
from pathlib import Path


def state_home() -> Path:
    """$XDG_STATE_HOME/mcp-inspect (~/.local/state/mcp-inspect by default)."""
    base = os.environ.get("XDG_STATE_HOME") or str(Path.home() / ".local" / "state")
    return Path(base) / "mcp-inspect"


def sessions_home() -> Path:
    """Where sessions are recorded by default: the state folder's ``sessions``."""
    return state_home() / "sessions"
