"""The text box of a form field, with room for a list of choices under it.

    box = FieldInput("", classes="field-input", compact=True)
    box.choices = menu   # anything with the `Choices` shape: a server's completions

Without choices it is a plain ``Input`` (↑ ↓ scroll the form as before). With a list
attached, ↓ opens it (asking for the values of what is typed), ↑ ↓ PgUp PgDn move in it,
Enter takes the highlighted value and Esc closes it; the focus stays in the box all the
while, so typed keys keep going to the field. A key the list does not want goes on to
the form and the app (`SkipAction`), as it would without a list.
"""

from __future__ import annotations

from typing import ClassVar, Protocol

from textual.actions import SkipAction
from textual.binding import Binding, BindingType

from inspector.safe_text import visible
from inspector.tui.widgets.steady_input import SteadyInput


class Choices(Protocol):
    """A list of values offered under a `FieldInput`."""

    @property
    def shown(self) -> bool: ...

    def open(self) -> None:
        """Show the list for what the box holds now (asking for it if need be)."""

    def move(self, step: int) -> None:
        """Move the highlight by ``step`` rows (negative: up)."""

    def pick(self) -> bool:
        """Put the highlighted value in the box and close; False if nothing was picked."""

    def close(self) -> None: ...

    def typed(self, value: str) -> None:
        """The box's value changed (typed, pasted or picked)."""

    def blurred(self) -> None:
        """The box lost the focus."""


PAGE = 8  # rows PgUp/PgDn move in the list (its height)


class FieldInput(SteadyInput):
    """An ``Input`` whose ↑ ↓ Enter Esc serve an attached list of choices, if any."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("down", "choice(1)", "Next value", show=False),
        Binding("up", "choice(-1)", "Previous value", show=False),
        Binding("pagedown", f"choice({PAGE})", "Values page down", show=False),
        Binding("pageup", f"choice({-PAGE})", "Values page up", show=False),
        Binding("enter", "pick", "Pick value", show=False),
        Binding("escape", "close_choices", "Close values", show=False),
    ]

    choices: Choices | None = None
    picked: str | None = None  # the last value taken from the list, exactly as it came

    def take(self, value: str) -> None:
        """Put a value from the list in the box: shown with control characters made
        visible, kept exactly by the field (`picked`) until the user edits it."""
        self.picked = value
        self.value = visible(value)
        self.cursor_position = len(self.value)
        self._suggestion = ""  # the ghost text was for what was typed before

    def watch_value(self, value: str) -> None:
        if self.choices is not None:
            self.choices.typed(value)

    def on_blur(self) -> None:
        if self.choices is not None:
            self.choices.blurred()

    def action_choice(self, step: int) -> None:
        choices = self.choices
        if choices is None:
            raise SkipAction()  # the form scrolls, as in a plain input
        if choices.shown:
            choices.move(step)
        elif step == 1:
            choices.open()
        else:
            raise SkipAction()

    async def action_pick(self) -> None:
        if self.choices is not None and self.choices.shown and self.choices.pick():
            return
        await self.action_submit()

    def action_close_choices(self) -> None:
        if self.choices is None or not self.choices.shown:
            raise SkipAction()  # Esc leaves the form, as everywhere
        self.choices.close()
