"""The in-flight view: requests awaiting an answer, with elapsed time, progress and cancel.

    view = InFlightView()            # mount anywhere
    view.attach(session)             # after the session exists (again after a reconnect)

Rows come from ``session.pending`` (redrawn four times a second) and, below them, the
last finished requests with their outcome. ``c`` (or delete) cancels the request
under the cursor: ``notifications/cancelled`` goes out and the call fails locally.
A response that arrives after that is marked "late response" (the session puts a
``late-response`` finding on its event; this view shows it on the row).
"""

from __future__ import annotations

import contextlib
from collections import OrderedDict
from dataclasses import dataclass
from time import monotonic
from typing import Any, ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.message import Message
from textual.widget import Widget
from textual.widgets import DataTable, Static
from textual.widgets.data_table import RowDoesNotExist

from inspector.engine.session import CANCELLED_BY_USER, TIMED_OUT, PendingRequest, Session
from inspector.safe_text import one_line, safe_text
from inspector.tui.widgets.table_rows import cursor_row_key
from inspector.wire.events import Direction, WireEvent
from inspector.wire.jsonrpc import RequestId

BAR_WIDTH = 16
RECENT = 30  # finished requests kept on show
REFRESH = 0.25


LISTEN = "subscriptions/listen"
LISTEN_KEYS = {
    "toolsListChanged": "tools",
    "resourcesListChanged": "resources",
    "promptsListChanged": "prompts",
}


def is_listen(method: str) -> bool:
    """A 2026-07-28 listen stream: open by design for as long as the session lives."""
    return method == LISTEN


def listen_label(params: Any) -> str:
    """``listening: tools, resources, 2 resources`` from the listen request's filter."""
    wanted = params.get("notifications") if isinstance(params, dict) else None
    parts: list[str] = []
    if isinstance(wanted, dict):
        for key, value in wanted.items():
            if key == "resourceSubscriptions" and isinstance(value, list):
                parts.append(f"{len(value)} subscribed resource{'s' * (len(value) != 1)}")
            elif value:
                parts.append(LISTEN_KEYS.get(key, key.removesuffix("ListChanged")))
    return f"listening: {', '.join(parts) or 'nothing'}"


def calls(pending: Any) -> int:
    """How many of ``pending`` (``session.pending`` values) are real calls awaiting an
    answer: listen streams are not (the status bar counts these)."""
    return sum(1 for p in pending if not is_listen(p.method) and not p.done.is_set())


def describe(method: str, params: Any) -> str:
    """The method plus what it is about (tool name, uri, prompt name)."""
    if is_listen(method):
        return listen_label(params)
    if isinstance(params, dict):
        for key in ("name", "uri", "taskId"):
            if isinstance(params.get(key), str):
                return f"{method} {params[key]}"
    return method


def format_elapsed(seconds: float) -> str:
    """Milliseconds under a second (quick answers are not all "0.0 s"), else seconds."""
    if seconds < 1:
        return f"{seconds * 1000:4.0f} ms"
    return f"{seconds:5.1f} s"


def progress_bar(progress: float | None, total: float | None, width: int = BAR_WIDTH) -> Text:
    """A text progress bar; without a total it shows the count alone."""
    if progress is None:
        return Text("waiting", style="dim")
    if total and total > 0:
        share = max(0.0, min(1.0, progress / total))
        filled = round(share * width)
        bar = Text()
        bar.append("█" * filled, style="green")
        bar.append("░" * (width - filled), style="dim")
        bar.append(f" {progress:g}/{total:g}")
        return bar
    return Text(f"▸ {progress:g} (no total)", style="cyan")


@dataclass
class Finished:
    id: RequestId
    label: str
    started: float
    ended: float
    outcome: str  # ok | error | cancelled | timeout
    detail: str = ""
    late: float | None = None  # seconds after giving up that a late response came


class InFlightView(Widget):
    """Pending requests on top, recent finished ones below; cancel with ``c``."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("c", "cancel", "Cancel request"),
        Binding("delete", "cancel", "Cancel request", show=False),
    ]

    DEFAULT_CSS = """
    InFlightView { height: 1fr; }
    InFlightView > #inflight-title { height: 1; text-style: bold; }
    InFlightView > DataTable { height: 1fr; }
    """

    class Cancelled(Message):
        """The user cancelled a pending request (``sent`` is False if it had finished)."""

        def __init__(self, request_id: RequestId, label: str, sent: bool) -> None:
            super().__init__()
            self.request_id = request_id
            self.label = label
            self.sent = sent

    def __init__(self, session: Session | None = None, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.session: Session | None = None
        self.finished: OrderedDict[RequestId, Finished] = OrderedDict()
        self._started: dict[RequestId, tuple[str, float]] = {}
        self._given_up: dict[RequestId, tuple[str, str]] = {}  # id -> (outcome, reason)
        if session is not None:
            self.attach(session)

    def compose(self) -> ComposeResult:
        yield Static("In flight", id="inflight-title")
        table: DataTable[Any] = DataTable(
            id="inflight-table", cursor_type="row", zebra_stripes=True
        )
        table.add_columns("id", "request", "elapsed", "progress", "status / message")
        yield table

    def on_mount(self) -> None:
        self.set_interval(REFRESH, self.refresh_rows)
        self.refresh_rows()

    # -- the session -------------------------------------------------------------------

    def attach(self, session: Session) -> None:
        if self.session is not None:
            self.session.remove_observer(self._observe)
        self.session = session
        self.finished.clear()
        self._started.clear()
        self._given_up.clear()
        # requests sent before the view was attached (the first list calls) keep their names
        for item in list(session.pending.values()):
            self._started[item.id] = (describe(item.method, item.params), item.started)
        session.add_observer(self._observe)

    def _observe(self, event: WireEvent) -> None:
        """Called by the session for every event (synchronously, on the app's loop)."""
        message = event.message
        if not isinstance(message, dict):
            return
        if event.direction is Direction.OUT:
            if "method" in message and "id" in message:
                label = describe(str(message["method"]), message.get("params"))
                self._started[message["id"]] = (label, monotonic())
            elif message.get("method") == "notifications/cancelled":
                params = message.get("params") or {}
                self._finish(params.get("requestId"), *self._why(params))
        elif event.direction is Direction.IN and "method" not in message and "id" in message:
            id_ = message["id"]
            late = any(f.code == "late-response" for f in event.findings)
            if late and id_ in self.finished:
                done = self.finished[id_]
                done.late = monotonic() - done.ended
            elif not late:
                error = message.get("error")
                detail = str(error.get("message", "")) if isinstance(error, dict) else ""
                self._finish(id_, "error" if error is not None else "ok", detail)

    def _why(self, params: dict[str, Any]) -> tuple[str, str]:
        """(outcome, detail) of a request the client gave up on: the session knows why
        (the user cancelled it, or it timed out); a cancel sent by hand has its reason."""
        reason = str(params.get("reason", ""))
        why = self.session.given_up(params.get("requestId")) if self.session else None
        if why == CANCELLED_BY_USER:
            return "cancelled", "by you"
        if why == TIMED_OUT or (why is None and reason.startswith("timed out")):
            return "timeout", reason
        return "cancelled", reason

    def _finish(self, id_: Any, outcome: str, detail: str) -> None:
        if id_ is None or id_ in self.finished:
            return
        label, started = self._started.pop(id_, ("?", monotonic()))
        self.finished[id_] = Finished(id_, label, started, monotonic(), outcome, detail)
        while len(self.finished) > RECENT:
            self.finished.popitem(last=False)

    # -- drawing -----------------------------------------------------------------------

    def pending(self) -> list[PendingRequest]:
        if self.session is None:
            return []
        return [p for p in self.session.pending.values() if not p.done.is_set()]

    def refresh_rows(self) -> None:
        table = self.query_one("#inflight-table", DataTable)
        cursor_key = cursor_row_key(table)
        table.clear()
        everything = self.pending()
        pending = [p for p in everything if not is_listen(p.method)]
        streams = [p for p in everything if is_listen(p.method)]
        for item in pending:
            message = safe_text(one_line(item.message, 80)) if item.message else Text("running")
            table.add_row(
                safe_text(str(item.id)),
                safe_text(describe(item.method, item.params)),
                format_elapsed(item.elapsed),
                progress_bar(item.progress, item.total),
                message,
                key=f"p:{item.id}",
            )
        for item in streams:  # open by design: no timer that looks like a hung call
            table.add_row(
                Text(str(item.id), style="dim"),
                safe_text(describe(item.method, item.params), "cyan"),
                Text("stream", style="dim"),
                Text(""),
                Text("open (server → client notifications)", style="dim"),
                key=f"p:{item.id}",
            )
        for done in reversed(self.finished.values()):
            table.add_row(
                Text(str(done.id), style="dim"),
                safe_text(done.label, "dim"),
                Text(format_elapsed(done.ended - done.started), style="dim"),
                Text(""),
                self._outcome(done),
                key=f"f:{done.id}",
            )
        title = Text(f"In flight: {len(pending)} pending")
        if streams:
            title.append(f", {len(streams)} listen stream{'s' * (len(streams) != 1)}")
        if self.finished:
            title.append(f", {len(self.finished)} recent")
        if pending:
            title.append("   c cancels the highlighted request", style="dim")
        self.query_one("#inflight-title", Static).update(title)
        if cursor_key is not None:
            with contextlib.suppress(RowDoesNotExist):  # gone: the cursor stays where it fell
                table.move_cursor(row=table.get_row_index(cursor_key))

    @staticmethod
    def _outcome(done: Finished) -> Text:
        styles = {"ok": "green", "error": "red", "cancelled": "yellow", "timeout": "yellow"}
        text = Text()
        text.append(done.outcome, style=styles.get(done.outcome, ""))
        if done.detail:
            text.append_text(safe_text(f"  {one_line(done.detail, 60)}", "dim"))
        if done.late is not None:
            text.append(f"  ⚠ late response (+{done.late:.1f} s)", style="bold magenta")
        return text

    # -- cancel ------------------------------------------------------------------------

    def selected_pending(self) -> PendingRequest | None:
        table = self.query_one("#inflight-table", DataTable)
        key = cursor_row_key(table)
        if key is None or not key.startswith("p:") or self.session is None:
            return None
        for item in self.pending():
            if f"p:{item.id}" == key:
                return item
        return None

    async def action_cancel(self) -> None:
        self.refresh_rows()  # act on what is pending now, not at the last redraw
        item = self.selected_pending()
        if item is None or self.session is None:
            self.app.bell()
            return
        sent = await self.session.cancel(item.id, "cancelled by the user")
        label = describe(item.method, item.params)
        self.post_message(self.Cancelled(item.id, label, sent))
        self.refresh_rows()
