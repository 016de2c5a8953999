"""The app's server views: each one made, its panes composed and started, and the one
shown switched to.

    switch = ViewSwitch(app)
    view = switch.make("files", server, screen, responders)   # a server's view
    yield from switch.panes(view)                             # its panes (compose)
    switch.start(view)                                        # composed: its server starts
    switch.show(view)                                         # the app's keys work on it

A single server's app has one view; a workspace one per server (``workspace_ui``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from textual.containers import Horizontal, Vertical
from textual.widgets import TabbedContent, TabPane

from inspector.live.state import LiveState
from inspector.target_name import short_name
from inspector.tui.interactive import SamplingRuleBar
from inspector.tui.mode import LIVE_ONLY, Live, Mode, Replay
from inspector.tui.replay_mode import HINT, ReplayMode
from inspector.tui.server import Server
from inspector.tui.server_screen import ServerScreen
from inspector.tui.server_view import ServerView
from inspector.tui.widgets.catalog import Catalog
from inspector.tui.widgets.inflight import InFlightView
from inspector.tui.widgets.item_panel import ItemPanel
from inspector.tui.widgets.key_footer import KeyFooter
from inspector.tui.widgets.message_detail import MessageDetail
from inspector.tui.widgets.message_log import MessageLog
from inspector.tui.widgets.server_log import ServerLogView
from inspector.tui.widgets.server_pane import ServerPane
from inspector.tui.widgets.status_bar import StatusBar
from inspector.tui.widgets.tab_fit import TabLabel
from inspector.tui.widgets.tasks_view import TasksView

if TYPE_CHECKING:
    from textual.app import ComposeResult

    from inspector.engine.responders import Responders
    from inspector.record.recorder import Recorder
    from inspector.record.redact import Redactor
    from inspector.tui.call_runner import CallRunner
    from inspector.tui.connection_controller import ConnectionController
    from inspector.tui.history_ui import HistoryUi
    from inspector.tui.live_feed import LiveFeed
    from inspector.tui.load_run import LoadRun
    from inspector.tui.quit_reconnect import QuitReconnect
    from inspector.tui.screens.main import MainScreen
    from inspector.tui.skills_ui import SkillsUi
    from inspector.tui.status_feed import StatusFeed

BOTTOM_TABS = (
    ("Log", "log"),
    ("In flight", "inflight"),
    ("Server log", "serverlog"),
    ("Tasks", "tasks"),
)


class ShownView:
    """The shown server's view and its helpers, as the app holds them (set by
    ``ViewSwitch.show``: the app's keys, handlers and helpers work on these)."""

    view: ServerView
    server: Server
    mode: Mode
    recorder: Recorder | None
    feed: LiveFeed
    main: MainScreen
    _responders: Responders | None
    quit_reconnect: QuitReconnect
    calls: CallRunner
    status_feed: StatusFeed
    connection: ConnectionController
    redactor: Redactor
    skills: SkillsUi
    load_runs: LoadRun
    history: HistoryUi


class ViewSwitch:
    """Makes, composes, starts and shows the app's server views."""

    def __init__(self, app: Any, confirm_destructive: bool = True) -> None:
        self.app = app  # the InspectorApp (not imported: it imports this module)
        self.confirm_destructive = confirm_destructive

    def first(self, mode: Mode, recorder: Recorder | None, connect: Any) -> ServerView:
        """The first server's view, on the app's default screen, shown (``connect``: its
        own connection; None in a workspace, whose servers each have a worker group)."""
        app = self.app
        # each server's screen shows its controller's messages itself (ctrl+n can make
        # any app a workspace)
        screen = ServerScreen(own_panes=False, id="_default")  # the panes, by name
        name = short_name(mode.target) if isinstance(mode, Live) else "replay"
        source = mode.source if isinstance(mode, Replay) else None
        server = Server(LiveState(source), mode, recorder=recorder)
        view = self.make(name, server, screen, app.responders, connect)
        screen.view = view
        app.views.append(view)
        self.show(view)
        return view

    def make(
        self,
        name: str,
        server: Server,
        main: MainScreen,
        responders: Responders | None,
        connect: Any = None,
    ) -> ServerView:
        """One server's view (``connect``: how its connection starts; a workspace's
        servers each connect in a worker group of their own)."""
        app = self.app
        view: ServerView | None = None

        def connect_view() -> None:
            assert view is not None
            self.connect(view)

        def execute(kind: str, item: dict[str, Any], arguments: Any, action: str = "run") -> None:
            app.execute(kind, item, arguments, action, view)  # its own server, shown or not

        view = ServerView.build(
            app,
            name,
            server,
            main,
            connect=connect or connect_view,
            execute=execute,
            bottom=app.action_bottom,
            show_log=app.action_focus_log,
            responders=responders,
            confirm_destructive=self.confirm_destructive,
        )
        return view

    def show(self, view: ServerView) -> None:
        """Make ``view`` the one the app's keys, handlers and helpers work on."""
        app = self.app
        app.view = view
        app.server = view.server
        app.mode = view.server.mode
        app.recorder = view.server.recorder
        app.feed = view.feed
        app.main = view.main
        app._responders = view.responders
        app.quit_reconnect = view.quit_reconnect
        app.calls = view.calls
        app.status_feed = view.status_feed
        app.connection = view.connection
        app.redactor = view.redactor
        app.skills = view.skills
        app.load_runs = view.load_runs
        app.history = view.history

    def connect(self, view: ServerView) -> None:
        """A workspace server's connection, in its own exclusive worker group."""
        controller = view.server.controller
        assert controller is not None
        self.app.run_worker(
            controller.run(), group=f"session:{view.name}", exclusive=True, exit_on_error=False
        )

    def panes(self, view: ServerView) -> ComposeResult:
        """One server's panes (the main screen's; a workspace's other servers' screens)."""
        feed, state, bridge = view.feed, view.server.state, view.server.bridge
        status = StatusBar(id="status")
        feed.subscribe(status)
        yield status
        if bridge is not None:
            yield SamplingRuleBar(bridge, id="rule-bar")
        with Horizontal(id="main"):
            with Vertical(id="left"):
                server_pane = ServerPane(id="server")
                feed.subscribe(server_pane)
                server_tab = ("tab-server", TabLabel("Server", "Srv"), server_pane)
                catalog = Catalog(id="catalog", extra=(server_tab,))
                feed.subscribe(catalog)
                yield catalog
            yield ItemPanel(id="work")
        with Horizontal(id="bottom"):
            views = (
                MessageLog(state.events, id="log"),
                InFlightView(state, id="inflight"),
                ServerLogView(state, id="serverlog"),
                TasksView(state, id="tasks"),
            )
            feed.subscribe(view.main, *views)  # its tasks and updates: that server's
            with TabbedContent(id="bottom-tabs", initial="tab-log"):
                for (title, pane), widget in zip(BOTTOM_TABS, views, strict=True):
                    with TabPane(title, id=f"tab-{pane}"):
                        yield widget
            yield MessageDetail(id="detail")
        yield KeyFooter(hidden=() if view.server.mode.live else LIVE_ONLY)

    def start(self, view: ServerView) -> None:
        """Set up a view's composed panes and start its server (a live session connects;
        a recording is read)."""
        app = self.app
        view.started = True
        main = view.main
        main.detail.display = False
        view.feed.start(app)
        mode = view.server.mode
        if isinstance(mode, Replay):
            self._start_replay(view, mode)
            view.status_feed.start()
            return
        if not view.session_started:  # a workspace starts its servers before their screens
            app.workspace.start_session(view)
        auth = view.server.auth_ui
        if auth is not None and not auth.mounted:  # connected before it was composed
            auth.mount(main.bottom_tabs)
        main.status_bar.transport = view.status.transport
        view.status_feed.start()

    def _start_replay(self, view: ServerView, mode: Replay) -> None:
        status = view.main.status_bar
        status.state = "replay"
        status.server = mode.title or "replay"
        status.transport = "offline"
        view.main.item_panel.read_only = True
        view.main.result_view.show_text(HINT, "cyan")
        replay = ReplayMode(self.app, view.server.state, mode.source, view.feed, mode.title)
        view.server.replay = replay
        replay.start()
