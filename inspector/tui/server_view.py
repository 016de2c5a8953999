"""One server as the app shows it: its ``Server``, its screen of panes, and the helpers
that show it there (feed, calls, status, connection, quitting and reconnecting).

A single server's app holds one; a workspace holds one per server, each on its own
installed screen, so a server's catalog, forms, results
and log stay as they were while another is shown. The app's ``server``, ``main``,
``calls``... are the shown view's.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from inspector.record.redact import Redactor
from inspector.tui.call_runner import CallRunner
from inspector.tui.connection_controller import ConnectionController
from inspector.tui.history_ui import HistoryUi
from inspector.tui.live_feed import LiveFeed
from inspector.tui.load_run import LoadRun
from inspector.tui.quit_reconnect import QuitReconnect
from inspector.tui.skills_ui import SkillsUi
from inspector.tui.status_feed import StatusFeed
from inspector.workspace.status import ServerStatus, State

if TYPE_CHECKING:
    from textual.app import App

    from inspector.engine.responders import Responders
    from inspector.tui.screens.main import MainScreen
    from inspector.tui.server import Server


@dataclass(eq=False)
class ServerView:
    """A server, its screen, and the helpers that hold both."""

    name: str
    server: Server
    main: MainScreen
    feed: LiveFeed
    calls: CallRunner
    status_feed: StatusFeed
    connection: ConnectionController
    quit_reconnect: QuitReconnect
    redactor: Redactor  # its session file's, for toasts too (a server echoing a token)
    skills: SkillsUi  # its Skills tab, when it declares skills
    load_runs: LoadRun  # ctrl+l's load runs of its tools
    history: HistoryUi  # h: its calls
    responders: Responders | None = None
    status: ServerStatus = field(default_factory=lambda: ServerStatus("", ""))
    started: bool = False  # its panes are set up (composed and started)
    session_started: bool = False  # (live) its session made and connecting
    skills_listed: bool = False  # its skills listed when it connected (its screen there)
    mode_name: str = "server-1"  # its screen's installed name (a workspace's)

    @classmethod
    def build(
        cls,
        app: App[Any],
        name: str,
        server: Server,
        main: MainScreen,
        *,
        connect: Callable[[], object],
        execute: Callable[..., object],
        bottom: Callable[[str], None],
        show_log: Callable[[], None],
        responders: Responders | None,
        confirm_destructive: bool,
    ) -> ServerView:
        status_feed = StatusFeed(main, server)
        calls = CallRunner(
            app, main, server, execute, bottom, confirm_destructive=confirm_destructive
        )
        target = server.target
        transport = "offline"
        if target is not None:
            transport = target.transport if target.is_http or target.attach else "stdio"
        recorder = server.recorder
        redactor = (
            recorder.redactor
            if recorder is not None
            else Redactor(target.secrets() if target is not None else [])
        )
        return cls(
            name=name,
            server=server,
            main=main,
            feed=LiveFeed(server.state),
            calls=calls,
            status_feed=status_feed,
            connection=ConnectionController(app, main, server, status_feed),
            quit_reconnect=QuitReconnect(app, main, server, connect),
            redactor=redactor,
            skills=SkillsUi(app, server, main),
            load_runs=LoadRun(app, main, server),
            history=HistoryUi(app, main, server, calls, show_log),
            responders=responders,
            status=ServerStatus(
                name, transport, state=State.CONNECTING if server.mode.live else State.RECORDED
            ),
        )
