"""A workspace's one log: every server's frames in the order they came, a server column
on each, ``/`` filters (``server:NAME`` keeps one server's), Enter or ``d`` shows a
frame's detail as the server's own log does. Esc goes back to the server shown."""

from __future__ import annotations

from typing import ClassVar

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.screen import ModalScreen
from textual.widgets import Static

from inspector.logstore.store import EventSource
from inspector.tui.widgets.message_detail import MessageDetail
from inspector.tui.widgets.message_log import MessageLog

TITLE = "All servers · / filter (server:NAME) · Enter/d detail · p pair · Esc back"


class AllLogScreen(ModalScreen[None]):
    """The merged log (installed once: its rows and filter stay between visits)."""

    DEFAULT_CSS = """
    AllLogScreen { background: $surface; }
    AllLogScreen > #all-title { height: 1; background: $panel; color: $text; }
    AllLogScreen > MessageLog { height: 1fr; }
    AllLogScreen > MessageDetail { height: 1fr; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "back", "Back"),
        Binding("d", "toggle_detail", "Detail"),
        Binding("v", "detail('toggle_raw')", "Raw/pretty", show=False),
        Binding("p", "detail('pair')", "Pair", show=False),
        Binding("c", "detail('copy')", "Copy", show=False),
        Binding("s", "detail('save')", "Save", show=False),
    ]

    def __init__(self, source: EventSource) -> None:
        super().__init__(id="all-servers")
        self.source = source
        self.log_view = MessageLog(source, id="log", servers=True)

    def compose(self) -> ComposeResult:
        yield Static(TITLE, id="all-title", markup=False)
        yield self.log_view
        yield MessageDetail(id="detail")

    def on_mount(self) -> None:
        self.detail.display = False

    @property
    def detail(self) -> MessageDetail:
        return self.query_one(MessageDetail)

    # the log's and the detail's messages, shown here (the app's handlers are for the
    # server shown under this screen)

    @on(MessageLog.Selected)
    def _selected(self, message: MessageLog.Selected) -> None:
        message.stop()
        self.detail.display = True
        self.detail.show(self.source, message.index)

    @on(MessageLog.Highlighted)
    def _highlighted(self, message: MessageLog.Highlighted) -> None:
        message.stop()
        if self.detail.display:
            self.detail.show(self.source, message.index)

    @on(MessageDetail.JumpTo)
    def _jump(self, message: MessageDetail.JumpTo) -> None:
        message.stop()
        self.log_view.select_index(message.index)
        self.detail.show(self.source, message.index)

    def on_screen_resume(self) -> None:
        self.log_view.focus()

    def action_back(self) -> None:
        detail = self.detail
        if detail.display:
            detail.display = False
            self.log_view.focus()
            return
        self.app.pop_screen()

    def action_toggle_detail(self) -> None:
        detail = self.detail
        index = self.log_view.cursor_index
        if not detail.display and index is not None:
            detail.show(self.source, index)
        detail.display = not detail.display

    def action_detail(self, action: str) -> None:
        detail = self.detail
        if detail.display:
            getattr(detail, f"action_{action}")()
