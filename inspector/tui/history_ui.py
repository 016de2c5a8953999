"""Call history in the app: the History screen (``h``) and a replay's recorded calls.

    history = HistoryUi(app, main_screen, server, call_runner, show_log)
    history.open()                          # h: the History screen
    await history.item_opened(kind, item)   # a replay: the item's recorded calls
    await history.act("resend", call)       # Enter / e / g on a call

The calls are the state's ``CallHistory`` (``live/history.py``): read off the wire, so
a replay of the session file shows the same list. Re-sending opens the item with the
call's arguments in its form and sends them as they were (a tool marked destructive
still asks first: ``CallRunner.run``); editing opens it the same way and leaves the
focus in the form. A replay has nothing to send: a call's key shows its request frame
in the log, with the detail open.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from inspector.engine import uritemplate
from inspector.live.history import Call, CallHistory
from inspector.tui.screens.history import Choice, HistoryScreen
from inspector.tui.widgets.call_list import EDIT, FRAME, RESEND, CallList, recorded_outcome
from inspector.tui.widgets.item_panel import item_key

if TYPE_CHECKING:
    from textual.app import App

    from inspector.tui.call_runner import CallRunner
    from inspector.tui.screens.main import MainScreen
    from inspector.tui.server import Server

CALLED = ("tools", "resources", "prompts")  # the kinds whose items the history holds
NEVER_CALLED = "never called in this recording"


class HistoryUi:
    """Opens the History screen and acts on the call chosen in it (or in the work pane)."""

    def __init__(
        self,
        app: App[Any],
        screen: MainScreen,
        server: Server,
        calls: CallRunner,
        show_log: Callable[[], None],
    ) -> None:
        self.app = app
        self.screen = screen
        self.server = server
        self.calls = calls
        self.show_log = show_log

    @property
    def history(self) -> CallHistory:
        return self.server.state.history

    @property
    def offline(self) -> bool:
        return not self.server.mode.live

    def open(self) -> None:
        """``h``: the History screen; what is chosen there is done on the main screen."""
        screen = HistoryScreen(self.history, offline=self.offline)
        self.app.push_screen(screen, self._chosen)

    def _chosen(self, choice: Choice | None) -> None:
        if choice is not None:
            self.app.run_worker(self.act(*choice), group="history", exit_on_error=False)

    # -- a replay's recorded calls, in the work pane -------------------------------------

    async def item_opened(self, kind: str, item: dict[str, Any]) -> None:
        """A replay shows the item's recorded calls where its form would be (disabled);
        the highlighted call's result shows under them. An item never called keeps its
        form, which says what it takes."""
        if not self.offline or kind not in CALLED:
            return
        name = str(item.get("uri") if kind == "resources" else item.get("name"))
        self.history.update()
        if not self.history.calls(kind, name):
            # nothing to show instead: the form says what the item takes
            self.screen.result_view.show_text(NEVER_CALLED)
            return
        calls = CallList(self.history, kind=kind, name=name, offline=True, id="recorded-calls")
        panel = self.screen.item_panel
        await panel.show_instead_of_form(calls)
        self.app.call_after_refresh(calls.focus_rows)

    def highlighted(self, message: CallList.Highlighted) -> None:
        """A call under the cursor in the work pane's list: its result under it."""
        if message.call_list.id == "recorded-calls":
            self.screen.result_view.show(recorded_outcome(self.history, message.call))

    # -- acting on a call ------------------------------------------------------------------

    async def act(self, action: str, call: Call) -> None:
        """``resend``, ``edit`` or ``frame`` (its request frame in the log)."""
        if action == FRAME:
            self.show_frame(call.index)
            return
        if self.offline:
            self.app.notify(
                "this is a replay: nothing can be sent (g shows the call's frame in the log)",
                severity="warning",
            )
            return
        if action == EDIT and call.kind == "resources":
            template = self._template_of(call.name)
            if template is None:
                self.app.notify(
                    f"a read of {call.name} has no arguments to edit: Enter reads it again",
                    markup=False,
                )
                return
            item, values = template
            await self._open("resource_templates", item, values)
            return
        item = self._item(call)
        arguments = call.arguments
        await self._open(call.kind, item, arguments)  # a resource is read as it opens
        if action == RESEND and call.kind != "resources":
            self.calls.run(call.kind, item, arguments, "task" if call.task else "run")

    def _item(self, call: Call) -> dict[str, Any]:
        """The catalog's item the call was made on (a minimal one when it is gone)."""
        key = "uri" if call.kind == "resources" else "name"
        for item in self.server.catalog.get(call.kind, []):
            if item.get(key) == call.name:
                return item
        return {key: call.name, "name": call.name}

    def _template_of(self, uri: str) -> tuple[dict[str, Any], dict[str, str]] | None:
        """The listed resource template that expands into ``uri``, with its values."""
        for item in self.server.catalog.get("resource_templates", []):
            values = uritemplate.match(str(item.get("uriTemplate", "")), uri)
            if values is not None:
                return item, values
        return None

    async def _open(self, kind: str, item: dict[str, Any], arguments: Any) -> None:
        """Open ``item`` in the work pane, its form filled with ``arguments``."""
        panel = self.screen.item_panel
        key = item_key(kind, item)
        was_open = panel.kind is not None and panel.item is not None
        same = was_open and item_key(str(panel.kind), panel.item or {}) == key
        if arguments is not None:
            panel.last_arguments[key] = arguments  # the form is built with them
        await self.calls.select(kind, item)
        form = panel.form
        if same and form is not None and arguments is not None:
            form.set_arguments(arguments)  # reopening keeps what the form held: replace it

    # -- the log -----------------------------------------------------------------------

    def show_frame(self, index: int) -> None:
        """The log, its cursor on event ``index`` and the detail showing it."""
        self.show_log()
        log = self.screen.message_log
        log.select_index(index)
        view = log.lines.view
        if view is not None and view.row_of(index) is None:
            self.app.notify("the log's filter hides this frame: the detail shows it")
        detail = self.screen.detail
        detail.display = True
        detail.show(log.source, index)
        self.app.refresh_bindings()
