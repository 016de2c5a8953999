"""One server the app shows, and everything that is its own.

    server = Server(LiveState(), Live(target), recorder=recorder)
    server.bridge = InteractiveResponders(app)            # the TUI answers its requests
    server.start_live(app, screen, target, options, responders)  # on mount: the controller

The helpers (``call_runner``, ``connection_controller``, ``quit_reconnect``,
``status_feed``) hold the ``Server`` they work for and read its controller and bridge
from it, so a workspace of several servers can hold one each and show any of them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from inspector.live.state import LiveState
from inspector.tui.mode import Live, Mode

if TYPE_CHECKING:
    from textual.app import App

    from inspector.engine.client import McpClient
    from inspector.engine.options import SessionOptions
    from inspector.engine.responders import Responders
    from inspector.engine.session import Session
    from inspector.record.recorder import Recorder
    from inspector.record.redact import Redactor
    from inspector.target import Target
    from inspector.tui.auth_ui import AuthUi, ObservedAuth
    from inspector.tui.controller import Poster, SessionController
    from inspector.tui.interactive import InteractiveResponders
    from inspector.tui.replay_mode import ReplayMode
    from inspector.tui.screens.main import MainScreen


@dataclass(eq=False)
class Server:
    """A server's live state (events, requests, tasks, catalog), what feeds it (the
    controller of a live session, or replay mode), and what answers and authorizes it."""

    state: LiveState
    mode: Mode  # a live session on a target, or a recording shown offline
    recorder: Recorder | None = None
    controller: SessionController | None = None  # live, from on_mount
    replay: ReplayMode | None = None  # offline, from on_mount
    bridge: InteractiveResponders | None = None  # the TUI answers sampling, elicitation, roots
    auth_ui: AuthUi | None = None  # HTTP targets with OAuth: the Auth tab
    observed_auth: ObservedAuth | None = None  # attached: the proxy's OAuth, followed
    trace: Any = None  # --otlp-endpoint/--propagate: a SessionTrace every session joins

    @property
    def target(self) -> Target | None:
        return self.mode.target if isinstance(self.mode, Live) else None

    @property
    def session(self) -> Session | None:
        """The current session (None before the first connection and in a replay)."""
        return self.controller.session if self.controller is not None else None

    @property
    def client(self) -> McpClient | None:
        return self.controller.client if self.controller is not None else None

    @property
    def connected(self) -> bool:
        return self.controller is not None and self.controller.connected

    def start_live(
        self,
        app: App[Any],
        screen: MainScreen,
        target: Target,
        options: SessionOptions,
        responders: Responders | None,
        redactor: Redactor | None = None,
        post_to: Poster | None = None,
    ) -> SessionController:
        """Make the live session's controller, with the Auth tab of an HTTP target with
        OAuth (mounted on ``screen`` once composed), or, attached to a proxy, the proxy's
        OAuth followed.
        ``redactor``: the toasts' and session file's, told the tokens the flow learns;
        ``post_to``: where the controller's messages go (a workspace: the server's screen,
        which shows them; else the app)."""
        from inspector.tui.auth_ui import AuthUi, ObservedAuth
        from inspector.tui.controller import SessionController

        self.auth_ui = auth_ui = AuthUi.for_target(app, target, redactor)
        observer = None
        if auth_ui is not None:
            if screen.query("#bottom-tabs"):  # else mounted once the screen is composed
                auth_ui.mount(screen.bottom_tabs)
            observer = auth_ui.observe
        elif target.attach:
            self.observed_auth = ObservedAuth(app, screen, self._proxied_server)
            observer = self.observed_auth.observe
        self.controller = SessionController(
            post_to or app,
            target,
            options,
            state=self.state,
            observer=observer,  # the Auth tab follows the OAuth exchanges on the wire
            responders=responders,
            recorder=self.recorder,
            auth=auth_ui.authorizer if auth_ui is not None else None,
            trace=self.trace,
        )
        return self.controller

    def _proxied_server(self) -> str:
        """What the proxy this app is attached to is in front of (for the Auth tab)."""
        session = self.session
        proxied = session.transport.target_info().get("proxied") if session else None
        return str(proxied or "the proxy's server")

    @property
    def catalog(self) -> dict[str, list[dict[str, Any]]]:
        """The catalog as listed (or as recorded)."""
        return self.state.catalog
