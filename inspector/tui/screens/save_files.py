"""Ask which folder a result's binary blocks go to; say plainly when that path will not do."""

from __future__ import annotations

from pathlib import Path
from typing import ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.widgets import Button, Input, Static

from inspector.safe_text import one_line, safe_text
from inspector.tui.screens.path_prompt import PathPrompt
from inspector.tui.session_copy import shorten


class SaveFilesScreen(PathPrompt):
    """Dismisses with the folder to write into (it may not exist yet), or None."""

    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "cancel", "Cancel")]

    def __init__(self, folder: Path, names: list[str]) -> None:
        super().__init__()
        self.folder = folder
        self.names = names
        self.problem = ""

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static(Text(f"Save {len(self.names)} file(s) into a folder", style="bold"))
            yield Static(safe_text(one_line(", ".join(self.names), 400), "dim"))
            yield Input(shorten(self.folder), id="save-files-folder", placeholder="a folder")
            yield Static(
                Text("created when missing; existing files are kept (name-1.ext)", style="dim"),
                id="save-files-problem",
                classes="problem",
            )
            with Horizontal():
                yield Button("Save (enter)", id="save", variant="primary")
                yield Button("Cancel (esc)", id="cancel")

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
