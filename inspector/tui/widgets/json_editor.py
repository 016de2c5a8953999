"""A raw JSON editor: a TextArea (JSON highlighting when available) and an error line."""

from __future__ import annotations

import json
from typing import Any

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.widgets import Static, TextArea

from inspector.tui.safe_text import visible


def _editor(text: str) -> TextArea:
    try:
        return TextArea.code_editor(text, language="json", soft_wrap=True, id="json-text")
    except Exception:  # no tree-sitter JSON grammar: plain text still works
        return TextArea.code_editor(text, soft_wrap=True, id="json-text")


class JsonEditor(Vertical):
    """Edit a JSON value as text; `parse()` says what is wrong instead of raising."""

    DEFAULT_CSS = """
    JsonEditor { height: auto; }
    JsonEditor > TextArea { height: auto; min-height: 6; max-height: 100%; }
    JsonEditor > .json-error { color: $text-error; display: none; dock: bottom; height: auto; }
    JsonEditor > .json-error.shown { display: block; }
    """

    def __init__(self, text: str = "", **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self._initial = text

    def compose(self) -> ComposeResult:
        yield _editor(self._initial)
        yield Static("", classes="json-error")

    @property
    def text_area(self) -> TextArea:
        return self.query_one(TextArea)

    @property
    def text(self) -> str:
        return self.text_area.text if self.is_mounted else self._initial

    def set_value(self, value: Any) -> None:
        """Show a JSON value, pretty-printed."""
        self.set_text(json.dumps(value, indent=2, ensure_ascii=False))

    def set_text(self, text: str) -> None:
        self._initial = text
        if self.is_mounted:
            self.text_area.load_text(text)
        self.show_error(None)

    def parse(self) -> tuple[Any, str | None]:
        """(value, None) or (None, error message) for the current text."""
        try:
            return json.loads(self.text), None
        except ValueError as exc:
            return None, f"invalid JSON: {exc}"

    def show_error(self, message: str | None, *more: str) -> None:
        """Show (or clear) errors under the editor; text is shown literally."""
        if not self.is_mounted:
            return
        line = self.query_one(".json-error", Static)
        if message is None:
            line.update("")
            line.remove_class("shown")
            return
        lines = (f"✗ {visible(m)}" for m in (message, *more))
        line.update(Text("\n".join(lines), style="bold"))
        line.add_class("shown")
