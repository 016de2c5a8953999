"""A workspace server's screen: its own panes, and its session controller's messages
shown there (whichever server the app shows at the time).

The app's first server is on the default screen, composed by the app; the others each
compose their panes on their own screen, in a Textual mode of their own, so switching
keeps every server's catalog, form, result and log as they were.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from textual.app import ComposeResult
from textual.message import Message

from inspector.tui import messages
from inspector.tui.screens.main import MainScreen

if TYPE_CHECKING:
    from textual.notifications import SeverityLevel

    from inspector.tui.server_view import ServerView


class ServerScreen(MainScreen):
    """One server's panes; ``own_panes``: composed here (not the app's default screen)."""

    def __init__(self, *, own_panes: bool, id: str | None = None) -> None:
        super().__init__(id=id)
        self.own_panes = own_panes
        self.view: ServerView | None = None  # set once the view is built
        self._waiting: list[Callable[[ServerView], object]] = []  # shown once ready

    def compose(self) -> ComposeResult:
        if self.own_panes and self.view is not None:
            yield from self._app().switch.panes(self.view)

    def on_mount(self) -> None:
        view = self.view
        if self.own_panes and view is not None and not view.started:
            self._app().switch.start(view)

    def _app(self) -> Any:
        return self.app  # the InspectorApp (not imported: it imports this module)

    # the controller's messages, for this server's view (stopped: the app's own
    # handlers are for the server it shows). Shown in order once the view's panes are
    # all there: a server that connected before its screen was composed has its
    # messages waiting in this screen's queue, handled right after it mounts.

    def _ready(self) -> bool:
        view = self.view
        return view is not None and view.started and bool(self.query("ServerPane"))

    def _show(self, message: Message, show: Callable[[ServerView], object]) -> None:
        message.stop()
        self._waiting.append(show)
        self._flush()

    def _flush(self) -> None:
        if not self.is_attached:
            self._waiting.clear()  # removed from the workspace
            return
        if not self._ready():
            self.call_after_refresh(self._flush)
            return
        waiting, self._waiting = self._waiting, []
        assert self.view is not None
        for show in waiting:
            show(self.view)

    def on_connecting(self, message: messages.Connecting) -> None:
        self._show(message, lambda view: view.connection.connecting(message))

    def on_connected(self, message: messages.Connected) -> None:
        def show(view: ServerView) -> None:
            view.connection.connected(message)
            if not view.skills_listed:  # not composed when it connected
                view.skills.connected()

        self._show(message, show)

    def on_connect_failed(self, message: messages.ConnectFailed) -> None:
        self._show(message, lambda view: view.connection.connect_failed(message))

    def on_disconnected(self, message: messages.Disconnected) -> None:
        self._show(message, lambda view: view.connection.disconnected(message))

    def on_catalog_loaded(self, message: messages.CatalogLoaded) -> None:
        self._show(message, lambda view: view.connection.catalog_loaded(message))

    # its feed's news that its own calls act on (not the server shown at the time): a
    # task's outcome in its result pane, an updated resource re-read from its server

    def on_task_finished(self, message: messages.TaskFinished) -> None:
        self._show(message, lambda view: view.calls.task_finished(message.state))

    def on_resource_updated(self, message: messages.ResourceUpdated) -> None:
        self._show(message, lambda view: view.calls.resource_updated(message.uri))


class ViewRelay:
    """Where a server's controller posts: its status row (the server list's) is kept at
    once, then the message goes to its screen, which shows it; queued there until the
    screen is composed (a workspace composes a server's screen when it is first shown,
    while every server connects from the start)."""

    def __init__(self, app: Any, view: ServerView) -> None:
        self.app = app
        self.view = view

    def post_message(self, message: Message) -> bool:
        view = self.view
        status = view.status
        if isinstance(message, messages.Connecting):
            status.connecting()
        elif isinstance(message, messages.Connected):
            session = view.server.session
            status.connected(session.protocol_version or "" if session else "")
            bridge = view.server.bridge
            if bridge is not None and session is not None:
                bridge.attach(session)  # its dialogs name it, shown or not
            # its skills listed now, as the catalog starts loading (as the app did before
            # screens were composed late), when its screen is there for the tab
            view.skills_listed = view.started and bool(view.main.query("#bottom-tabs"))
            if view.skills_listed:
                view.skills.connected()
        elif isinstance(message, messages.ConnectFailed):
            auth = view.server.auth_ui
            message.needs_auth = auth is not None and auth.held
            if message.needs_auth:
                status.needs_auth()
            elif message.ended is not None:
                status.ended(message.ended)
            else:
                status.failed(message.error)
        elif isinstance(message, messages.Disconnected):
            status.ended(message.lost)
        return view.main.post_message(message)

    def notify(
        self,
        message: str,
        *,
        title: str = "",
        severity: SeverityLevel = "information",
        timeout: float | None = None,
    ) -> None:
        self.app.notify(message, title=title, severity=severity, timeout=timeout)
