"""A yes / always / no question (destructive tools), or a yes / no one (quitting)."""

from __future__ import annotations

from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Static

from inspector.safe_text import safe_text


class ConfirmScreen(ModalScreen[str | None]):
    """Dismisses with "once", "always" (stop asking this session) or None.

    ``always=False`` leaves out the "always" answer (and its key)."""

    DEFAULT_CSS = """
    ConfirmScreen { align: center middle; }
    ConfirmScreen > Vertical { width: 70; max-width: 96%; height: auto; border: thick $warning;
                               background: $surface; padding: 1 2; }
    ConfirmScreen Horizontal { height: auto; margin-top: 1; }
    ConfirmScreen Button { margin-right: 1; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("y", "answer('once')", "Yes"),
        Binding("a", "answer('always')", "Always"),
        Binding("n,escape", "answer(None)", "No"),
    ]

    def __init__(self, question: str, *, always: bool = True) -> None:
        super().__init__()
        self.question = question
        self.always = always

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static(safe_text(self.question, multiline=True))
            with Horizontal():
                yield Button("Yes (y)", id="once", variant="warning")
                if self.always:
                    yield Button("Always this session (a)", id="always")
                yield Button("No (n)", id="no", variant="primary")

    def on_mount(self) -> None:
        self.query_one("#no", Button).focus()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        self.dismiss(None if event.button.id == "no" else event.button.id)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        return self.always or parameters != ("always",)

    def action_answer(self, answer: str | None) -> None:
        self.dismiss(answer)
