"""A raw JSON editor: a TextArea (JSON highlighting when available), a live validity line
and an error line.

Highlighting needs textual[syntax] (tree-sitter), which is not a dependency; instead the
text is parsed a moment after each edit (debounced) and the line under the editor says
"✓ valid JSON" or where the first error is ("✗ line 3, column 9: Expecting ',' …").
Given a schema check (`schema_check`: a value -> its problems), it then says whether
the schema takes the value, with the problems under it: valid JSON alone is not a
value the form would send without a warning.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from rich.text import Text
from textual import events, on
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.timer import Timer
from textual.widgets import Static, TextArea

from inspector.forms import strict_json
from inspector.safe_text import visible

CHECK_AFTER = 0.3  # seconds of no typing before the text is parsed
CHECK_LIMIT = 1 << 20  # characters; a longer text is parsed when sent, not while typed
SHOWN_PROBLEMS = 6  # schema problems listed under the editor; the rest are counted

SchemaCheck = Callable[[Any], list[str]]


class JsonText(TextArea):
    """The editor proper: Tab indents, and Esc is left to the keys around it.

    A code editor takes Esc to move the focus on (its way out, as Tab indents); in a
    form that took a second Esc to leave where the form's fields need one.
    """

    async def _on_key(self, event: events.Key) -> None:
        if event.key == "escape":
            # skips TextArea's own handler only: the key still bubbles to the bindings
            event.prevent_default()


def _editor(text: str) -> TextArea:
    try:
        return JsonText.code_editor(text, language="json", soft_wrap=True, id="json-text")
    except Exception:  # no tree-sitter JSON grammar: plain text still works
        return JsonText.code_editor(text, soft_wrap=True, id="json-text")


class JsonEditor(Vertical):
    """Edit a JSON value as text; `parse()` says what is wrong instead of raising."""

    # the lines under the editor are docked: the editor gets what is left of the height
    DEFAULT_CSS = """
    JsonEditor { height: auto; }
    JsonEditor > TextArea { height: auto; min-height: 6; max-height: 100%; }
    JsonEditor > .json-lines { dock: bottom; height: auto; }
    JsonEditor .json-status { height: auto; color: $text-muted; }
    JsonEditor .json-status.-invalid { color: $text-warning; }
    JsonEditor .json-error { color: $text-error; display: none; height: auto; }
    JsonEditor .json-error.shown { display: block; }
    """

    def __init__(
        self, text: str = "", *, schema_check: SchemaCheck | None = None, **kwargs: Any
    ) -> None:
        super().__init__(**kwargs)
        self._initial = text
        self._check_timer: Timer | None = None
        self._error_for: str | None = None  # the text the error line was about
        self.schema_check = schema_check
        self.valid: bool | None = None  # the last live check of the syntax (None: not checked)
        self.schema_problems: list[str] | None = None  # and of the schema (None: not checked)

    def compose(self) -> ComposeResult:
        yield _editor(self._initial)
        with Vertical(classes="json-lines"):
            yield Static("", classes="json-status")
            yield Static("", classes="json-error")

    def on_mount(self) -> None:
        self.check()

    @on(TextArea.Changed)
    def _edited(self, event: TextArea.Changed) -> None:
        # parse when typing pauses, not on every key (a long text costs a few ms)
        if self._check_timer is not None:
            self._check_timer.stop()
        self._check_timer = self.set_timer(CHECK_AFTER, self.check)

    def check(self) -> None:
        """Parse the text now and say whether it is valid JSON (and where it is not)."""
        self._check_timer = None
        if not self.is_mounted:
            return
        text = self.text
        if self._error_for is not None and text != self._error_for:
            self.show_error(None)  # it was about a text that has changed since
        status = self.query_one(".json-status", Static)
        self.schema_problems = None
        if len(text) > CHECK_LIMIT:
            self.valid = None
            status.update(Text(f"{len(text):,} characters: checked when sent", style="dim"))
            status.remove_class("-invalid")
            return
        try:
            value = strict_json.loads(text)  # NaN, 1e400, 5,000 digits, deep nesting: not JSON
        except json.JSONDecodeError as exc:
            self.valid = False
            status.update(Text(f"✗ line {exc.lineno}, column {exc.colno}: {visible(exc.msg)}"))
        except ValueError as exc:
            self.valid = False
            status.update(Text(f"✗ {visible(str(exc))[:200]}"))
        else:
            self.valid = True
            if self.schema_check is not None:
                self.schema_problems = self.schema_check(value)
            status.update(_status(self.schema_problems))
        status.set_class(not self.valid or bool(self.schema_problems), "-invalid")

    @property
    def checked_text(self) -> bool:
        """Does the line under the editor speak of the text as it is now (syntax, and
        schema when there is a check)? A long text is checked only when sent."""
        return self.valid is not None and (
            self.schema_check is None or self.valid is False or self.schema_problems is not None
        )

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
        self.check()

    def replace_text(self, text: str) -> None:
        """Put `text` in place of the whole text as an edit: ctrl+z brings the old back."""
        area = self.text_area
        area.replace(text, area.document.start, area.document.end)
        self.show_error(None)
        self.check()

    def parse(self) -> tuple[Any, str | None]:
        """(value, None) or (None, error message) for the current text."""
        try:
            return strict_json.loads(self.text), None
        except ValueError as exc:
            return None, f"invalid JSON: {exc}"

    def show_error(self, message: str | None, *more: str) -> None:
        """Show (or clear) errors under the editor; text is shown literally."""
        if not self.is_mounted:
            return
        line = self.query_one(".json-error", Static)
        if message is None:
            self._error_for = None
            line.update("")
            line.remove_class("shown")
            return
        self._error_for = self.text
        lines = (f"✗ {visible(m)}" for m in (message, *more))
        line.update(Text("\n".join(lines), style="bold"))
        line.add_class("shown")


def _status(problems: list[str] | None) -> Text:
    """The line under the editor for valid JSON: then what the schema says of it."""
    text = Text("✓ valid JSON")
    if problems is None:
        return text
    if not problems:
        text.append("  ·  ✓ the schema takes it")
        return text
    count = len(problems)
    text.append(f"  ·  ✗ the schema does not take it: {count} problem{'s' * (count != 1)}")
    for problem in problems[:SHOWN_PROBLEMS]:
        text.append(f"\n  ✗ {visible(problem)}")
    if count > SHOWN_PROBLEMS:
        text.append(f"\n  … and {count - SHOWN_PROBLEMS} more")
    return text
