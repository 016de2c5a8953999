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


def new_session_path(name: str, is_url: bool = False) -> Path:
    """A new file under :func:`sessions_home` named after the time and the server (a
    command's or config entry's name, or a URL)."""
    import re
    from datetime import datetime

    stamp = datetime.now().strftime("%Y%m%d-%H%M%S")
    slug = re.sub(r"[^A-Za-z0-9]+", "-", name if is_url else Path(name).name)
    slug = slug.strip("-")[:40] or "server"
    return sessions_home() / f"{stamp}-{slug}.jsonl"
