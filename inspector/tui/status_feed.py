"""The status bar's facts: who the server is after a handshake, and the counters
(events, requests in flight, recording stopped) refreshed a few times a second."""

from __future__ import annotations

from typing import TYPE_CHECKING

from inspector.engine.session import Session
from inspector.live.requests import calls
from inspector.proxy.attach import AttachTransport
from inspector.tui.widgets.status_bar import StatusBar, server_label

if TYPE_CHECKING:
    from inspector.tui.screens.main import MainScreen
    from inspector.tui.server import Server

REFRESH = 0.25  # seconds between counter refreshes


class StatusFeed:
    """Feeds the main screen's ``StatusBar`` from one ``Server``: its state, its current
    session (the handshake counts in flight) and its recorder."""

    def __init__(self, screen: MainScreen, server: Server) -> None:
        self.screen = screen
        self.server = server
        self._status: StatusBar | None = None

    @property
    def status(self) -> StatusBar:
        """The bar, found once (its own timer refreshes it while it is mounted)."""
        if self._status is None:
            self._status = self.screen.status_bar
        return self._status

    def start(self) -> None:
        recorder = self.server.recorder
        if recorder is not None:
            self.status.session_file = str(recorder.path)
        self.status.set_interval(REFRESH, self.refresh)

    def refresh(self) -> None:
        status = self.status
        if not status.is_attached:
            return  # the app is shutting down
        status.events = len(self.server.state.events)
        session = self.server.session
        status.pending = calls(session.pending.values()) if session else 0  # no streams
        transport = session.transport if session else None
        if isinstance(transport, AttachTransport):  # the proxy's intercept, live
            status.intercept, status.held = transport.intercept_filter, len(transport.held)
        else:
            status.intercept, status.held = "", 0
        recorder = self.server.recorder
        if recorder is not None and recorder.error:
            status.extra = "recording stopped"

    def connected(self, session: Session) -> None:
        """The handshake is done: server name, protocol, and the transport it settled on."""
        status = self.status
        status.state = "connected"
        status.server = server_label(session.server_info)
        status.protocol = session.protocol_version or ""
        status.stateless = session.era.stateless  # no handshake, no session to speak of
        # auto-detection has decided by now
        status.transport = session.transport.detected or session.transport.kind
