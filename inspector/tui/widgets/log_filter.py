"""The message log's filter bar: the query, a match count, and a line that explains.

The language itself (``method:tools/call kind:error dir:in text``) is parsed by the
headless ``inspector.logstore.filter_query``; this widget collects the query (debounced,
so typing over a million events does not restart a scan per key), shows
"1,234 / 1,000,000 shown", and under the input says what is wrong with the query (an
unknown key or value, underlined where it is) or, when nothing is, what the word being
typed can become. The word at the end completes from the key table and the methods seen
(``→`` or ``Tab`` inserts what the ghost text shows).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import ClassVar

from rich.highlighter import Highlighter
from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.message import Message
from textual.suggester import Suggester
from textual.timer import Timer
from textual.widgets import Input, Static

from inspector.logstore.filter_query import KEY_NAMES, candidates, complete, parse_query, tokens
from inspector.safe_text import visible
from inspector.tui.widgets.parts import part
from inspector.tui.widgets.steady_input import SteadyInput

PLACEHOLDER = "filter: method:tools/call kind:error is:error dir:in has:finding text…"
DEBOUNCE = 0.15  # seconds of quiet typing before the filter is applied
KEY_STYLE = "bold #87afff"
PROBLEM_STYLE = "bold red underline"
# server: is a workspace's (several servers): the help screen and completion name it
_HINTED = (k + ":" for k in KEY_NAMES if k != "server")
SYNTAX_HINT = (
    f"keys: {' '.join(_HINTED)}  ·  other words: text anywhere in the frame"
    '  ·  "quoted text"  ·  Tab completes  ·  ? help'
)

MethodNames = Callable[[], Iterable[str]]


def _value_begun(query: str) -> bool:
    """Is the word at the end of ``query`` not a key still waiting for its value
    (``method:``, ``kind:request,``)?"""
    word = query.split()[-1] if query and not query[-1].isspace() else ""
    _, sep, value = word.partition(":")
    return not sep or value.rsplit(",", 1)[-1] != ""


class FilterSuggester(Suggester):
    """Completes the word at the end of the query: keys, their values, seen methods.

    Tab inserts exactly what the ghost text shows, so a key waiting for its value
    shows none: after ``meth`` Tab the box read ``method:initialize`` (the first method,
    in ghost text) while it held ``method:``, and Enter said "method: needs a value".
    The line under the box lists the values; a letter of one brings its completion."""

    def __init__(self, methods: MethodNames) -> None:
        super().__init__(use_cache=False, case_sensitive=True)  # the methods grow
        self.methods = methods
        self.last: tuple[str, str | None] = ("", None)

    async def get_suggestion(self, value: str) -> str | None:
        suggestion = complete(value, self.methods()) if _value_begun(value) else None
        self.last = (value, suggestion)
        return suggestion


class QueryHighlighter(Highlighter):
    """Keys in colour, the parts that were not understood underlined in red."""

    def __init__(self, pending: Callable[[str], bool]) -> None:
        self.pending = pending

    def highlight(self, text: Text) -> None:
        query = text.plain
        for token in tokens(query):
            if token.key is not None:
                text.stylize(KEY_STYLE, token.start, token.value_at)
        for problem in parse_query(query).problems or ():
            if not self.pending(query) or problem.end < len(query):
                text.stylize(PROBLEM_STYLE, problem.start, problem.end)


class LogFilterBar(Vertical):
    """The filter input with a count and an explaining line; hidden until ``/`` opens it."""

    DEFAULT_CSS = """
    LogFilterBar {
        height: 2;
        display: none;
        background: $boost;
    }
    LogFilterBar.-open { display: block; }
    LogFilterBar > Horizontal { height: 1; }
    LogFilterBar #filter-prompt { width: 2; color: $accent; text-style: bold; }
    LogFilterBar Input {
        width: 1fr; height: 1; border: none; padding: 0; background: $boost;
    }
    LogFilterBar Input:focus { border: none; }
    LogFilterBar #filter-count { width: auto; padding: 0 1; color: $text-muted; }
    LogFilterBar #filter-help { height: 1; padding: 0 2; color: $text-muted; }
    LogFilterBar #filter-help.-problem { color: $text-error; }
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "close", "Clear filter", show=False),
        Binding("tab", "accept_completion", "Complete", show=False),
    ]

    @dataclass
    class Changed(Message):
        """The query changed (debounced) or was submitted."""

        query: str
        submitted: bool = False

    class Closed(Message):
        """The user cleared and closed the filter (Escape)."""

    def __init__(self, *, methods: MethodNames = tuple, id: str | None = None) -> None:
        super().__init__(id=id)
        self._timer: Timer | None = None
        self._final = ""  # the query last submitted with Enter: its problems are final
        self._count_width = -1  # cells of the count shown (a new width needs a layout)
        self._count = Text("")  # the count, kept for a bar not composed yet
        self.suggester = FilterSuggester(methods)

    def compose(self) -> ComposeResult:
        with Horizontal():
            yield Static("/", id="filter-prompt")
            yield SteadyInput(
                placeholder=PLACEHOLDER,
                id="filter-input",
                select_on_focus=False,
                suggester=self.suggester,
                highlighter=QueryHighlighter(self._still_typing),
            )
            yield Static(self._count, id="filter-count")
        yield Static(SYNTAX_HINT, id="filter-help", markup=False)

    @property
    def input(self) -> Input:
        return self.query_one("#filter-input", Input)

    @property
    def query_text(self) -> str:
        return self.input.value

    @property
    def is_open(self) -> bool:
        return self.has_class("-open")

    @property
    def help_line(self) -> str:
        """What the line under the input says (for tests and screen readers of tests)."""
        return str(self.query_one("#filter-help", Static).render())

    def open(self) -> None:
        self.add_class("-open")
        self.input.focus()

    def action_close(self) -> None:
        if self._timer is not None:
            self._timer.stop()
        self.input.value = ""
        self.remove_class("-open")
        self.post_message(self.Closed())

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "accept_completion":  # Tab moves the focus when there is nothing to add
            value, suggestion = self.suggester.last
            return bool(suggestion) and value == self.input.value and self.input.cursor_at_end
        return True

    def action_accept_completion(self) -> None:
        _, suggestion = self.suggester.last
        if suggestion:
            self.input.value = suggestion
            self.input.cursor_position = len(suggestion)

    def set_count(self, shown: int, total: int, *, scanned: int | None = None) -> None:
        """Show "shown / total shown" and the scan progress."""
        text = Text(f"{shown:,} / {total:,} shown")
        if scanned is not None and scanned < total:
            text.append(f"  scanning {scanned * 100 // max(total, 1)}%", style="italic")
        # a new layout only when the width changes: every one re-lays the screen out, and
        # a flood updates the count on every batch
        width = text.cell_len
        self._count = text
        count = part(self, "#filter-count", Static)
        if count is None:  # the bar not composed yet (compose shows it), or torn down
            return
        count.update(text, layout=width != self._count_width)
        self._count_width = width

    def _still_typing(self, query: str) -> bool:
        """The word at the end is still being typed (it has completions) and was not
        submitted: a problem in it is not one yet."""
        return query != self._final and complete(query, self.suggester.methods()) is not None

    def _explain(self, query: str) -> None:
        """The line under the input: the first problem, or what the last word can become."""
        line = self.query_one("#filter-help", Static)
        found = [
            p
            for p in parse_query(query).problems or ()
            if not self._still_typing(query) or p.end < len(query)
        ]
        line.set_class(bool(found), "-problem")
        methods = list(self.suggester.methods())
        what, offered = candidates(query, methods)
        if found:
            more = f"  (and {len(found) - 1} more)" if len(found) > 1 else ""
            line.update(Text(f"✗ column {found[0].start + 1}: {visible(str(found[0]))}{more}"))
        elif complete(query, methods) is None or not offered:  # nothing being typed
            line.update(Text(SYNTAX_HINT))
        elif what == "key":
            line.update(Text(f"keys: {' '.join(k + ':' for k in offered)}"))
        else:
            line.update(Text(visible(f"{what}: {' '.join(offered[:30])}")))
        self.refresh_bindings()  # Tab completes only while there is something to add

    @on(Input.Changed, "#filter-input")
    def _changed(self, event: Input.Changed) -> None:
        event.stop()
        if self._timer is not None:
            self._timer.stop()
        query = event.value
        self._explain(query)

        def apply() -> None:
            self.post_message(self.Changed(query))

        self._timer = self.set_timer(DEBOUNCE, apply)

    @on(Input.Submitted, "#filter-input")
    def _submitted(self, event: Input.Submitted) -> None:
        event.stop()
        if self._timer is not None:
            self._timer.stop()
        self._final = event.value
        self._explain(event.value)
        self.input.refresh()  # the highlighter shows the final problems
        self.post_message(self.Changed(event.value, submitted=True))
