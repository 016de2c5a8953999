"""Ask what to keep of a result (its binary blocks, its JSON, its text) and which folder it
goes to; say plainly when that path will not do."""

from __future__ import annotations

from pathlib import Path
from typing import ClassVar

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.widget import Widget
from textual.widgets import Button, Input, OptionList, Static
from textual.widgets.option_list import Option

from inspector.safe_text import one_line, safe_text
from inspector.tui.screens.path_prompt import PathPrompt
from inspector.tui.session_copy import shorten


class SaveFilesScreen(PathPrompt):
    """Dismisses with the folder to write into (it may not exist yet), or None; ``choice``
    is the index of what to keep (the highlighted line of the list)."""

    DEFAULT_CSS = """
    SaveFilesScreen OptionList { height: auto; max-height: 8; margin-bottom: 1; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "cancel", "Cancel")]

    def __init__(self, folder: Path, choices: list[str]) -> None:
        super().__init__()
        self.folder = folder
        self.choices = choices
        self.problem = ""

    @property
    def choice(self) -> int:
        return self.query_one(OptionList).highlighted or 0

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static(Text("Save the result into a folder", style="bold"))
            yield OptionList(
                *(Option(safe_text(one_line(label, 200))) for label in self.choices),
                id="save-files-choice",
            )
            yield Input(shorten(self.folder), id="save-files-folder", placeholder="a folder")
            yield Static(
                Text(
                    "↑↓ what, Tab the folder; created when missing; "
                    "existing files are kept (name-1.ext)",
                    style="dim",
                ),
                id="save-files-problem",
                classes="problem",
            )
            with Horizontal():
                yield Button("Save (enter)", id="save", variant="primary")
                yield Button("Cancel (esc)", id="cancel")

    def first_field(self) -> Widget:
        """What to keep first (Enter saves the highlighted line); Tab goes to the folder."""
        choices = self.query_one(OptionList)
        choices.highlighted = 0
        return choices

    @on(OptionList.OptionSelected)
    def _selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        self.action_save()

    def action_save(self) -> None:
        text = self.query_one(Input).value.strip()
        if not text:
            self._say("type a folder")
            return
        folder = Path(text).expanduser()
        if not folder.is_absolute():
            folder = Path.cwd() / folder
        if folder.exists() and not folder.is_dir():
            self._say(f"{shorten(folder)} is a file, not a folder")
            return
        self.dismiss(folder)

    def _say(self, message: str) -> None:
        self.problem = message
        self.query_one("#save-files-problem", Static).update(safe_text(message, "red"))
