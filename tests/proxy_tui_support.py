"""The TUI attached to a proxy, as the proxy tests open it."""

from __future__ import annotations

from pathlib import Path

from inspector.engine.responders import Responders
from inspector.target import Target
from inspector.tui.app import InspectorApp
from inspector.tui.interactive_setup import interactive_responders


def attached_app(path: Path) -> InspectorApp:
    """An inspector attached to the proxy whose socket is ``path``, answering the
    server's requests in dialogs as a user's does."""
    responders = Responders()
    app = InspectorApp(
        Target(attach=str(path), name="tui", transport="proxy"), responders=responders
    )
    interactive_responders(app, responders)
    return app
