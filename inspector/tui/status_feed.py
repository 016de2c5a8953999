"""The status bar's facts: who the server is after a handshake, and the counters
(events, requests in flight, recording stopped) refreshed a few times a second."""

from __future__ import annotations

from collections.abc import Callable

from inspector.engine.session import Session
from inspector.live.requests import calls
from inspector.live.state import LiveState
from inspector.record.recorder import Recorder
from inspector.tui.widgets.status_bar import StatusBar, server_label

REFRESH = 0.25  # seconds between counter refreshes


class StatusFeed:
    """Feeds one ``StatusBar`` (handed over by the app that composed it) from the state;
    ``session`` returns the current session, if any (its handshake counts in flight)."""

    def __init__(
        self,
        status: StatusBar,
        state: LiveState,
        session: Callable[[], Session | None],
        recorder: Recorder | None = None,
    ) -> None:
        self.status = status
        self.state = state
        self.session = session
        self.recorder = recorder

    def start(self) -> None:
        if self.recorder is not None:
            self.status.session_file = str(self.recorder.path)
        self.status.set_interval(REFRESH, self.refresh)

    def refresh(self) -> None:
        status = self.status
        if not status.is_attached:
            return  # the app is shutting down
        status.events = len(self.state.events)
        session = self.session()
        status.pending = calls(session.pending.values()) if session else 0  # no streams
        if self.recorder is not None and self.recorder.error:
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
