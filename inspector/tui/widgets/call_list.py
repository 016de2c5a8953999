"""The calls of a session, newest first: the History screen's list, and a replay's
recorded calls of one tool in the work pane.

    CallList(state.history, offline=False)                  # every call (History, h)
    CallList(state.history, kind="tools", name="add", offline=True)   # one tool's

Rows come from the headless ``CallHistory`` (``live/history.py``), which reads them off
the wire; the list looks for new ones a few times a second while it shows. The highlighted
call's arguments show under the rows, and ``Highlighted`` carries it to whoever shows
its result. Enter re-sends it, ``e`` opens it in its form, ``g`` shows its request frame
in the log (in a replay, Enter does that): ``Chosen`` says which, for the app to act on.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, ClassVar

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.message import Message
from textual.widgets import DataTable, Static

from inspector.live.history import Call, CallHistory, Status
from inspector.safe_text import one_line, safe_text
from inspector.tui.masked import shown_mask
from inspector.tui.widgets.inflight import format_elapsed
from inspector.tui.widgets.result_view import Outcome
from inspector.tui.widgets.static_text import set_text
from inspector.tui.widgets.table_rows import cursor_row_key

RESEND, EDIT, FRAME = "resend", "edit", "frame"
ARGUMENTS_LIMIT = 600  # characters of the arguments shown under the rows
ROW_ARGUMENTS = 40  # characters of the arguments in a row
REFRESH = 0.25  # seconds between looks for new calls and answers


def clock(epoch: float) -> str:
    return time.strftime("%H:%M:%S", time.localtime(epoch))


def recorded_outcome(history: CallHistory, call: Call) -> Outcome:
    """``call`` and what came back, as the result pane shows a call's outcome (``k``
    keeps it as a check, as after a call made here)."""
    at = f"sent {clock(call.time)}"
    outcome = Outcome(title=f"{call.label}  ({at})")
    verb = {"tools": "call", "prompts": "prompt", "resources": "read"}[call.kind]
    outcome.step = (verb, call.name, dict(call.arguments) if call.arguments is not None else None)
    if call.kind == "resources":
        outcome.uri = call.name
    answer = history.answer(call)
    if answer is None:
        outcome.no_answer = "no answer was recorded for this call (yet)"
        return outcome
    outcome.latency_ms = answer.latency_ms
    outcome.result, outcome.error = answer.result, answer.error
    return outcome


class CallRows(DataTable[Any]):
    """The rows; their keys act on the call under the cursor."""

    BINDINGS: ClassVar[list[BindingType]] = [
        # live: Enter sends the call again; a replay cannot, and Enter shows its frame
        Binding("enter", "resend", "Re-send"),
        Binding("enter", "frame", "Log frame", show=False),
        Binding("e", "edit", "Edit in form"),
        Binding("g", "frame", "Log frame"),
    ]

    def __init__(self, *, offline: bool, id: str | None = None) -> None:
        super().__init__(id=id, cursor_type="row", zebra_stripes=True)
        self.offline = offline

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action in (RESEND, EDIT):
            return not self.offline  # nothing can be sent in a replay: not in the footer
        return super().check_action(action, parameters)

    def action_resend(self) -> None:
        self._choose(RESEND)

    def action_edit(self) -> None:
        self._choose(EDIT)

    def action_frame(self) -> None:
        self._choose(FRAME)

    def _choose(self, action: str) -> None:
        parent = self.parent
        call = parent.current if isinstance(parent, CallList) else None
        if call is None:
            self.app.bell()
            return
        self.post_message(CallList.Chosen(action, call))


class CallList(Vertical):
    """The calls of a ``CallHistory`` (of one item: ``kind`` and ``name``), newest first."""

    DEFAULT_CSS = """
    CallList { height: auto; }
    CallList > #call-title { height: 1; text-style: bold; }
    CallList > CallRows { height: auto; max-height: 12; overflow-x: hidden; }
    CallList > #call-arguments { height: auto; max-height: 4; color: $text-muted; }
    """

    @dataclass
    class Chosen(Message):
        """A key on a call: ``action`` is "resend", "edit" or "frame"."""

        action: str
        call: Call

    @dataclass
    class Highlighted(Message):
        """The cursor is on ``call`` (its result can be shown)."""

        call_list: CallList
        call: Call

    def __init__(
        self,
        history: CallHistory,
        *,
        kind: str | None = None,
        name: str | None = None,
        offline: bool = False,
        id: str | None = None,
    ) -> None:
        super().__init__(id=id)
        self.history = history
        self.kind = kind
        self.item_name = name
        self.offline = offline
        self.shown: list[Call] = []
        self._seen = -1  # events in the source at the last refresh
        self._rows: list[tuple[int, Status | None]] = []  # what the rows show

    def compose(self) -> ComposeResult:
        yield Static("", id="call-title")
        rows = CallRows(offline=self.offline, id="call-rows")
        if self.item_name is None:
            rows.add_columns("time", "call", "answer", "arguments")
        else:
            rows.add_columns("time", "answer", "arguments")
        yield rows
        yield Static("", id="call-arguments")

    def on_mount(self) -> None:
        self.refresh_rows()
        self.set_interval(REFRESH, self._tick)

    @property
    def rows(self) -> CallRows:
        return self.query_one(CallRows)

    @property
    def current(self) -> Call | None:
        """The call under the cursor."""
        key = cursor_row_key(self.rows)
        return next((c for c in self.shown if str(c.index) == key), None)

    def focus_rows(self) -> None:
        self.rows.focus()

    def _tick(self) -> None:
        """New events (a call, an answer): the rows again; nothing new, nothing done."""
        if len(self.history.source) != self._seen and self.is_on_screen:
            self.refresh_rows()

    def refresh_rows(self) -> None:
        """Take in new calls and answers (the cursor stays on its call)."""
        self._seen = len(self.history.source)
        self.history.update()
        table = self.rows
        key = cursor_row_key(table)
        calls = self.history.calls(self.kind, self.item_name)
        rows = [(c.index, self.history.status(c)) for c in calls]
        if rows == self._rows and table.row_count == len(rows):
            return  # new events, none of them this list's
        self._rows = rows
        self.shown = calls
        table.clear()
        mask = shown_mask(self.app)  # the session's secrets out (an error may quote one)
        for call in calls:
            cells = [Text(clock(call.time), style="dim")]
            if self.item_name is None:
                cells.append(self._label(call))
            cells.append(self._answer(call, mask))
            # the arguments last: cut at the pane's edge, whole under the rows
            arguments = one_line(call.arguments_text() or "-", ROW_ARGUMENTS)
            cells.append(safe_text(mask(arguments)))
            table.add_row(*cells, key=str(call.index))
        if key is not None and any(str(c.index) == key for c in calls):
            table.move_cursor(row=table.get_row_index(key))
        set_text(self.query_one("#call-title", Static), self._title(len(calls)))
        self._show_current()

    def _title(self, count: int) -> Text:
        what = f"{count} call{'s' * (count != 1)}"
        if self.item_name is not None:
            return Text(f"Recorded calls: {what}, newest first", style="bold")
        keys = "g its frame in the log" if self.offline else "Enter re-sends, e edits, g frame"
        return Text.assemble((f"History: {what}, newest first  ", "bold"), (keys, "dim"))

    @staticmethod
    def _label(call: Call) -> Text:
        text = safe_text(one_line(call.label, 40))
        if call.task:
            text.append(" [task]", style="cyan")
        if call.party is not None:
            text.append_text(safe_text(f" ({call.party})", "dim"))
        return text

    def _answer(self, call: Call, mask: Callable[[str], str]) -> Text:
        status = self.history.status(call)
        if status is None:
            return Text("no answer", style="yellow")
        took = format_elapsed(status.latency_ms / 1000).strip() if status.latency_ms else ""
        if status.error is not None:
            return safe_text(mask(one_line(f"✗ {status.error}", 40)), "red")
        if status.failed:
            return Text(f"✗ isError  {took}".rstrip(), style="red")
        return Text(f"✓ {took}".rstrip(), style="green")

    @on(DataTable.RowHighlighted)
    def _highlighted(self, event: DataTable.RowHighlighted) -> None:
        event.stop()
        self._show_current()

    @on(DataTable.RowSelected)
    def _selected(self, event: DataTable.RowSelected) -> None:
        event.stop()  # a click on a row: the keys say what to do with it

    def _show_current(self) -> None:
        call = self.current
        shown = self.query_one("#call-arguments", Static)
        if call is None:
            set_text(shown, Text(""))
            return
        if call.arguments is None:
            text = Text(f"{call.label}: a read has no arguments", style="dim")
        else:
            pretty = json.dumps(call.arguments, ensure_ascii=False, indent=None)
            shown_arguments = shown_mask(self.app)(one_line(pretty, ARGUMENTS_LIMIT))
            text = Text.assemble(("arguments ", "bold"), safe_text(shown_arguments))
        set_text(shown, text)
        self.post_message(self.Highlighted(self, call))
