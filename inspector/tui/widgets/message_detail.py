"""Detail of one wire event: header, pretty JSON (folded), raw bytes, meta, findings.

Keys: ``r`` raw/pretty, ``p`` jump to the paired request/response (posts
``MessageDetail.JumpTo``), ``c`` copy the payload (OSC 52), ``s`` save the payload
to a file. Everything the server sent is shown through ``safe_text``.
"""

from __future__ import annotations

import asyncio
import json
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, ClassVar

from rich.console import RenderableType
from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.message import Message
from textual.widgets import Input, Static

from inspector.engine.events import Kind, WireEvent
from inspector.record.store import EventSource
from inspector.tui.safe_text import decode_raw, escape_markup, safe_raw, safe_text, visible
from inspector.tui.widgets.message_log import ARROWS, BADGES, format_latency

MAX_ITEMS = 50  # array items / object keys shown per level
MAX_STRING = 1_000  # characters of one string value
MAX_LINES = 2_000  # lines of pretty JSON before the rest is folded
MAX_DEPTH = 48  # nesting shown; deeper values are folded (and recursion stays bounded)
MAX_RAW = 256 * 1024  # raw bytes shown (the rest is saved with `s`)

KEY = "bold #87afff"
STRING = "#87d787"
NUMBER = "#5fd7d7"
LITERAL = "italic #d787ff"
FOLDED = "dim italic"


class _Pretty:
    """Highlighted, folded JSON as a ``Text``, with a global line budget."""

    def __init__(self) -> None:
        self.out = Text(end="", overflow="fold")
        self.lines = 0
        self.stopped = False

    def newline(self, indent: int) -> bool:
        self.lines += 1
        if self.lines >= MAX_LINES:
            if not self.stopped:
                self.out.append("\n… folded: the rest is longer than "
                                f"{MAX_LINES:,} lines (r: raw, s: save)", style=FOLDED)
            self.stopped = True
            return False
        self.out.append("\n" + "  " * indent)
        return True

    def scalar(self, value: Any) -> None:
        if isinstance(value, str):
            shown = value[:MAX_STRING]
            self.out.append(visible(json.dumps(shown, ensure_ascii=False)), style=STRING)
            if len(value) > MAX_STRING:
                self.out.append(f" … {len(value) - MAX_STRING:,} more chars", style=FOLDED)
        elif isinstance(value, bool) or value is None:
            self.out.append(json.dumps(value), style=LITERAL)
        elif isinstance(value, (int, float)):
            self.out.append(json.dumps(value), style=NUMBER)
        else:
            self.out.append(visible(repr(value)))

    def value(self, value: Any, indent: int) -> None:
        if self.stopped:
            return
        if indent >= MAX_DEPTH and isinstance(value, (dict, list)) and value:
            what = f"{{{len(value)} keys}}" if isinstance(value, dict) else f"[{len(value)} items]"
            self.out.append(f"{what} … nested deeper than {MAX_DEPTH} (r: raw)", style=FOLDED)
            return
        if isinstance(value, dict):
            if not value:
                self.out.append("{}")
                return
            self.out.append("{")
            for n, (key, item) in enumerate(value.items()):
                if n >= MAX_ITEMS:
                    if self.newline(indent + 1):
                        self.out.append(f"… {len(value) - MAX_ITEMS:,} more keys", style=FOLDED)
                    break
                if not self.newline(indent + 1):
                    return
                self.out.append(visible(json.dumps(str(key)[:MAX_STRING], ensure_ascii=False)),
                                style=KEY)
                self.out.append(": ")
                self.value(item, indent + 1)
                if n < len(value) - 1:
                    self.out.append(",")
            if self.newline(indent):
                self.out.append("}")
        elif isinstance(value, list):
            if not value:
                self.out.append("[]")
                return
            self.out.append("[")
            for n, item in enumerate(value):
                if n >= MAX_ITEMS:
                    if self.newline(indent + 1):
                        self.out.append(f"… {len(value) - MAX_ITEMS:,} more items", style=FOLDED)
                    break
                if not self.newline(indent + 1):
                    return
                self.value(item, indent + 1)
                if n < len(value) - 1:
                    self.out.append(",")
            if self.newline(indent):
                self.out.append("]")
        else:
            self.scalar(value)


def pretty_json(value: Any) -> Text:
    """``value`` as indented, highlighted JSON with big arrays and strings folded."""
    pretty = _Pretty()
    pretty.value(value, 0)
    return pretty.out


def _time(t: float) -> str:
    return datetime.fromtimestamp(t, UTC).strftime("%Y-%m-%d %H:%M:%S.%f")[:-3] + "Z"


class MessageDetail(VerticalScroll, can_focus=True):
    """The detail pane; call :meth:`show` with a source and an index."""

    DEFAULT_CSS = """
    MessageDetail { height: 1fr; background: $surface; padding: 0 1; }
    MessageDetail > #detail-header { margin-bottom: 1; }
    MessageDetail > .detail-section { color: $text-muted; text-style: bold; margin-top: 1; }
    MessageDetail > #detail-save { dock: bottom; display: none; height: 3; }
    MessageDetail > #detail-save.-open { display: block; }
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("r", "toggle_raw", "Raw/pretty"),
        Binding("p", "pair", "Pair"),
        Binding("c", "copy", "Copy"),
        Binding("s", "save", "Save"),
        Binding("escape", "cancel_save", "Cancel", show=False),
    ]

    class JumpTo(Message):
        """Show event ``index`` (the paired request/response)."""

        def __init__(self, index: int) -> None:
            super().__init__()
            self.index = index

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.source: EventSource | None = None
        self.index: int | None = None
        self.event: WireEvent | None = None
        self.raw_mode = False
        self.saved_path: Path | None = None

    def compose(self) -> ComposeResult:
        yield Static(Text("No event selected.", style="dim"), id="detail-header")
        yield Static("", id="detail-body")
        yield Static("", id="detail-extra")
        yield Input(placeholder="save payload to…", id="detail-save")

    def show(self, source: EventSource, index: int) -> None:
        """Show event ``index`` of ``source``."""
        self.source = source
        self.index = index
        self.event = source.event(index)
        self.raw_mode = self.event.message is None and self.event.error is not None
        self._render_all()
        self.scroll_home(animate=False)

    # -- rendering ---------------------------------------------------------------------

    def _render_all(self) -> None:
        self.query_one("#detail-header", Static).update(self._header())
        self.query_one("#detail-body", Static).update(self._body())
        self.query_one("#detail-extra", Static).update(self._extra())

    def _header(self) -> RenderableType:
        event, source, index = self.event, self.source, self.index
        assert event is not None and source is not None and index is not None
        kind = event.kind
        label, style = BADGES.get(kind, (kind.value.upper(), ""))
        head = Text(end="")
        head.append(f" {label} ", style=style)
        head.append(f"  #{event.seq or index + 1}  ", style="bold")
        head.append(f"{ARROWS.get(event.direction, '?')} {event.direction.value}/"
                    f"{event.channel.value}  ")
        method = source.method(index)
        if method:
            head.append(visible(method), style="bold #87d7ff")
        msg_id = event.msg_id
        if msg_id is not None:
            head.append(f"  id {visible(json.dumps(msg_id, ensure_ascii=False))}",
                        style="#d7af5f")
        first = source.time(0) if len(source) else event.time
        head.append("\n")
        info = head
        info.append(f"{_time(event.time)}  +{event.time - first:.3f}s  "
                    f"{len(event.raw):,} bytes", style="dim")
        latency = source.latency_ms(index)
        pair = source.find_response(index)
        if pair is None:
            pair = source.find_request(index)
        if latency is not None:
            info.append(f"  latency {format_latency(latency)}", style="bold")
        if pair is not None:
            other = "response" if kind is Kind.REQUEST else "request"
            info.append(f"  {other} #{source.seq(pair) or pair + 1} (p)")
        elif kind is Kind.REQUEST:
            info.append("  no response yet", style="italic")
        if event.error:
            info.append("\n")
            info.append(safe_text(event.error, "bold red", limit=500))
        return info

    def _body(self) -> RenderableType:
        event = self.event
        assert event is not None
        # One Text, not a Group: Textual measures a Group's trailing end="" Text as 0 lines.
        if self.raw_mode or event.message is None:
            title = "raw bytes (r: pretty)" if event.message is not None else "raw bytes"
            body = safe_raw(event.raw, limit=MAX_RAW)
        else:
            title, body = "message (r: raw)", pretty_json(event.message)
        out = Text(end="", overflow="fold")
        out.append(title + "\n", style="bold dim")
        out.append_text(body)
        return out

    def _extra(self) -> RenderableType:
        event = self.event
        assert event is not None
        out = Text(end="")
        if event.meta:
            out.append("\ntransport\n", style="bold dim")
            for key, value in list(event.meta.items())[:100]:
                shown = value if isinstance(value, str) else json.dumps(
                    value, ensure_ascii=False, default=str)
                out.append(safe_text(str(key), "bold", limit=80))
                out.append(": ")
                out.append(safe_text(shown, limit=2_000))
                out.append("\n")
        if event.findings:
            out.append("\nfindings\n", style="bold dim")
            for finding in event.findings:
                color = {"error": "red", "warning": "#ffaf00"}.get(finding.severity, "cyan")
                out.append("⚠ " if finding.severity != "info" else "ℹ ", style=color)
                out.append(safe_text(finding.code, f"bold {color}", limit=80))
                out.append(" ")
                out.append(safe_text(finding.message, limit=2_000))
                out.append("\n")
        return out

    # -- actions -----------------------------------------------------------------------

    def action_toggle_raw(self) -> None:
        if self.event is not None:
            self.raw_mode = not self.raw_mode
            self.query_one("#detail-body", Static).update(self._body())

    def action_pair(self) -> None:
        if self.source is None or self.index is None:
            return
        pair = self.source.find_response(self.index)
        if pair is None:
            pair = self.source.find_request(self.index)
        if pair is None:
            self.notify("This event has no paired request/response.", severity="warning")
            return
        self.post_message(self.JumpTo(pair))

    def payload_text(self) -> str:
        assert self.event is not None
        return decode_raw(self.event.raw)

    def action_copy(self) -> None:
        if self.event is None:
            return
        self.app.copy_to_clipboard(self.payload_text())
        self.notify(f"Copied {len(self.event.raw):,} bytes to the clipboard (OSC 52).")

    def action_save(self) -> None:
        if self.event is None:
            return
        box = self.query_one("#detail-save", Input)
        suffix = ".json" if self.event.message is not None else ".txt"
        box.value = f"event-{self.event.seq or (self.index or 0) + 1}{suffix}"
        box.add_class("-open")
        box.focus()

    def action_cancel_save(self) -> None:
        box = self.query_one("#detail-save", Input)
        if box.has_class("-open"):
            box.remove_class("-open")
            self.focus()

    @on(Input.Submitted, "#detail-save")
    async def _save(self, message: Input.Submitted) -> None:
        message.stop()
        if self.event is None or not message.value.strip():
            return
        path = Path(message.value.strip()).expanduser()
        if not path.is_absolute():
            path = Path.cwd() / path
        if path.exists():
            self.notify(f"{escape_markup(str(path))} exists; choose another name.",
                        severity="warning")
            return
        raw = self.event.raw
        try:
            await asyncio.to_thread(path.write_bytes, raw)
        except OSError as exc:
            self.notify(f"Could not save: {escape_markup(str(exc))}", severity="error")
            return
        message.input.remove_class("-open")
        self.focus()
        self.notify(f"Saved {len(raw):,} bytes to {escape_markup(str(path))}")
        self.saved_path = path
