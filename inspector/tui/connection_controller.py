"""What the live session's connection shows: the controller's messages (connecting,
connected, failed, lost, a list loaded) become the status bar's state, a line in the
result view, a notification, the catalog's lists and the Server pane.

The app keeps the message handlers (guarded: the widgets may be gone while it closes)
and hands over the main screen (its panes), the ``Server`` (its controller: None before
``on_mount`` and in a replay; its interactive bridge: None without one) and the status
feed.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from textual.app import ScreenStackError

from inspector.engine.kinds import KIND
from inspector.safe_text import one_line
from inspector.tui import messages
from inspector.tui.calls import EXPIRED, RENEWED
from inspector.tui.screens.intercept import attached, watch_intercept
from inspector.tui.status_feed import StatusFeed
from inspector.tui.widgets.status_bar import StatusBar

if TYPE_CHECKING:
    from textual.app import App

    from inspector.tui.screens.main import MainScreen
    from inspector.tui.server import Server


def while_mounted(handler: Callable[[Any, Any], None]) -> Callable[[Any, Any], None]:
    """The controller's messages can arrive while the app closes and its widgets are already
    gone (a list answered during shutdown): drop them then instead of failing a query."""

    @functools.wraps(handler)
    def guarded(app: Any, message: Any) -> None:
        try:
            mounted = bool(app.query(StatusBar))
        except ScreenStackError:  # the last screen is already gone
            mounted = False
        if mounted:
            handler(app, message)

    return guarded


class ConnectionController:
    """Shows one server's connection as its session controller reports it: it handles the
    controller's messages for the app (a controller of the view, not a widget)."""

    def __init__(
        self,
        app: App[Any],
        screen: MainScreen,
        server: Server,
        status_feed: StatusFeed,
    ) -> None:
        self.app = app
        self.screen = screen
        self.server = server
        self.status_feed = status_feed

    def connecting(self, message: messages.Connecting) -> None:
        status = self.screen.status_bar
        status.state = "connecting"
        status.server = message.target
        view = self.screen.result_view
        if message.renewal and view.outcome is not None:
            return  # the last call's outcome (maybe failed by the expiry) stays in view
        what = (
            "the server's session expired: starting a new session"
            if message.renewal
            else f"connecting to {message.target}"
        )
        view.show_text(f"{what} (attempt {message.attempt})…", "yellow")

    def connected(self, message: messages.Connected) -> None:
        session = self.server.session
        assert session is not None
        self.status_feed.connected(session)
        bridge = self.server.bridge
        if bridge is not None:
            bridge.attach(session)
        proxy = attached(session)
        if proxy is not None:  # frames held from now on are said (another's filter too)
            watch_intercept(self.app, proxy)
        view = self.screen.result_view
        if message.renewal and view.outcome is not None:
            if view.outcome.note == EXPIRED:
                view.outcome.note = RENEWED  # the call failed; now it can be made again
                view.show(view.outcome)
        else:
            renewed = (
                "a new session started (the server expired the old one); "
                if message.renewal
                else ""
            )
            view.show_text(
                f"connected; {renewed}pick an item on the left (1-4 switch lists, "
                "g goes to the log)",
                "green",
            )
        self.refresh_server_pane()

    def connect_failed(self, message: messages.ConnectFailed) -> None:
        if message.needs_auth:  # not a failure: the person has not chosen it yet
            self.screen.status_bar.state = "needs authorization"
            self.screen.result_view.show_text(
                "this server needs authorization (OAuth): press A to start it", "yellow"
            )
            return
        self.screen.status_bar.state = "failed"
        self.screen.result_view.show_text(
            f"could not connect:\n{message.error}\n\npress r to retry", "red"
        )
        self.app.notify(
            message.error.splitlines()[0], title="connection failed", severity="error", timeout=8
        )

    def disconnected(self, message: messages.Disconnected) -> None:
        self.screen.status_bar.state = "disconnected"
        if message.lost.expected:
            return
        self.screen.result_view.show_text(
            f"connection lost: {message.lost.describe()}\n\npress r to reconnect (the log is kept)",
            "red",
        )
        self.app.notify(message.lost.message, title="connection lost", severity="error", timeout=8)
        self.refresh_server_pane()

    def catalog_loaded(self, message: messages.CatalogLoaded) -> None:
        self.screen.catalog.set_items(message.kind, message.items, message.error)
        if message.change:  # said only when something did change
            label = KIND[message.kind].label
            self.app.notify(
                f"{label}: {one_line(message.change.describe(), 300)} (now {len(message.items)})",
                title="list_changed",
                markup=False,
            )

    def refresh_server_pane(self) -> None:
        session = self.server.session
        if session is None:
            return
        stderr = session.transport.stderr_tail
        self.screen.server_pane.refresh_from(
            info=session.server_info,
            protocol=session.protocol_version,
            server_caps=session.server_capabilities,
            client_caps=session.responders.capabilities(),
            instructions=session.instructions,
            stderr_tail=stderr,
            target=session.transport.target,
        )

    def reopen_listen(self) -> None:
        """The In flight tab's request to open the listen stream again."""
        client = self.server.client
        if client is None or not client.session.era.stateless:
            self.app.notify("no listen stream: it exists in the stateless era (2026-07-28) only")
        elif not client.listen_closed:
            self.app.notify("the listen stream is open (c on its row closes it)")
        else:
            client.reopen_listen()
            self.app.notify("listening again: lists update by themselves")
