"""``C``: the Collections view on the live connection (the file kept with ``k`` offered)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from inspector.tui.collection_keep import CHOSEN, default_path


def open_collections(app: Any) -> None:
    """Push the Collections view, connected to the app's client (None: not connected)."""
    from inspector.tui.screens.collections import CollectionsScreen

    controller = getattr(app, "controller", None)
    client = controller.client if controller is not None and controller.connected else None
    kept: Path | None = getattr(app, CHOSEN, None)
    app.push_screen(CollectionsScreen(kept or default_path(getattr(app, "target", None)), client))
