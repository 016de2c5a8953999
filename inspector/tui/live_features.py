"""What a connected session attaches to: the server-request bridge, the in-flight view,
the server log, tasks, and resource updates (with the optional automatic re-read)."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from inspector.engine.client import McpClient
from inspector.engine.session import Session
from inspector.tui.widgets.inflight import InFlightView
from inspector.tui.widgets.item_panel import ItemPanel
from inspector.tui.widgets.server_log import ServerLogView
from inspector.tui.widgets.tasks_view import TasksView

if TYPE_CHECKING:
    from textual.app import App

# reads a resource in the app's call path: (kind, item, arguments)
Reread = Callable[[str, dict[str, Any], Any], object]


class LiveFeatures:
    """Attaches the live widgets to each new session and follows resource updates."""

    def __init__(self, app: App[Any], reread: Reread) -> None:
        self.app = app
        self.reread = reread
        self.tasks_manager: Any = None
        self.auto_reread = False  # re-read a subscribed resource when it is updated
        self.updated: set[str] = set()  # resources updated since last read

    def attach(self, session: Session, client: McpClient | None, bridge: Any = None) -> None:
        """``bridge``: the InteractiveResponders, when the TUI answers server requests."""
        query = self.app.query_one
        if bridge is not None:
            bridge.attach(session)
        query(InFlightView).attach(session)
        query(ServerLogView).attach(session, client)
        self.tasks_manager = query(TasksView).attach(session)
        session.on_notification("notifications/resources/updated", self.resource_updated)

    def resource_updated(self, params: dict[str, Any]) -> None:
        uri = str(params.get("uri", ""))
        self.updated.add(uri)
        panel = self.app.query_one(ItemPanel)
        current = panel.item.get("uri") if panel.item and panel.kind == "resources" else None
        if self.auto_reread and current == uri:
            self.reread("resources", panel.item or {"uri": uri}, None)
            return
        hint = "select it and ctrl+s to re-read; U re-reads automatically"
        self.app.notify(f"{uri} was updated ({hint})", title="resources/updated", timeout=4)

    def read(self, uri: str) -> None:
        """The user read ``uri``: it is no longer news."""
        self.updated.discard(uri)

    def toggle_auto_reread(self) -> None:
        self.auto_reread = not self.auto_reread
        self.app.notify(
            "subscribed resources are re-read when updated"
            if self.auto_reread
            else "automatic re-read off"
        )
