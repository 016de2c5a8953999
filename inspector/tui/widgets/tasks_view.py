"""The tasks view (2025-11-25): tasks with their status, polled at pollInterval; result, cancel.

    view = TasksView(state)                           # renders state.tasks (a TaskManager)
    await state.run_task("generate_report", {"topic": "x"}, ttl=60_000)  # call as a task

The state runs a task (``LiveState.run_task``: ``tools/call`` with ``task``, then
``tasks/get`` at the server's ``pollInterval`` until it ends, then ``tasks/result``, in
the session's background); this view only renders what the state's feed says changed.
Keys: ``r`` refreshes from ``tasks/list``, ``c`` cancels (``tasks/cancel``), ``enter``
(or ``f``) fetches and shows the result (``tasks/result``). The state's feed posts
``TaskFinished`` when a task's outcome is known (the app shows it in the result pane).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from time import monotonic
from typing import Any, ClassVar

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.message import Message
from textual.widget import Widget
from textual.widgets import DataTable, Static

from inspector.engine.tasks import TaskManager, TaskState
from inspector.live.state import LiveState
from inspector.safe_text import fold, one_line, safe_text
from inspector.tui import messages
from inspector.tui.masked import as_is, shown_mask
from inspector.tui.widgets.inflight import progress_bar
from inspector.tui.widgets.parts import has_parts
from inspector.tui.widgets.static_text import set_text
from inspector.tui.widgets.table_rows import cursor_row_key
from inspector.wire.jsonrpc import RpcError

STATUS_STYLES = {
    "working": "cyan",
    "input_required": "bold yellow",
    "completed": "green",
    "failed": "red",
    "cancelled": "yellow",
}
RESULT_LIMIT = 2000


def outcome_text(state: TaskState, mask: Callable[[str], str] = as_is) -> Text:
    """The result (text blocks) or the error of a finished task, literally; ``mask``: the
    session's secrets out of what is shown (``inspector.tui.masked.shown_mask``)."""
    if state.error is not None:
        said = fold(f"error {state.error.code}: {state.error.message}", 400)
        return safe_text(mask(said), "red")
    if state.result is None:
        return Text("no result fetched yet (enter fetches it)", style="dim")
    blocks = state.result.get("content")
    texts = (
        [str(b.get("text", "")) for b in blocks if isinstance(b, dict) and b.get("type") == "text"]
        if isinstance(blocks, list)
        else []
    )
    shown = "\n".join(texts) if texts else json.dumps(state.result, ensure_ascii=False)
    text = Text()
    if state.result.get("isError"):
        text.append("isError: ", style="bold red")
    text.append_text(safe_text(mask(fold(shown, RESULT_LIMIT)), multiline=True))
    return text


class TasksView(Widget):
    """A table of tasks and a detail line for the highlighted one."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("r", "refresh_tasks", "Refresh (tasks/list)"),
        Binding("c", "cancel_task", "Cancel task"),
        Binding("f", "fetch_result", "Fetch result (tasks/result)"),
    ]

    DEFAULT_CSS = """
    TasksView { height: 1fr; }
    TasksView > #tasks-title { height: 1; text-style: bold; }
    TasksView > DataTable { height: 1fr; }
    TasksView > #task-detail {
        height: auto; max-height: 12; border-top: solid $panel-lighten-2; padding: 0 1;
    }
    """

    @dataclass
    class Created(Message):
        state: TaskState

    def __init__(self, state: LiveState, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.state = state
        self._dirty = False

    @property
    def manager(self) -> TaskManager | None:
        """The current session's tasks (None before a session)."""
        return self.state.tasks

    def compose(self) -> ComposeResult:
        yield Static("Tasks", id="tasks-title")
        table: DataTable[Any] = DataTable(id="tasks-table", cursor_type="row")
        table.add_columns("task", "tool", "status", "progress", "message", "poll", "age")
        yield table
        yield Static(Text("no task selected", style="dim"), id="task-detail")

    def on_mount(self) -> None:
        self.set_interval(1.0, self._ages_moved)
        self.set_interval(0.2, self._redraw_if_changed)  # progress floods redraw 5x a second
        self.refresh_rows()

    def _ages_moved(self) -> None:
        """The age column moves; only a table on screen with tasks in it shows it."""
        if self.is_on_screen and self.manager is not None and self.manager.tasks:
            self.refresh_rows()

    def _redraw_if_changed(self) -> None:
        if self._dirty and self.is_on_screen:
            self.refresh_rows()

    def on_show(self) -> None:
        self.refresh_rows()  # progress and ages moved while the tab was hidden

    @on(messages.TasksChanged)
    def _changed(self, message: messages.TasksChanged) -> None:
        if message.outcomes:
            self.refresh_rows()  # an outcome is drawn at once; only progress is throttled
        else:
            self._dirty = True

    @on(messages.SessionAttached)
    def _attached(self) -> None:
        self.refresh_rows()

    # -- calling a tool as a task ------------------------------------------------------

    async def run_tool(
        self, name: str, arguments: dict[str, Any] | None = None, *, ttl: int | None = None
    ) -> TaskState:
        """The state runs the task (``LiveState.run_task``); the view says it was created
        and draws it at once (for a view alone; the app calls the state itself)."""
        state = await self.state.run_task(name, arguments, ttl=ttl)
        self.post_message(self.Created(state))
        self.refresh_rows()
        return state

    # -- drawing -----------------------------------------------------------------------

    def refresh_rows(self) -> None:
        self._dirty = False
        if not has_parts(self, "#tasks-table", "#tasks-title", "#task-detail"):
            return  # torn down (see parts.py)
        table = self.query_one("#tasks-table", DataTable)
        selected = self.selected_id()
        table.clear()
        tasks = list(self.manager.tasks.values()) if self.manager else []
        now = monotonic()
        mask = shown_mask(self.app)  # the session's secrets out of what the server said
        for state in tasks:
            status = safe_text(state.status, STATUS_STYLES.get(state.status, "magenta"))
            if state.fetched:
                status.append(" ✓" if state.error is None else " ✗", style="bold")
            poll = f"{state.poll_interval:g} s" if state.poll_interval is not None else "-"
            progress = (
                progress_bar(state.progress, state.total, 10)
                if state.progress is not None
                else Text("")
            )
            table.add_row(
                safe_text(mask(state.task_id[:12])),
                safe_text(state.tool or "?"),
                status,
                progress,
                safe_text(mask(one_line(state.status_message or "", 60))),
                poll,
                f"{now - state.seen:4.0f} s",
                key=state.task_id,
            )
        active = sum(not s.terminal for s in tasks)
        title = Text(f"Tasks: {len(tasks)}, {active} active")
        if self.manager is not None and not self.manager.can_list:
            title.append("   (the server does not offer tasks/list)", style="dim")
        set_text(self.query_one("#tasks-title", Static), title)
        if selected is not None and selected in (self.manager.tasks if self.manager else {}):
            table.move_cursor(row=table.get_row_index(selected))
        self._show_detail()

    def selected_id(self) -> str | None:
        return cursor_row_key(self.query_one("#tasks-table", DataTable))

    def selected(self) -> TaskState | None:
        task_id = self.selected_id()
        return self.manager.tasks.get(task_id) if self.manager and task_id else None

    def _show_detail(self) -> None:
        state = self.selected()
        detail = self.query_one("#task-detail", Static)
        if state is None:
            set_text(detail, Text("no task selected", style="dim"))
            return
        mask = shown_mask(self.app)
        text = Text()
        text.append_text(safe_text(f"{mask(state.task_id)}  ", "bold"))
        text.append_text(safe_text(state.status, STATUS_STYLES.get(state.status, "")))
        if state.immediate and not state.terminal:  # "… is running as a task": until it ends
            text.append("\n")
            text.append_text(safe_text(mask(fold(state.immediate, 300)), "italic"))
        if state.terminal or state.fetched:
            text.append("\n")
            text.append_text(outcome_text(state, mask))
        set_text(detail, text)

    @on(DataTable.RowHighlighted, "#tasks-table")
    def _highlighted(self, event: DataTable.RowHighlighted) -> None:
        self._show_detail()

    @on(DataTable.RowSelected, "#tasks-table")
    async def _selected(self, event: DataTable.RowSelected) -> None:
        event.stop()  # enter on a row: fetch its result
        await self.action_fetch_result()

    # -- actions -----------------------------------------------------------------------

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action in ("refresh_tasks", "cancel_task", "fetch_result"):
            return not self.state.offline  # a replay has no server to ask: not in the footer
        return True

    async def action_refresh_tasks(self) -> None:
        if self.manager is None:
            return
        if not self.manager.can_list:
            self.app.notify("The server does not declare tasks/list.", severity="warning")
            return
        await self._try(self.manager.list(), "tasks/list")

    async def action_cancel_task(self) -> None:
        state = self.selected()
        if state is None or self.manager is None:
            self.app.bell()
            return
        await self._try(self.manager.cancel(state.task_id), "tasks/cancel")

    async def action_fetch_result(self) -> None:
        state = self.selected()
        if state is None or self.manager is None:
            self.app.bell()
            return
        if not state.terminal:
            self.app.notify("The task is still running: tasks/result waits for its end.")
        self.run_worker(self.manager.result(state.task_id), group=f"result-{state.task_id}")

    async def _try(self, call: Any, what: str) -> None:
        try:
            await call
        except RpcError as exc:
            self.app.notify(
                f"{what} failed: {one_line(exc.message, 200)} (code {exc.code})",
                severity="error",
                markup=False,
            )
        self.refresh_rows()
