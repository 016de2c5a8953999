"""Ask, once, which collection file the calls kept with ``k`` go to."""

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
from inspector.tui.session_copy import shorten


class KeepStepScreen(PathPrompt):
    """Dismisses with the collection file (new or existing), or None."""

    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "cancel", "Cancel")]

    def __init__(self, default: Path, title: str) -> None:
        super().__init__()
        self.default = default
        self.title_text = title

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static(Text("Keep as a check", style="bold"))
            yield Static(Text.assemble("the step: ", safe_text(self.title_text), style="dim"))
            yield Input(str(shorten(self.default)), id="keep-path", placeholder="a .mcp.yaml file")
            yield Static(
                Text(
                    "a new file starts with this server; an existing one gets the step at its "
                    "end (later k presses go to the same file)",
                    style="dim",
                ),
                id="keep-problem",
                classes="problem",
            )
            with Horizontal():
                yield Button("Keep (enter)", id="save", variant="primary")
                yield Button("Cancel (esc)", id="cancel")

    def action_save(self) -> None:
        text = self.query_one(Input).value.strip()
        if not text:
            self._say("type a file name")
            return
        path = Path(text).expanduser()
        if not path.is_absolute():
            path = Path.cwd() / path
        if path.is_dir():
            self._say(f"{shorten(path)} is a folder: name a file in it")
            return
        self.dismiss(path)

    def _say(self, message: str) -> None:
        self.query_one("#keep-problem", Static).update(safe_text(message, "red"))
