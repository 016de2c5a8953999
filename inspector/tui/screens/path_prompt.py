"""A modal dialog that asks for one path: an input, a problem line, Save and Cancel.

Subclasses compose their own lines (the input, a Static with the class ``problem``, and
the ``#save``/``#cancel`` buttons) and decide in ``action_save`` what the typed path is."""

from __future__ import annotations

from pathlib import Path

from textual.screen import ModalScreen
from textual.widget import Widget
from textual.widgets import Button, Input


class PathPrompt(ModalScreen[Path | None]):
    """Enter or Save checks the path (``action_save``); Cancel (and Esc, which each dialog
    binds itself, so the help screen lists it under the dialog's name) dismisses with None."""

    DEFAULT_CSS = """
    PathPrompt { align: center middle; }
    PathPrompt > Vertical { width: 90; max-width: 96%; height: auto; max-height: 96%;
                            border: thick $primary; background: $surface; padding: 1 2; }
    PathPrompt.-short > Vertical { padding: 0 1; }
    PathPrompt .problem { height: auto; margin-top: 1; }
    PathPrompt Horizontal { height: auto; margin-top: 1; }
    PathPrompt Button { margin-right: 1; }
    """

    def on_mount(self) -> None:
        self.first_field().focus()

    def first_field(self) -> Widget:
        """Where the keys go first: the path."""
        return self.query_one(Input)

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.action_save()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        if event.button.id == "save":
            self.action_save()
        else:
            self.dismiss(None)

    def action_cancel(self) -> None:
        self.dismiss(None)

    def action_save(self) -> None:
        raise NotImplementedError
