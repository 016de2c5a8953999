"""Ask where to copy the session file; say plainly when that path will not do."""

from __future__ import annotations

from pathlib import Path
from typing import ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Input, Static

from inspector.safe_text import safe_text
from inspector.tui.session_copy import check_target, default_target, resolve_target, shorten


class SaveAsScreen(ModalScreen[Path | None]):
    """Dismisses with the path to copy to (checked; an existing file confirmed) or None."""

    DEFAULT_CSS = """
    SaveAsScreen { align: center middle; }
    SaveAsScreen > Vertical { width: 90; max-width: 96%; height: auto; max-height: 96%;
                              border: thick $primary; background: $surface; padding: 1 2; }
    SaveAsScreen.-short > Vertical { padding: 0 1; }
    SaveAsScreen #save-as-problem { height: auto; margin-top: 1; }
    SaveAsScreen Horizontal { height: auto; margin-top: 1; }
    SaveAsScreen Button { margin-right: 1; }
    SaveAsScreen #save { width: 21; }  /* fits "Overwrite (enter)" too */
    """
    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "cancel", "Cancel")]

    def __init__(self, source: Path, note: str = "") -> None:
        super().__init__()
        self.source = source
        self.note = note
        self._confirmed: Path | None = None  # the existing file the user agreed to replace
        self.problem = ""  # what the dialog says about the typed path, if anything

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static(Text("Save session as", style="bold"))
            yield Static(Text.assemble("a copy of ", safe_text(shorten(self.source)), style="dim"))
            if self.note:
                yield Static(Text(self.note, style="dim"))
            yield Input(
                default_target(self.source),
                id="save-as-path",
                placeholder="a file, or a directory to put it in",
            )
            yield Static("", id="save-as-problem")
            with Horizontal():
                yield Button("Save (enter)", id="save", variant="primary")
                yield Button("Cancel (esc)", id="cancel")

    def on_mount(self) -> None:
        self.query_one(Input).focus()

    def on_input_changed(self, event: Input.Changed) -> None:
        self._confirmed = None  # a new path: an old "overwrite?" no longer holds
        self._say("")

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
        text = self.query_one(Input).value
        if not text.strip():
            self._say("type a path", "red")
            return
        target = resolve_target(text, self.source)
        problem = check_target(target, self.source)
        if problem is None or (problem.kind == "exists" and self._confirmed == target):
            self.dismiss(target)
            return
        if problem.kind == "exists":
            self._confirmed = target
            self.query_one("#save", Button).label = "Overwrite (enter)"
            self._say(problem.message, "yellow")
            return
        self._say(problem.message, "red")

    def _say(self, message: str, style: str = "") -> None:
        self.problem = message
        self.query_one("#save-as-problem", Static).update(safe_text(message, style, multiline=True))
        if not message:
            self.query_one("#save", Button).label = "Save (enter)"
