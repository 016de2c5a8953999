"""History (``h``): every call sent in this session, newest first, with the highlighted
one's result; Enter sends it again, ``e`` opens it in its form, ``g`` shows its frame.

The screen answers with what was chosen (``(action, call)``; None when closed) and the
app's ``HistoryUi`` acts on it, on the main screen.
"""

from __future__ import annotations

from typing import ClassVar

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.screen import ModalScreen

from inspector.live.history import Call, CallHistory
from inspector.tui.widgets.call_list import CallList, recorded_outcome
from inspector.tui.widgets.result_view import ResultView

Choice = tuple[str, Call]


class HistoryScreen(ModalScreen[Choice | None]):
    """The calls, and the result of the one under the cursor."""

    DEFAULT_CSS = """
    HistoryScreen { align: center middle; }
    HistoryScreen > Vertical { width: 120; max-width: 100%; height: 100%; max-height: 40;
                               border: round $primary; background: $surface; padding: 0 1; }
    HistoryScreen CallList > CallRows { max-height: 10; }
    HistoryScreen ResultView { height: 1fr; border-top: solid $panel-lighten-2; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "close", "Close"),
        Binding("h", "close", "Close", show=False),
    ]

    def __init__(self, history: CallHistory, *, offline: bool) -> None:
        super().__init__()
        self.history = history
        self.offline = offline

    def compose(self) -> ComposeResult:
        with Vertical():
            yield CallList(self.history, offline=self.offline, id="history-calls")
            yield ResultView(id="history-result")

    def on_mount(self) -> None:
        calls = self.query_one(CallList)
        calls.focus_rows()
        if not calls.shown:
            self.query_one(ResultView).show_text(
                "no call sent yet: open a tool, resource or prompt and send it (ctrl+s)"
            )

    @on(CallList.Highlighted)
    def _highlighted(self, message: CallList.Highlighted) -> None:
        self.query_one(ResultView).show(recorded_outcome(self.history, message.call))

    @on(CallList.Chosen)
    def _chosen(self, message: CallList.Chosen) -> None:
        message.stop()
        self.dismiss((message.action, message.call))

    def action_close(self) -> None:
        self.dismiss(None)
