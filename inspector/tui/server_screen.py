"""A workspace server's screen: its own panes, and its session controller's messages
shown there (whichever server the app shows at the time).

The app's first server is on the default screen, composed by the app; the others each
compose their panes on their own screen, in a Textual mode of their own, so switching
keeps every server's catalog, form, result and log as they were.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from textual.app import ComposeResult

from inspector.tui import messages
from inspector.tui.screens.main import MainScreen

if TYPE_CHECKING:
    from inspector.tui.server_view import ServerView


class ServerScreen(MainScreen):
    """One server's panes; ``own_panes``: composed here (not the app's default screen)."""

    def __init__(self, *, own_panes: bool, id: str | None = None) -> None:
        super().__init__(id=id)
        self.own_panes = own_panes
        self.view: ServerView | None = None  # set once the view is built

    def compose(self) -> ComposeResult:
        if self.own_panes and self.view is not None:
            yield from self._app().panes(self.view)

    def on_mount(self) -> None:
        view = self.view
        if self.own_panes and view is not None and not view.started:
            self._app().start_view(view)

    def _app(self) -> Any:
        return self.app  # the InspectorApp (not imported: it imports this module)

    # the controller's messages, for this server's view (stopped: the app's own
    # handlers are for the server it shows)

    def _mounted(self) -> bool:
        return self.view is not None and bool(self.query("StatusBar"))

    def on_connecting(self, message: messages.Connecting) -> None:
        message.stop()
        if self._mounted():
            assert self.view is not None
            self.view.status.connecting()
            self.view.connection.connecting(message)

    def on_connected(self, message: messages.Connected) -> None:
        message.stop()
        if self._mounted():
            assert self.view is not None
            session = self.view.server.session
            self.view.status.connected(session.protocol_version or "" if session else "")
            self.view.connection.connected(message)
            self.view.skills.connected()

    def on_connect_failed(self, message: messages.ConnectFailed) -> None:
        message.stop()
        if self._mounted():
            assert self.view is not None
            self.view.status.failed(message.error)
            self.view.connection.connect_failed(message)

    def on_disconnected(self, message: messages.Disconnected) -> None:
        message.stop()
        if self._mounted():
            assert self.view is not None
            self.view.status.failed(message.lost.message)
            self.view.connection.disconnected(message)

    def on_catalog_loaded(self, message: messages.CatalogLoaded) -> None:
        message.stop()
        if self._mounted():
            assert self.view is not None
            self.view.connection.catalog_loaded(message)
