"""Detail of one wire event: header, pretty JSON (folded), raw bytes, meta, findings.

Keys: ``v`` raw/pretty, ``p`` jump to the paired request/response (posts
``MessageDetail.JumpTo``), ``c`` copy the payload (OSC 52), ``s`` save the payload
to a file. Everything the server sent is shown through ``safe_text``, and with the
session's secrets masked as the session file has them (``inspector.tui.masked``): the
views, the copy and the saved file alike.

The event is shown as a ``Document`` in a line-virtualized ``DocumentView``; a frame
bigger than ``THREAD_BYTES`` is parsed and formatted by the view's ``Formatter`` in a
thread worker ("formatting…" meanwhile), the same mechanism as the result view's.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, ClassVar

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.message import Message
from textual.widget import Widget
from textual.widgets import Input

from inspector.logstore.store import EventSource
from inspector.record.format import as_shown
from inspector.record.redact import Redactor
from inspector.safe_text import decode_raw, escape_markup, safe_text, visible
from inspector.tui.document import DocBuilder, Document
from inspector.tui.masked import as_is, redactors, text_mask
from inspector.tui.result_files import ask_working_directory, default_folder, write_private
from inspector.tui.widgets.document_view import THREAD_BYTES, DocumentView, Formatter
from inspector.tui.widgets.log_row import ARROWS, BADGES, format_latency
from inspector.tui.widgets.steady_input import SteadyInput
from inspector.wire.events import Kind, WireEvent
from inspector.wire.folded import total

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
                self.out.append(
                    f"\n… folded: the rest is longer than {MAX_LINES:,} lines (v: raw, s: save)",
                    style=FOLDED,
                )
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
            count = total(value)
            what = f"{{{count} keys}}" if isinstance(value, dict) else f"[{count} items]"
            self.out.append(f"{what} … nested deeper than {MAX_DEPTH} (v: raw)", style=FOLDED)
            return
        if isinstance(value, dict):
            self.members(value, indent, "{", "}", "keys")
        elif isinstance(value, list):
            self.members(value, indent, "[", "]", "items")
        else:
            self.scalar(value)

    def members(
        self, value: dict[Any, Any] | list[Any], indent: int, start: str, end: str, what: str
    ) -> None:
        """An object's members or an array's items, at most ``MAX_ITEMS``; the rest
        counted (a folded one's, ``inspector.wire.folded``, as it came on the wire)."""
        count = total(value)
        if not count:
            self.out.append(start + end)
            return
        self.out.append(start)
        items = value.items() if isinstance(value, dict) else enumerate(value)
        for n, (key, item) in enumerate(items):
            if n >= MAX_ITEMS:
                break
            if not self.newline(indent + 1):
                return
            if isinstance(value, dict):
                self.out.append(
                    visible(json.dumps(str(key)[:MAX_STRING], ensure_ascii=False)), style=KEY
                )
                self.out.append(": ")
            self.value(item, indent + 1)
            if n < count - 1:
                self.out.append(",")
        shown = min(len(value), MAX_ITEMS)
        if count > shown and self.newline(indent + 1):
            self.out.append(f"… {count - shown:,} more {what}", style=FOLDED)
        if self.newline(indent):
            self.out.append(end)


def pretty_json(value: Any) -> Text:
    """``value`` as indented, highlighted JSON with big arrays and strings folded."""
    pretty = _Pretty()
    pretty.value(value, 0)
    return pretty.out


def _time(t: float) -> str:
    return datetime.fromtimestamp(t, UTC).strftime("%Y-%m-%d %H:%M:%S.%f")[:-3] + "Z"


def starts_raw(event: WireEvent) -> bool:
    """A frame that did not parse opens on its raw bytes."""
    return event.message is None and event.error is not None


def render_header(
    event: WireEvent, source: EventSource, index: int, mask: Callable[[str], str] = as_is
) -> Text:
    """``mask``: the session's secrets out of the method (read from ``source``)."""
    kind = event.kind
    label, style = BADGES.get(kind, (kind.value.upper(), ""))
    head = Text(end="")
    head.append(f" {label} ", style=style)
    head.append(f"  #{event.seq or index + 1}  ", style="bold")
    head.append(
        f"{ARROWS.get(event.direction, '?')} {event.direction.value}/{event.channel.value}  "
    )
    method = source.method(index)
    if method:
        head.append(visible(mask(method)), style="bold #87d7ff")
    msg_id = event.msg_id
    if msg_id is not None:
        head.append(f"  id {visible(json.dumps(msg_id, ensure_ascii=False))}", style="#d7af5f")
    first = source.time(0) if len(source) else event.time
    head.append("\n")
    info = head
    info.append(
        f"{_time(event.time)}  +{event.time - first:.3f}s  {len(event.raw):,} bytes", style="dim"
    )
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


def add_body(doc: DocBuilder, event: WireEvent, raw_mode: bool) -> None:
    """The frame: pretty JSON, or its raw bytes (a big frame's lines wrapped lazily)."""
    if raw_mode or event.message is None:
        title = "raw bytes (v: pretty)" if event.message is not None else "raw bytes"
        doc.add(Text(title, style="bold dim"))
        doc.add_text(decode_raw(event.raw[:MAX_RAW]))
        if len(event.raw) > MAX_RAW:
            doc.add(Text(f"… {len(event.raw) - MAX_RAW:,} more bytes (s: save)", style=FOLDED))
    else:
        doc.add(Text("message (v: raw)", style="bold dim"))
        doc.add_rich(pretty_json(event.message))


def detail_document(
    event: WireEvent,
    source: EventSource,
    index: int,
    raw_mode: bool,
    mask: Callable[[str], str] = as_is,
) -> Document:
    """Header, body and transport/findings of one event (``as_shown`` already: ``mask``
    is for what ``source`` says of it), as one document."""
    doc = DocBuilder()
    doc.add(render_header(event, source, index, mask), Text(""))
    add_body(doc, event, raw_mode)
    extra = render_extra(event)
    if extra.plain:
        doc.add(extra)
    return doc.build()


def render_extra(event: WireEvent) -> Text:
    out = Text(end="")
    if event.meta:
        out.append("\ntransport\n", style="bold dim")
        for key, value in list(event.meta.items())[:100]:
            shown = (
                value
                if isinstance(value, str)
                else json.dumps(value, ensure_ascii=False, default=str)
            )
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


@dataclass(frozen=True, slots=True)
class _Shown:
    """Everything the pane shows for one event, built on either thread."""

    event: WireEvent
    raw_mode: bool
    document: Document
    slim: bool = False  # ``event.message`` is the envelope alone (``_envelope``)

    @classmethod
    def build(
        cls,
        source: EventSource,
        index: int,
        raw_mode: bool | None = None,
        masks: tuple[Redactor, ...] = (),
    ) -> _Shown:
        """The event's document, with the session's secrets masked (``masks``: as the
        session file has it; the event kept is that one, so save and copy write it); a big
        frame's parsed message is not kept once shown (the document shows a bounded part
        of it; the result pane holds the result already, and a 12 MB structured one is
        over 3x its size as a tree), only its envelope: ``v`` shows the raw bytes at once
        and parses again to show the JSON."""
        event = as_shown(source.event(index), masks)
        raw_mode = starts_raw(event) if raw_mode is None else raw_mode
        document = detail_document(event, source, index, raw_mode, text_mask(masks))
        message = event.message
        if isinstance(message, dict) and len(event.raw) > THREAD_BYTES:
            return cls(replace(event, message=_envelope(message)), raw_mode, document, True)
        return cls(event, raw_mode, document)


BODY_KEYS = ("params", "result", "error")


def _envelope(message: dict[str, Any]) -> dict[str, Any]:
    """``message`` with its body members (``BODY_KEYS``) as null: its kind, method and id
    stay what they are (the header is made from them)."""
    return {key: None if key in BODY_KEYS else value for key, value in message.items()}


class MessageDetail(Vertical):
    """The detail pane; call :meth:`show` with a source and an index."""

    DEFAULT_CSS = """
    MessageDetail { height: 1fr; background: $surface; }
    MessageDetail > #detail-doc { height: 1fr; background: $surface; padding: 0 1; }
    MessageDetail > #detail-save { dock: bottom; display: none; height: 3; }
    MessageDetail > #detail-save.-open { display: block; }
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        # v, not r: r is Reconnect in the log, where the detail's keys work too
        Binding("v", "toggle_raw", "Raw/pretty"),
        Binding("p", "pair", "Pair"),
        Binding("c", "copy", "Copy"),
        Binding("s", "save", "Save"),
        Binding("escape", "cancel_save", "Cancel", show=False),
    ]

    @dataclass
    class JumpTo(Message):
        """Show event ``index`` (the paired request/response)."""

        index: int

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.source: EventSource | None = None
        self.index: int | None = None
        self.event: WireEvent | None = None
        self.slim = False  # ``event.message`` is a big frame's envelope alone
        self._toggled: int | None = None  # ``v`` on a big frame: its document is rebuilt
        self.masks: tuple[Redactor, ...] = ()  # what the event shown was masked with
        self.raw_mode = False
        self.saved_path: Path | None = None
        self._save_from: Widget | None = None
        self.view = DocumentView(id="detail-doc")
        self.formatter: Formatter[_Shown] = Formatter(
            self, self._apply, self._failed, group="detail-format"
        )

    def compose(self) -> ComposeResult:
        yield self.view
        yield SteadyInput(placeholder="save payload to…", id="detail-save")

    def on_mount(self) -> None:
        self.view.show_message("No event selected.")

    def focus(self, scroll_visible: bool = True) -> MessageDetail:
        """Focus the document (the container itself takes no focus)."""
        self.view.focus(scroll_visible)
        return self

    @property
    def formatting(self) -> bool:
        """The selected event is still being parsed in the background."""
        return self.event is None and self.index is not None and self.formatter.pending

    def show(self, source: EventSource, index: int) -> None:
        """Show event ``index`` of ``source`` (a big frame is formatted in a worker)."""
        self.source = source
        self.index = index
        self._toggled = None
        self.masks = masks = redactors(self.app)
        size = source.stored_size(index)
        if not self.formatter.submit(lambda: _Shown.build(source, index, None, masks), size):
            self.event = None  # actions wait for the parsed event
            head = Text(f"#{source.seq(index) or index + 1}  ", style="bold", end="")
            head.append(f"{size:,} bytes", style="dim")
            self.view.show_document(
                Document.of(head, Text(""), Text("formatting…", style="italic dim"))
            )

    # -- rendering ---------------------------------------------------------------------

    def _apply(self, shown: _Shown) -> None:
        self.event = shown.event
        self.slim = shown.slim
        self.raw_mode = shown.raw_mode
        self.view.show_document(shown.document, home=self._toggled is None)
        self._toggled = None

    def _failed(self, message: str) -> None:
        self.view.show_message(message, "bold red")

    # -- actions -----------------------------------------------------------------------

    def action_toggle_raw(self) -> None:
        if self.event is None or self.source is None or self.index is None:
            return
        if self.slim and self.raw_mode:  # the JSON was let go of: parsed again
            source, index, raw_mode, masks = self.source, self.index, False, self.masks
            self._toggled = index
            self.formatter.submit(
                lambda: _Shown.build(source, index, raw_mode, masks), source.stored_size(index)
            )
            return
        self.raw_mode = not self.raw_mode
        document = detail_document(
            self.event, self.source, self.index, self.raw_mode, text_mask(self.masks)
        )
        self.view.show_document(document, home=False)

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
        # where the keys go back to once the name is given (or Esc): the log's rows
        self._save_from = self.app.focused
        box.focus()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        # no save box open: Esc goes on to the app (it used to stop here, doing nothing)
        if action == "cancel_save":
            return self.query_one("#detail-save", Input).has_class("-open")
        return True

    def action_cancel_save(self) -> None:
        self._close_save()

    def _close_save(self) -> None:
        self.query_one("#detail-save", Input).remove_class("-open")
        back = self._save_from
        self._save_from = None
        (back if back is not None and back.is_attached else self).focus()

    @on(Input.Submitted, "#detail-save")
    async def _save(self, message: Input.Submitted) -> None:
        """A name alone goes in the files folder (``default_folder``), as results do; the
        working directory (a user's checkout) is asked about first; 0600, never over a
        file."""
        message.stop()
        if self.event is None or not message.value.strip():
            return
        path = Path(message.value.strip()).expanduser()
        if not path.is_absolute() and path.parent == Path():
            path = default_folder() / path
        path = Path.cwd() / path if not path.is_absolute() else path
        if path.exists():
            self.notify(
                f"{escape_markup(str(path))} exists; choose another name.", severity="warning"
            )
            return
        raw = self.event.raw
        ask_working_directory(
            self.app,
            path.parent,
            lambda: self.run_worker(self._write(path, raw), group="detail-save"),
        )

    async def _write(self, path: Path, raw: bytes) -> None:
        try:
            await asyncio.to_thread(write_private, path, raw)
        except OSError as exc:
            self.notify(f"Could not save: {escape_markup(str(exc))}", severity="error")
            return
        self._close_save()
        self.notify(f"Saved {len(raw):,} bytes to {escape_markup(str(path))}")
        self.saved_path = path
