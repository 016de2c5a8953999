"""Ask where to copy the session file; say plainly when that path will not do."""

from __future__ import annotations

from pathlib import Path
from typing import ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.widgets import Button, Input, Static

from inspector.safe_text import safe_text
from inspector.tui.screens.path_prompt import PathPrompt
from inspector.tui.session_copy import check_target, default_target, resolve_target, shorten


class SaveAsScreen(PathPrompt):
    """Dismisses with the path to copy to (checked; an existing file confirmed) or None."""

    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "cancel", "Cancel")]

    DEFAULT_CSS = """
    SaveAsScreen #save { width: 21; }  /* fits "Overwrite (enter)" too */
    """

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
            yield Static("", id="save-as-problem", classes="problem")
            with Horizontal():
                yield Button("Save (enter)", id="save", variant="primary")
                yield Button("Cancel (esc)", id="cancel")

    def on_input_changed(self, event: Input.Changed) -> None:
        self._confirmed = None  # a new path: an old "overwrite?" no longer holds
        self._say("")

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
