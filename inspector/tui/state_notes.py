"""State-file problems in the TUI: a damaged or unusable ``eras.json`` (or another state
file read through ``record.state``) is said once on stderr, which the TUI's screen hides;
here it is a toast, and a note in the log (and the session file) while a session runs."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from inspector.record.state import listen

if TYPE_CHECKING:
    from textual.app import App

    from inspector.tui.server import Server

TITLE = "state file"


class StateNotes:
    """Tells one app's user about state-file problems from ``start`` to ``stop``."""

    def __init__(self, app: App[Any], server: Server) -> None:
        self.app = app
        self.server = server
        self._stop: Callable[[], None] | None = None
        self._loop: asyncio.AbstractEventLoop | None = None

    def start(self) -> None:
        """Listen (on the app's loop: a problem may be said from a worker thread)."""
        self._loop = asyncio.get_running_loop()
        self._stop = listen(self._heard)

    def stop(self) -> None:
        if self._stop is not None:
            self._stop()
            self._stop = None

    def _heard(self, text: str) -> None:
        if self._loop is not None and not self._loop.is_closed():
            self._loop.call_soon_threadsafe(self._tell, text)

    def _tell(self, text: str) -> None:
        if not self.app.is_running:
            return
        self.app.notify(text, title=TITLE, severity="warning", timeout=12)
        session = self.server.session
        if session is not None:  # the log keeps it once the toast is gone
            session.note(f"{TITLE}: {text}", severity="warning")
