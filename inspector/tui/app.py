"""The inspector app: status bar, catalog, work pane, live log with detail.

The composition root: layout, bindings, commands and message routing. The app shows one
``Server`` (``server``: its mode, ``Live`` or ``Replay``; its headless ``LiveState``, fed
by the ``SessionController`` of a live session or by ``replay_mode`` from a recording;
its bridge and Auth tab); the ``LiveFeed`` posts the state's changes in batches to the
widgets that render it, which handle them with ``@on``; widgets post messages up. The
panes are the ``MainScreen``'s, by name. The wiring with one job each lives beside it and
holds the main screen and the server: ``status_feed``, ``connection_controller`` (what
the connection's messages show), ``call_runner`` (an item selected, its calls made and
shown; with ``calls`` and ``completions``), ``history_ui`` (the History screen, a
replay's recorded calls), ``save_session``, ``quit_reconnect``
(quitting and reconnecting, asking first when that would lose the user's work),
``view_switch`` (each server's view made, its panes composed and started, the one shown
switched to; ``workspace_ui`` for several) and ``palette`` (the command palette).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Any, ClassVar

from textual import events, on, work
from textual.app import ComposeResult, ScreenStackError, SystemCommand
from textual.binding import Binding, BindingType
from textual.css.query import NoMatches
from textual.notifications import SeverityLevel
from textual.screen import Screen
from textual.widget import Widget
from textual.widgets import TabbedContent

from inspector.engine.kinds import KIND
from inspector.engine.options import SessionOptions
from inspector.engine.responders import Responders
from inspector.engine.session import Session
from inspector.engine.tasks import TaskManager
from inspector.live.state import LiveState
from inspector.record.indexed import IndexedSessionFile
from inspector.record.recorder import Recorder
from inspector.safe_text import visible
from inspector.target import Target
from inspector.tui import heap, messages
from inspector.tui.auth_ui import AuthUi, ObservedAuth
from inspector.tui.connection_controller import while_mounted
from inspector.tui.controller import SessionController
from inspector.tui.focus_guard import keep_focus_shown
from inspector.tui.interactive import InteractiveResponders
from inspector.tui.key_order import OPEN_ITEM, OrderedKeys
from inspector.tui.keymap import Section
from inspector.tui.mode import Live, Mode, Replay, as_mode
from inspector.tui.palette import system_commands
from inspector.tui.save_session import save_session_as, session_file
from inspector.tui.screens.help import app_sections, toggle_help
from inspector.tui.screens.intercept import open_intercept
from inspector.tui.screenshot import save_screenshot
from inspector.tui.server_view import ServerView
from inspector.tui.state_notes import StateNotes
from inspector.tui.view_switch import ShownView, ViewSwitch
from inspector.tui.widgets.call_list import CallList
from inspector.tui.widgets.catalog import Catalog
from inspector.tui.widgets.inflight import InFlightView
from inspector.tui.widgets.item_panel import ItemPanel
from inspector.tui.widgets.load_view import LoadView
from inspector.tui.widgets.message_detail import MessageDetail
from inspector.tui.widgets.message_log import MessageLog
from inspector.tui.widgets.parts import part
from inspector.tui.widgets.result_view import ResultView
from inspector.tui.widgets.schema_form import SchemaForm
from inspector.tui.widgets.skills_view import SkillsView
from inspector.tui.workspace_ui import WorkspaceUi

LOG_LAYOUTS = ("normal", "max", "min")


class InspectorApp(OrderedKeys[int], ShownView):
    """``mcp-inspect``'s TUI: a live session, or a replayed one (``source`` given)."""

    CSS_PATH = "inspector.tcss"
    # size classes on every screen (inspector.tcss and the dialogs lay out by them):
    # a short terminal gives the log less and the form more; a wide one widens the work pane
    # (the main screen has its own, only those inspector.tcss reads: screens/main.py).
    # (no ClassVar: Textual annotates them `ClassVar[...] | None`, an instance variable to mypy)
    HORIZONTAL_BREAKPOINTS = [  # noqa: RUF012
        (0, "-narrow"),
        (110, "-medium"),
        (180, "-wide"),
    ]
    VERTICAL_BREAKPOINTS = [  # noqa: RUF012
        (0, "-short"),
        (32, "-middling"),
        (48, "-tall"),
    ]
    TITLE = "mcp-inspect"
    # the tools list from the first frame, set once: focusing it later (on connect, on
    # a replay's first chunk) took the focus back from a user who had already moved on
    AUTO_FOCUS = "#list-tools"
    BINDINGS: ClassVar[list[BindingType]] = [
        # a replay cannot send nor reconnect: its footer leaves them out (mode.LIVE_ONLY);
        # the keys there say why nothing happens
        Binding("ctrl+s", "send", "Send"),
        Binding("1", "catalog('tools')", "Tools", show=False),
        Binding("2", "catalog('resources')", "Resources", show=False),
        Binding("3", "catalog('resource_templates')", "Templates", show=False),
        Binding("4", "catalog('prompts')", "Prompts", show=False),
        Binding("5", "server_info", "Server", show=False),
        Binding("g", "focus_log", "Log", show=False),
        Binding("f", "bottom('inflight')", "In flight", show=False),
        Binding("o", "bottom('serverlog')", "Server log", show=False),
        Binding("t", "bottom('tasks')", "Tasks", show=False),
        Binding("h", "history", "History", show=False),
        Binding("A", "bottom('auth')", "Auth", show=False),
        Binding("R", "roots", "Roots", show=False),
        Binding("C", "collections", "Collections", show=False),
        Binding("I", "intercept", "Intercept", show=False),
        Binding("U", "toggle_auto_reread", "Auto re-read", show=False),
        Binding("escape", "focus_catalog", "Catalog", show=False),
        Binding("l", "cycle_log", "Log size"),
        Binding("d", "toggle_detail", "Detail"),
        Binding("i", "server_info", "Server"),
        Binding("r", "reconnect", "Reconnect"),
        Binding("L", "relist", "Re-list", show=False),
        Binding("w", "save_as", "Save session", show=False),
        Binding("z", "zoom_result", "Zoom result", show=False),
        Binding("ctrl+f", "toggle_form", "Hide form", show=False),
        Binding("ctrl+l", "load_run", "Load run", show=False),
        # the detail's own keys, from the log while the detail shows (no Tab over to it)
        Binding("v", "detail('toggle_raw')", "Raw/pretty"),
        Binding("p", "detail('pair')", "Pair"),
        Binding("c", "detail('copy')", "Copy"),
        Binding("s", "detail('save')", "Save"),
        Binding("question_mark", "help", "Help"),
        Binding("f1", "help", "Help", show=False, priority=True),  # in forms and dialogs too
        Binding("q", "quit_or_ask", "Quit"),
        Binding("W", "servers", "Servers", show=False),  # the workspace's server list
        Binding(
            "ctrl+n", "add_server", "Add server", show=False
        ),  # ctrl+q (Textual's) quits without asking
    ]

    def __init__(
        self,
        mode: Mode | Target | None = None,
        *,
        options: SessionOptions | None = None,
        responders: Responders | None = None,
        recorder: Recorder | None = None,
        source: IndexedSessionFile | None = None,
        replay_title: str | None = None,
        confirm_destructive: bool = True,
        handle_signals: bool = False,
        # the short spelling of tests and scripts, over ``options``
        timeout: float | None = None,
        max_timeout: float | None = None,
        protocol_version: str | None = None,
        workspace: Sequence[tuple[str, Target, Recorder | None]] = (),
        config: str | None = None,
        prepare: Callable[[Target], None] | None = None,
    ) -> None:
        """``mode``: ``Live(target)`` or ``Replay(source)`` (a bare ``Target`` is live; the
        short spelling ``None, source=..., replay_title=...`` a replay);
        ``options``: the session's (the command line builds them once);
        ``handle_signals``: SIGHUP and SIGTERM quit like ``q`` (the real terminal app;
        tests leave their process's signals alone); ``workspace``: more servers (name,
        target, recorder), each connecting in parallel on a screen of its own;
        ``config``: the config file ctrl+n takes names from; ``prepare``: what the
        command line does to each server it names (OAuth flags...), done to ctrl+n's."""
        super().__init__()
        self.options = (options or SessionOptions()).with_given(
            timeout=timeout, max_timeout=max_timeout, protocol_version=protocol_version
        )
        self.handle_signals = handle_signals
        self.mode = as_mode(mode, source, replay_title)
        self.recorder = recorder
        self.log_layout = "normal"
        self.switch = ViewSwitch(self, confirm_destructive)  # the server views shown
        # the server shown: its state is the one owner of what the widgets show
        self.responders = responders  # a workspace's servers each answer with these
        self.views: list[ServerView] = []  # a workspace: one per server
        self.workspace = WorkspaceUi(self, config, prepare)
        first = self.switch.first(self.mode, recorder, None if workspace else self.connect)
        # a state file damaged (eras.json...) is said once, app-wide, on the first server's log
        self.state_notes = StateNotes(self, first.server)
        for name, target, server_recorder in workspace:
            self.workspace.add(name, target, server_recorder)

    # -- the server shown (tests and the palette read these) ---------------------------

    @property
    def target(self) -> Target | None:
        """The live session's server (None in a replay)."""
        return self.mode.target if isinstance(self.mode, Live) else None

    @property
    def replay_source(self) -> IndexedSessionFile | None:
        """The recording a replay shows (None live)."""
        return self.mode.source if isinstance(self.mode, Replay) else None

    @property
    def state(self) -> LiveState:
        return self.server.state

    @property
    def controller(self) -> SessionController | None:
        return self.server.controller

    @property
    def bridge(self) -> InteractiveResponders | None:
        """Answers the server's requests in dialogs (None: the responders do)."""
        return self.server.bridge

    @bridge.setter
    def bridge(self, bridge: InteractiveResponders | None) -> None:
        self.server.bridge = bridge

    @property
    def auth_ui(self) -> AuthUi | None:
        return self.server.auth_ui

    @property
    def observed_auth(self) -> ObservedAuth | None:
        return self.server.observed_auth

    @property
    def quitting(self) -> bool:
        """Quitting has started (the server is being stopped, then the app exits)."""
        return self.quit_reconnect.quitting

    @property
    def confirm_destructive(self) -> bool:
        """Ask before calling a tool marked destructive (off after "always")."""
        return self.calls.confirm_destructive

    @confirm_destructive.setter
    def confirm_destructive(self, value: bool) -> None:
        self.calls.confirm_destructive = value

    @property
    def tasks_manager(self) -> TaskManager | None:
        return self.state.tasks

    @property
    def updated(self) -> set[str]:
        """Resources updated since they were last read."""
        return self.state.updated

    # -- layout ------------------------------------------------------------------------

    def get_default_screen(self) -> Screen[Any]:
        return self.main

    def notify(
        self,
        message: str,
        *,
        title: str = "",
        severity: SeverityLevel = "information",
        timeout: float | None = None,
        markup: bool = True,
    ) -> None:
        """Every toast (widgets' and screens' too) passes here: secrets out, as in the
        session file, and control characters visible (a path, a URL, a server's words)."""

        def shown(text: str) -> str:
            for view in self.views:  # a workspace: no server's secrets in any toast
                text = view.redactor.url_text(text)
            return visible(text, multiline=True)

        super().notify(
            shown(message), title=shown(title), severity=severity, timeout=timeout, markup=markup
        )

    def compose(self) -> ComposeResult:
        yield from self.switch.panes(self.view)

    async def _handle_key(self, event: events.Key) -> None:
        if self.screen is self.main:
            keep_focus_shown(self.main)  # a key never types into a hidden widget
        await super()._handle_key(event)

    def on_mount(self) -> None:
        heap.map_big_blocks()
        self.call_after_refresh(heap.freeze)  # once the screen is built
        self.switch.start(self.view)
        self.state_notes.start()
        if self.handle_signals and self.mode.live:
            self.quit_reconnect.quit_on_signals()
        if len(self.views) > 1:
            self.run_worker(self.workspace.mount_all(), group="workspace")

    # -- quitting: every way out closes the session first (quit_reconnect) -------------

    async def action_quit(self) -> None:
        """q, ctrl+q, SIGHUP, SIGTERM: the server is stopped (its whole process group),
        then the app exits."""
        self.quit_reconnect.quit()

    async def on_unmount(self) -> None:
        """Any other way out (an error, ``exit()``): the same shutdown, before the loop
        ends; a no-op when quitting already did it (a workspace: every server's)."""
        for view in self.views:
            await view.quit_reconnect.closed()
        self.state_notes.stop()
        heap.thaw()

    # -- the session -------------------------------------------------------------------

    @work(group="session", exclusive=True, exit_on_error=False)
    async def connect(self) -> None:
        assert self.controller is not None
        await self.controller.run()

    def _session(self) -> Session | None:
        return self.server.session

    @while_mounted
    def on_connecting(self, message: messages.Connecting) -> None:
        self.connection.connecting(message)

    @while_mounted
    def on_connected(self, message: messages.Connected) -> None:
        self.connection.connected(message)
        self.skills.connected()

    @on(SkillsView.Load)
    def _load_skill(self, message: SkillsView.Load) -> None:
        self.skills.load(message.entry)

    @while_mounted
    def on_connect_failed(self, message: messages.ConnectFailed) -> None:
        self.connection.connect_failed(message)

    @while_mounted
    def on_disconnected(self, message: messages.Disconnected) -> None:
        self.connection.disconnected(message)

    @while_mounted
    def on_catalog_loaded(self, message: messages.CatalogLoaded) -> None:
        self.connection.catalog_loaded(message)

    @on(InFlightView.ReopenListen)
    def _reopen_listen(self) -> None:
        self.connection.reopen_listen()

    # -- the catalog's tabs ------------------------------------------------------------

    @on(TabbedContent.TabActivated, "#catalog-tabs")
    def _catalog_tab(self, event: TabbedContent.TabActivated) -> None:
        """The Server tab's JSON gets the whole width below 180 columns (inspector.tcss):
        in the catalog's third of 80 columns it wrapped every other line. A switch that
        lands while the app quits finds the screen's parts gone: nothing to lay out."""
        main = part(self.main, "#main", Widget)
        if main is not None:
            main.set_class(event.pane.id == "tab-server", "-server-tab")

    # -- items and calls ---------------------------------------------------------------

    @on(Catalog.ItemSelected)
    async def _item_selected(self, message: Catalog.ItemSelected) -> None:
        try:
            if self.calls.reopen(message.kind, message.item):
                return
            await self.calls.select(message.kind, message.item)
            await self.history.item_opened(message.kind, message.item)  # a replay: its calls
        finally:
            # the keys typed behind Enter go on once the form has the focus: it is given
            # after the next refresh, and this runs after that
            self.call_after_refresh(self.key_order.release, OPEN_ITEM)

    @on(SchemaForm.FieldsBuilt)
    def _fields_built(self, message: SchemaForm.FieldsBuilt) -> None:
        # the form's own panel: the screen shown may not be the form's (a dialog over it,
        # another server's), and querying it for a panel raised NoMatches
        panel = next((a for a in message.form.ancestors if isinstance(a, ItemPanel)), None)
        if panel is not None and message.form is panel.form:
            self.calls.attach_completions(panel)

    @on(ItemPanel.Run)
    def _run_item(self, message: ItemPanel.Run) -> None:
        self.calls.run(message.kind, message.item, message.arguments, message.action)

    @work(group="calls", exit_on_error=False)
    async def execute(
        self,
        kind: str,
        item: dict[str, Any],
        arguments: Any,
        action: str = "run",
        view: ServerView | None = None,
    ) -> None:
        """A call on ``view``'s server (None: the one shown)."""
        await (view or self.view).calls.execute(kind, item, arguments, action)

    def action_toggle_auto_reread(self) -> None:
        self.calls.toggle_auto_reread()

    @on(ResultView.OpenLink)
    def _open_link(self, message: ResultView.OpenLink) -> None:
        self.execute("resources", {"uri": message.uri, "name": message.uri}, None)

    def action_history(self) -> None:
        self.history.open()

    @on(CallList.Chosen)
    async def _call_chosen(self, message: CallList.Chosen) -> None:
        await self.history.act(message.action, message.call)

    @on(CallList.Highlighted)
    def _call_highlighted(self, message: CallList.Highlighted) -> None:
        self.history.highlighted(message)

    def action_bottom(self, pane: str) -> None:
        if pane == "auth":
            self.workspace.authorize(self.view)  # a server that waited to be chosen
        if pane == "auth" and not self.main.query("#auth"):
            self.notify(
                "no OAuth on this proxy's server so far"
                if self.observed_auth is not None
                else "no OAuth here (stdio, --no-auth, or an Authorization header)"
            )
            return
        self.main.bottom_tabs.active = f"tab-{pane}"
        if self.log_layout == "min":
            self.action_cycle_log()
        self.main.focus_bottom(pane)

    def action_load_run(self) -> None:
        self.load_runs.ask()

    @on(LoadView.Stop)
    def _stop_load(self) -> None:
        self.load_runs.stop()

    def action_intercept(self) -> None:
        open_intercept(self, self._session())

    def action_collections(self) -> None:
        from inspector.tui.collections_view import open_collections

        open_collections(self)

    def action_roots(self) -> None:
        bridge = self.bridge
        if bridge is None:
            self.notify("roots are fixed by --root here", severity="warning")
            return
        self.push_screen(bridge.roots_screen())

    # -- the log -----------------------------------------------------------------------

    @on(MessageLog.Selected)
    def _log_selected(self, message: MessageLog.Selected) -> None:
        detail = self.main.detail
        detail.display = True
        detail.show(self.main.message_log.source, message.index)
        self.refresh_bindings()  # the detail's keys work from the log now

    @on(MessageLog.Highlighted)
    def _log_highlighted(self, message: MessageLog.Highlighted) -> None:
        """Stepping: with the detail open, it follows the cursor."""
        detail = self.main.detail
        if detail.display:
            detail.show(self.main.message_log.source, message.index)

    @on(MessageDetail.JumpTo)
    def _jump(self, message: MessageDetail.JumpTo) -> None:
        log = self.main.message_log
        log.select_index(message.index)
        self.main.detail.show(log.source, message.index)

    # -- actions -----------------------------------------------------------------------

    def action_catalog(self, kind: str) -> None:
        self.main.catalog.action_tab(kind)

    def action_focus_catalog(self) -> None:
        """Leave a form field (where 1-4 type digits) for the current catalog list."""
        tabs = self.main.query_one("#catalog-tabs", TabbedContent)
        kind = (tabs.active or "tab-tools").removeprefix("tab-")
        if kind in KIND:
            self.action_catalog(kind)

    def action_focus_log(self) -> None:
        self.action_bottom("log")

    def action_send(self) -> None:
        """ctrl+s: send the open item (in a replay, the read-only panel says it cannot)."""
        self.main.item_panel.submit()

    def action_zoom_result(self) -> None:
        if self.screen is self.main:  # not behind a dialog
            self.main.item_panel.cycle_zoom()

    def action_toggle_form(self) -> None:
        if self.screen is self.main:
            self.main.item_panel.toggle_form()

    def deliver_screenshot(
        self, filename: str | None = None, path: str | None = None, time_format: str | None = None
    ) -> str | None:
        """The palette's Screenshot: saved in the state folder, and it says where."""
        saved = save_screenshot(self, filename, path)
        return str(saved) if saved is not None else None

    def action_cycle_log(self) -> None:
        self.log_layout = LOG_LAYOUTS[(LOG_LAYOUTS.index(self.log_layout) + 1) % 3]
        screen = self.screen
        for layout in LOG_LAYOUTS:
            screen.set_class(layout == self.log_layout, f"log-{layout}")

    def action_toggle_detail(self) -> None:
        detail = self.main.detail
        log = self.main.message_log
        if not detail.display and log.cursor_index is not None:
            detail.show(log.source, log.cursor_index)
        detail.display = not detail.display
        self.refresh_bindings()

    def action_server_info(self) -> None:
        self.connection.refresh_server_pane()
        self.main.query_one("#catalog-tabs", TabbedContent).active = "tab-server"

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "detail":
            return self._log_with_detail()
        return True

    def _log_with_detail(self) -> bool:
        """The focus is in the log rows and the detail shows: its keys work from here."""
        focused = self.focused
        try:
            return bool(
                focused is not None
                and focused is self.main.message_log.lines
                and self.main.detail.display
            )
        except (ScreenStackError, NoMatches):  # a dialog on top, or closing
            return False

    def action_detail(self, action: str) -> None:
        """``p``, ``c`` or ``s`` of the detail pane, pressed in the log."""
        getattr(self.main.detail, f"action_{action}")()

    def action_servers(self) -> None:
        """W: the workspace's servers (name, transport, era, state): show or remove one."""
        self.workspace.open_list()

    def action_add_server(self) -> None:
        """ctrl+n: a server added at run time (a URL, a command, or a config name)."""
        from inspector.tui.screens.server_list import AddServerPrompt

        self.push_screen(
            AddServerPrompt(), lambda text: self.workspace.add_text(text) if text else None
        )

    def action_quit_or_ask(self) -> None:
        """q: quit, first asking when that would lose unsent input or calls in flight (a
        workspace: on any of its servers, each named)."""
        others = [(view.name, view.quit_reconnect, view.started) for view in self.views]
        self.quit_reconnect.quit_or_ask(others if len(others) > 1 else ())

    def action_reconnect(self) -> None:
        """r: a new connection; first asking when calls still waiting would be dropped (in
        a replay, saying there is none)."""
        self.quit_reconnect.reconnect_or_ask()

    def action_relist(self) -> None:
        """List tools, resources, templates and prompts again (attached to a proxy, the
        catalog otherwise follows what the host was given)."""
        controller = self.controller
        if not self.mode.live or controller is None or not controller.connected:
            self.notify("not connected: no lists to ask for", severity="warning")
            return

        async def relist() -> None:
            if await controller.relist():
                self.notify("lists asked for again", timeout=3)

        self.run_worker(relist(), group="relist")

    def action_save_as(self) -> None:
        source = session_file(self.recorder, self.replay_source)
        if source is None:
            self.notify("this session is not being recorded (--no-record)", severity="warning")
            return
        save_session_as(self, source, recording=self.recorder is not None)

    def action_help(self) -> None:
        toggle_help(self, self.help_sections)

    def help_sections(self) -> tuple[Section, ...]:
        return app_sections(type(self), session_file(self.recorder, self.replay_source))

    def get_system_commands(self, screen: Screen[Any]) -> Iterable[SystemCommand]:
        return system_commands(self, super().get_system_commands(screen))
