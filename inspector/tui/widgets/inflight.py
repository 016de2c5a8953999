"""The in-flight view: requests awaiting an answer, with elapsed time, progress and cancel.

    view = InFlightView(state)       # renders state.requests (a ``LiveState``'s)

Rows come from the pending requests (redrawn four times a second, as the time moves)
and, below them, the last finished requests with their outcome (redrawn when one
finishes: ``RequestsChanged``). ``c`` (or delete) cancels the request under the cursor:
``notifications/cancelled`` goes out and the call fails locally. A response that
arrives after that is marked "late response" (the session puts a ``late-response``
finding on its event; the state keeps it on the finished request).
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, ClassVar

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.message import Message
from textual.widget import Widget
from textual.widgets import DataTable, Static
from textual.widgets.data_table import RowDoesNotExist

from inspector.engine.pending import PendingRequest
from inspector.live.requests import Finished, describe, is_listen
from inspector.live.state import LiveState
from inspector.safe_text import one_line, safe_text
from inspector.tui import messages
from inspector.tui.masked import shown_mask
from inspector.tui.widgets.parts import has_parts
from inspector.tui.widgets.static_text import set_text
from inspector.tui.widgets.table_rows import cursor_row_key
from inspector.wire.jsonrpc import RequestId

BAR_WIDTH = 16
REFRESH = 0.25


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


class InFlightView(Widget):
    """Pending requests on top, recent finished ones below; cancel with ``c``."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("c", "cancel", "Cancel request"),
        Binding("delete", "cancel", "Cancel request", show=False),
        Binding("L", "reopen_listen", "Listen again", show=False),
    ]

    DEFAULT_CSS = """
    InFlightView { height: 1fr; }
    InFlightView > #inflight-title { height: 1; text-style: bold; }
    InFlightView > DataTable { height: 1fr; }
    """

    @dataclass
    class Cancelled(Message):
        """The user cancelled a pending request (``sent`` is False if it had finished)."""

        request_id: RequestId
        label: str
        sent: bool

    class ReopenListen(Message):
        """The user asks for the subscriptions/listen stream again (after cancelling it)."""

    def __init__(self, state: LiveState, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.state = state

    def compose(self) -> ComposeResult:
        yield Static("In flight", id="inflight-title")
        table: DataTable[Any] = DataTable(
            id="inflight-table", cursor_type="row", zebra_stripes=True
        )
        table.add_columns("id", "request", "elapsed", "progress", "status / message")
        yield table

    def on_mount(self) -> None:
        self.set_interval(REFRESH, self._tick)
        self.refresh_rows()

    def _tick(self) -> None:
        """The elapsed column moves while something is pending, and only a table on
        screen shows it (an idle app, or this tab hidden, redraws nothing)."""
        if self.is_on_screen and self.pending():
            self.refresh_rows()

    def on_show(self) -> None:
        self.refresh_rows()  # the times moved while the tab was hidden

    @on(messages.RequestsChanged)
    @on(messages.SessionAttached)
    def _requests_changed(self) -> None:
        if self.is_on_screen:
            self.refresh_rows()  # hidden, it catches up when shown (a progress flood
            # would rebuild a table nobody sees)

    # -- drawing -----------------------------------------------------------------------

    @property
    def finished(self) -> dict[RequestId, Finished]:
        return self.state.requests.finished

    def pending(self) -> list[PendingRequest]:
        return self.state.requests.pending()

    def refresh_rows(self) -> None:
        if not has_parts(self, "#inflight-table", "#inflight-title"):
            return  # torn down (see parts.py)
        table = self.query_one("#inflight-table", DataTable)
        cursor_key = cursor_row_key(table)
        table.clear()
        everything = self.pending()
        pending = [p for p in everything if not is_listen(p.method)]
        streams = [p for p in everything if is_listen(p.method)]
        mask = shown_mask(self.app)  # the session's secrets out of what the server said
        for item in pending:
            message = (
                safe_text(mask(one_line(item.message, 80))) if item.message else Text("running")
            )
            table.add_row(
                safe_text(str(item.id)),
                safe_text(mask(describe(item.method, item.params))),
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
                safe_text(mask(done.label), "dim"),
                Text(format_elapsed(done.ended - done.started), style="dim"),
                Text(""),
                self._outcome(done, mask),
                key=f"f:{done.id}",
            )
        title = Text(f"In flight: {len(pending)} pending")
        if streams:
            title.append(f", {len(streams)} listen stream{'s' * (len(streams) != 1)}")
        if self.finished:
            title.append(f", {len(self.finished)} recent")
        if pending:
            title.append("   c cancels the highlighted request", style="dim")
        set_text(self.query_one("#inflight-title", Static), title)
        if cursor_key is not None:
            with contextlib.suppress(RowDoesNotExist):  # gone: the cursor stays where it fell
                table.move_cursor(row=table.get_row_index(cursor_key))

    @staticmethod
    def _outcome(done: Finished, mask: Callable[[str], str]) -> Text:
        styles = {
            "ok": "green",
            "tool error": "red",
            "error": "red",
            "cancelled": "yellow",
            "timeout": "yellow",
        }
        text = Text()
        text.append(done.outcome, style=styles.get(done.outcome, ""))
        if done.detail:
            text.append_text(safe_text(f"  {mask(one_line(done.detail, 60))}", "dim"))
        if done.late is not None:
            text.append(f"  ⚠ late response (+{done.late:.1f} s)", style="bold magenta")
        return text

    # -- cancel ------------------------------------------------------------------------

    def selected_pending(self) -> PendingRequest | None:
        table = self.query_one("#inflight-table", DataTable)
        key = cursor_row_key(table)
        if key is None or not key.startswith("p:"):
            return None
        for item in self.pending():
            if f"p:{item.id}" == key:
                return item
        return None

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action in ("cancel", "reopen_listen"):
            return not self.state.offline  # a replay has nothing in flight: not in the footer
        return True

    def action_reopen_listen(self) -> None:
        self.post_message(self.ReopenListen())

    async def action_cancel(self) -> None:
        self.refresh_rows()  # act on what is pending now, not at the last redraw
        item = self.selected_pending()
        session = self.state.requests.session
        if item is None or session is None:
            self.app.bell()
            return
        sent = await session.cancel(item.id, "cancelled by the user")
        label = describe(item.method, item.params)
        self.post_message(self.Cancelled(item.id, label, sent))
        self.refresh_rows()
