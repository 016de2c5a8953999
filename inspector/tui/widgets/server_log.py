"""The server's log: ``notifications/message`` coloured by level, and ``logging/setLevel``.

    view = ServerLogView(state)     # renders state.server_log; the level via state.client

Messages come in batches (``ServerLogAdded``, every 50 ms at most) so a flood does not
redraw per line; they are drawn ``DRAIN_SLICE`` a turn, only while the tab is shown, from
a queue that keeps the newest (a flood's skipped ones are counted on a line of their
own); the view keeps the last ``max_lines``. The level picker sends
``logging/setLevel`` and says whether the server accepted it. Server text is
data: the logger name and the data (a string, or any JSON shown compactly) go
through ``safe_text``, with the session's secrets masked (``inspector.tui.masked``) as
they are drawn.
"""

from __future__ import annotations

import json
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from typing import Any, ClassVar

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal
from textual.message import Message
from textual.widget import Widget
from textual.widgets import Label, RichLog, Select, Static

from inspector.engine.client import LOG_LEVELS
from inspector.live.server_log import LogEntry
from inspector.live.state import LiveState
from inspector.safe_text import fold, safe_text
from inspector.tui import messages
from inspector.tui.masked import row_mask, shown_mask
from inspector.tui.widgets.parts import part
from inspector.wire.jsonrpc import RpcError

LEVEL_STYLES = {
    "debug": "dim",
    "info": "cyan",
    "notice": "green",
    "warning": "yellow",
    "error": "red",
    "critical": "bold red",
    "alert": "bold white on red",
    "emergency": "bold reverse red",
}
OFFLINE = "replay: the level is set on a live server (logging/setLevel)"
DATA_LIMIT = 4000  # characters of one message's data shown (the wire log has it all)
DRAIN_SLICE = 100  # entries drawn per turn (~10 ms); more wait for the next turn
DRAIN_EVERY = 0.02  # seconds between turns


def format_entry(
    params: dict[str, Any],
    when: datetime | None = None,
    mask: Callable[[str], str] | None = None,
) -> Text:
    """One log line: time, level (coloured), logger, data, all shown literally; ``mask``:
    the session's secrets out of the logger and the data (cut first: a long data's
    secrets are looked for in what is shown only)."""
    level = str(params.get("level", "?"))
    line = Text()
    line.append((when or datetime.now()).strftime("%H:%M:%S.%f")[:-3] + " ", style="dim")
    line.append_text(safe_text(level.upper(), LEVEL_STYLES.get(level, "magenta"), limit=20))
    line.append(" " * max(1, 10 - len(level)))  # the background of alert stays on the word
    logger = params.get("logger")
    if logger is not None:
        name = fold(f"{logger} ", 60)
        line.append_text(safe_text(name if mask is None else mask(name), "bold"))
    data = params.get("data")
    shown = fold(
        data if isinstance(data, str) else json.dumps(data, ensure_ascii=False), DATA_LIMIT
    )
    line.append_text(safe_text(shown if mask is None else mask(shown)))
    return line


class ServerLogView(Widget):
    """The level picker on top, the coloured log below."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("ctrl+k", "clear", "Clear server log"),
    ]

    DEFAULT_CSS = """
    ServerLogView { height: 1fr; }
    ServerLogView > #log-bar { height: auto; }
    ServerLogView > #log-bar Label { padding: 1 1 0 0; }
    ServerLogView > #log-bar Select { width: 22; }
    ServerLogView > #log-bar #level-status { padding: 1 0 0 1; width: 1fr; color: $text-muted; }
    ServerLogView > RichLog { height: 1fr; }
    """

    @dataclass
    class LevelSet(Message):
        """``logging/setLevel`` was answered (``error`` is None when accepted)."""

        level: str
        error: str | None

    def __init__(self, state: LiveState, *, max_lines: int = 5000, id: str | None = None) -> None:
        super().__init__(id=id)
        self.max_lines = max_lines
        self.state = state
        # the session whose level the user set: its status line is newer than the
        # capability note, which the (batched) attach message may bring after it
        self._level_set_for: object | None = None
        self._waiting: deque[LogEntry] = deque(maxlen=max_lines)  # not drawn yet
        self._skipped = 0  # entries that left the queue undrawn (a flood)
        self._draining = False

    def compose(self) -> ComposeResult:
        with Horizontal(id="log-bar"):
            yield Label("server log level")
            yield Select(
                [(level, level) for level in LOG_LEVELS],
                id="level",
                prompt="(server default)",
                disabled=self.state.offline,  # a replay has no server to set it on
            )
            # said here: the status line is only updated once mounted, and the session's
            # news comes with SessionAttached (a replay has none)
            yield Static(OFFLINE if self.state.offline else "", id="level-status")
        yield RichLog(
            id="server-log", max_lines=self.max_lines, wrap=True, markup=False, highlight=False
        )

    @on(messages.SessionAttached)
    def _show_capability(self) -> None:
        if self.state.offline:
            self._status(OFFLINE)
            return
        session = self.state.session
        if session is None:
            self._status("not connected")
            return
        if session is self._level_set_for:
            return
        if "logging" not in session.server_capabilities:
            self._status("the server does not declare logging (it may still send messages)")
        else:
            self._status("")

    @on(messages.ServerLogAdded)
    def _added(self, message: messages.ServerLogAdded) -> None:
        """Entries wait in a bounded queue and are drawn a slice per turn (and only while
        the tab is shown): a flood of 50,000 a second must not stop the keys."""
        room = self._waiting.maxlen or 0
        self._skipped += max(0, len(self._waiting) + len(message.entries) - room)
        self._waiting.extend(message.entries)
        self._drain_soon()

    def on_show(self) -> None:
        self._drain_soon()

    def _drain_soon(self) -> None:
        if self._waiting and not self._draining:
            self._draining = True
            self.set_timer(DRAIN_EVERY, self._drain)

    def _drain(self) -> None:
        self._draining = False
        if not self.is_mounted or not self.display or not self.region:
            return  # hidden: drawn when shown (on_show), the queue keeps the newest
        log = self.query_one("#server-log", RichLog)
        if self._skipped:
            note = f"… {self._skipped:,} messages not shown here (a flood): the log has them"
            log.write(Text(note, style="dim italic"), expand=True)
            self._skipped = 0
        mask = row_mask(self.app)  # None (nothing to do) while no secret is known
        for _ in range(min(DRAIN_SLICE, len(self._waiting))):
            entry = self._waiting.popleft()
            # wrap at the view width, not the text width
            log.write(format_entry(entry.params, entry.when, mask), expand=True)
        self._drain_soon()

    # -- the level ---------------------------------------------------------------------

    async def set_level(self, level: str) -> bool:
        """Send ``logging/setLevel``; True if the server accepted it."""
        client = self.state.client
        if self.state.offline:
            self._status(OFFLINE)
            return False
        if client is None:
            self._status("not connected")
            return False
        self._status(f"setting {level}…")
        self._level_set_for = self.state.session
        try:
            await client.set_logging_level(level)
        except RpcError as exc:
            self._status(f"the server refused level {level}: {exc.message} (code {exc.code})")
            self.post_message(self.LevelSet(level, exc.message))
            return False
        self._status(f"level set to {level}: the server sends {level} and above")
        self.post_message(self.LevelSet(level, None))
        return True

    @on(Select.Changed, "#level")
    def _level_changed(self, event: Select.Changed) -> None:
        event.stop()
        if isinstance(event.value, str):
            self.run_worker(self.set_level(event.value), group="set-level", exclusive=True)

    def _status(self, text: str) -> None:
        """The line by the level picker; a server's refusal quoted in it is masked."""
        status = part(self, "#level-status", Static) if self.is_mounted else None
        if status is not None:  # not torn down (parts.py)
            status.update(safe_text(shown_mask(self.app)(text)))

    def action_clear(self) -> None:
        self._waiting.clear()
        self._skipped = 0
        self.query_one("#server-log", RichLog).clear()
        self.state.server_log.clear()
