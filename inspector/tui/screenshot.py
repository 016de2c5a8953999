"""The palette's "Screenshot": an SVG of the screen saved in the state folder (Textual's
default, ~/Downloads, does not exist on many machines, and its failure gave no reason);
the notification says where it went, or why it could not be saved."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path
from typing import Any

from textual.app import App

from inspector.record.state import state_home
from inspector.safe_text import escape_markup
from inspector.tui.result_files import free_path
from inspector.tui.session_copy import shorten


def screenshot_folder() -> Path:
    return state_home() / "screenshots"


def save_screenshot(
    app: App[Any], filename: str | None = None, folder: str | Path | None = None
) -> Path | None:
    """Write the SVG (``folder``: the screenshots folder by default); say where, or why not."""
    where = Path(folder).expanduser() if folder else screenshot_folder()
    name = filename or datetime.now().strftime("mcp-inspect-%Y%m%d-%H%M%S.svg")
    svg = app.export_screenshot()
    try:
        where.mkdir(parents=True, exist_ok=True)
        target = free_path(where / name)
        target.write_text(svg, encoding="utf-8")
    except OSError as exc:
        app.notify(
            escape_markup(f"could not save it in {shorten(where)}: {exc.strerror or exc}"),
            title="Screenshot",
            severity="error",
            timeout=10,
        )
        return None
    app.notify(escape_markup(f"saved to {shorten(target)}"), title="Screenshot", timeout=8)
    return target
