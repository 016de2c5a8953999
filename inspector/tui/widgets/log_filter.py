"""The message log's filter bar: an input for the filter language and a match count.

The language itself (``method:tools/call kind:error dir:in text``) is parsed by the
headless ``inspector.record.store.LogFilter``; this widget only collects the query
(debounced, so typing over a million events does not restart a scan per key) and
shows "1,234 / 1,000,000 shown".
"""

from __future__ import annotations

from typing import ClassVar

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal
from textual.message import Message
from textual.timer import Timer
from textual.widgets import Input, Static

from inspector.tui.safe_text import visible

PLACEHOLDER = "filter: method:tools/call kind:error dir:in has:finding text…"
DEBOUNCE = 0.15  # seconds of quiet typing before the filter is applied


class LogFilterBar(Horizontal):
    """A one-line filter input with a count; hidden until ``/`` opens it."""

    DEFAULT_CSS = """
    LogFilterBar {
        height: 1;
        display: none;
        background: $boost;
    }
    LogFilterBar.-open { display: block; }
    LogFilterBar > #filter-prompt { width: 2; color: $accent; text-style: bold; }
    LogFilterBar > Input {
        width: 1fr; height: 1; border: none; padding: 0; background: $boost;
    }
    LogFilterBar > Input:focus { border: none; }
    LogFilterBar > #filter-count { width: auto; padding: 0 1; color: $text-muted; }
    """

    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "close", "Clear filter", show=False)]

    class Changed(Message):
        """The query changed (debounced) or was submitted."""

        def __init__(self, query: str, submitted: bool = False) -> None:
            super().__init__()
            self.query = query
            self.submitted = submitted

    class Closed(Message):
        """The user cleared and closed the filter (Escape)."""

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self._timer: Timer | None = None

    def compose(self) -> ComposeResult:
        yield Static("/", id="filter-prompt")
        yield Input(placeholder=PLACEHOLDER, id="filter-input", select_on_focus=False)
        yield Static("", id="filter-count")

    @property
    def input(self) -> Input:
        return self.query_one("#filter-input", Input)

    @property
    def query_text(self) -> str:
        return self.input.value

    @property
    def is_open(self) -> bool:
        return self.has_class("-open")

    def open(self) -> None:
        self.add_class("-open")
        self.input.focus()

    def action_close(self) -> None:
        if self._timer is not None:
            self._timer.stop()
        self.input.value = ""
        self.remove_class("-open")
        self.post_message(self.Closed())

    def set_count(self, shown: int, total: int, *, scanned: int | None = None,
                  problems: tuple[str, ...] = ()) -> None:
        """Show "shown / total shown", the scan progress and what was not understood."""
        text = Text(f"{shown:,} / {total:,} shown")
        if scanned is not None and scanned < total:
            text.append(f"  scanning {scanned * 100 // max(total, 1)}%", style="italic")
        if problems:
            text.append("  " + visible("; ".join(problems)), style="bold red")
        self.query_one("#filter-count", Static).update(text)

    @on(Input.Changed, "#filter-input")
    def _changed(self, event: Input.Changed) -> None:
        event.stop()
        if self._timer is not None:
            self._timer.stop()
        query = event.value
        self._timer = self.set_timer(DEBOUNCE, lambda: self.post_message(self.Changed(query)))

    @on(Input.Submitted, "#filter-input")
    def _submitted(self, event: Input.Submitted) -> None:
        event.stop()
        if self._timer is not None:
            self._timer.stop()
        self.post_message(self.Changed(event.value, submitted=True))
