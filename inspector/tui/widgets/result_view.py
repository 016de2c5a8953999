"""Results: structured content checked against the output schema first, then the content
blocks by type, resource contents, prompt messages, and errors - protocol errors apart
from tool ``isError`` results.

An outcome is formatted into a ``Document`` (``format_outcome``) and shown through the
line-virtualized ``DocumentView``: a big result (a 13 MB text) is formatted in a thread
worker and only the rows on screen are rendered, so the UI keeps answering keys. A big
result of many objects is measured and checked against its outputSchema in a child
process, and once shown is kept as its compact JSON (``result_check``).
"""

from __future__ import annotations

import base64
import binascii
import json
import re
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, ClassVar

from rich.console import RenderableType
from rich.panel import Panel
from rich.text import Text
from textual.binding import Binding, BindingType
from textual.message import Message

from inspector.forms.output import OutputCheck, OutputStatus, check_output, issue_path
from inspector.record.redact import Redactor
from inspector.safe_text import one_line, safe_text
from inspector.tui.document import Block, DocBuilder, Document, stack
from inspector.tui.json_size import json_length, rough_size
from inspector.tui.masked import redactors, value_mask
from inspector.tui.result_check import many_containers, measure
from inspector.tui.result_files import file_name, save_files_dialog
from inspector.tui.result_keep import result_json, save_choices
from inspector.tui.widgets.document_view import (
    THREAD_BYTES,
    DocumentView,
    Formatter,
    release_memory,
)
from inspector.tui.widgets.message_detail import pretty_json
from inspector.wire.folded import FoldedResult, fold_frame, total

PRETTY_LIMIT = 1 << 20  # a JSON text up to this size is pretty-printed; a bigger one literal
_JSON_START = re.compile(r"\s*[\[{]")


CANCELLED_HINT = (
    "notifications/cancelled was sent; an answer that still comes is marked late in the "
    "In flight tab (f)"
)


@dataclass
class Outcome:
    """What a call produced, for display: a result, or an error, with timing."""

    title: str
    result: Any = None
    error: dict[str, Any] | None = None  # {"code", "message", "data"} for protocol errors
    latency_ms: float | None = None
    size: int | None = None  # characters of the result as JSON (worked out when shown)
    output_schema: dict[str, Any] | None = None
    note: str = ""  # what happened around the call (e.g. the session expired meanwhile)
    cancelled: bool = False  # the user cancelled it: no answer (and no error) came
    # the client gave up without an answer (timed out, connection lost): what happened, in
    # the engine's words; not a JSON-RPC error, none came over the wire
    no_answer: str = ""
    uri: str = ""  # the resource a read showed (a subscribe to it keeps it on screen)
    # a line under the title: what happened since, with its style ("subscribed to …")
    status: str = ""
    status_style: str = "green"
    # the call as a collection step makes it again: (verb, target, arguments) - ``k``
    # keeps it as a step (None: nothing a step can repeat, such as a subscribe)
    step: tuple[str, str, dict[str, Any] | None] | None = None
    # a big result of many objects, once shown, is kept as its compact JSON (~1x its
    # size) instead of a tree of Python objects (~3.7x): ``value`` parses it again
    parked: bytes | None = field(default=None, repr=False)
    # the response's frame, when the engine offered it (a big one, ``take_frame``): parked
    # as it is (its ``result``), the bytes the log holds anyway, not a compact JSON made
    frame: bytes | None = field(default=None, repr=False)

    def value_kept(self) -> bool:
        """A result is held (parsed or parked)."""
        return self.result is not None or self.parked is not None

    def value(self) -> Any:
        """The whole result, parsed again if it was parked or came folded (what ``c``,
        ``s`` and ``k`` act on)."""
        if self.result is None and self.parked is not None:
            parsed = json.loads(self.parked)
            return parsed["result"] if self.parked is self.frame else parsed
        if isinstance(self.result, FoldedResult):
            return self.result.whole()
        return self.result

    def shown_value(self) -> Any:
        """The result to show: folded when it is big and came folded (the whole of it is
        never parsed for the view), parsed again folded when it was parked as its frame."""
        if self.result is None and self.parked is not None and self.parked is self.frame:
            return fold_frame(self.parked)["result"]
        return self.value() if self.result is None else self.result

    def park(self, blob: bytes) -> None:
        """Keep the result as ``blob`` (its compact JSON) and let the tree go."""
        self.parked, self.result = blob, None


@dataclass
class Formatted:
    """An outcome ready to show: the document and what ``s`` and ``o`` act on.

    A quick one (``complete`` False) leaves out what a big result takes long to work
    out - its size and the outputSchema check - in sections of their own that
    ``complete_outcome`` replaces."""

    document: Document
    binaries: list[tuple[str, bytes]] = field(default_factory=list)  # (file name, bytes)
    links: list[str] = field(default_factory=list)
    complete: bool = True
    header: int = 0  # the section of the title line
    check: int | None = None  # the section of the outputSchema check
    blob: bytes | None = field(default=None, repr=False)  # the result to park, if worked out


def _decode_b64(data: Any) -> bytes | None:
    if not isinstance(data, str):
        return None
    try:
        return base64.b64decode(data, validate=True)
    except (binascii.Error, ValueError):
        return None


class _OutcomeWriter:
    """Writes one outcome into a ``DocBuilder``, collecting binaries and links."""

    def __init__(self, quick: bool) -> None:
        self.doc = DocBuilder()
        self.out = Formatted(Document(), complete=not quick)

    def text(self, text: str) -> None:
        """Text that is JSON is pretty-printed; anything else (or big) shown literally."""
        # told without stripping: a copy of a text that starts with blanks, most of them
        stripped = text.strip() if len(text) <= PRETTY_LIMIT and _JSON_START.match(text) else ""
        if stripped[:1] in ("{", "["):
            try:
                self.doc.add_rich(pretty_json(json.loads(stripped)))
                return
            except (json.JSONDecodeError, RecursionError):
                pass
        self.doc.add_text(text)

    def block(self, block: Any, index: int) -> None:
        if not isinstance(block, dict):
            self.doc.add_rich(pretty_json(block))
            return
        kind = block.get("type")
        if kind == "text":
            self.text(str(block.get("text", "")))
        elif kind in ("image", "audio"):
            raw = _decode_b64(block.get("data"))
            mime = str(block.get("mimeType", "?"))
            if raw is None:
                self.doc.add(Text(f"{kind} {mime}: data is not valid base64", style="red"))
                return
            self.out.binaries.append((file_name(f"{kind}-{index}", mime), raw))
            self.doc.add(
                Text.assemble(
                    (f"{kind} ", "bold magenta"),
                    (one_line(mime, 60), "magenta"),
                    f"  {len(raw):,} bytes  ",
                    ("(s saves it)", "dim"),
                )
            )
        elif kind == "resource_link":
            uri = str(block.get("uri", ""))
            self.out.links.append(uri)
            self.doc.add(
                Text.assemble(
                    ("link ", "bold cyan"),
                    (one_line(uri, 200), "underline cyan"),
                    f"  {one_line(str(block.get('name', '')), 60)}",
                    (f"  (o opens link {len(self.out.links)})", "dim"),
                )
            )
        elif kind == "resource":
            self.contents(block.get("resource"), embedded=True)
        else:
            self.doc.add_rich(pretty_json(block))

    def contents(self, contents: Any, embedded: bool = False) -> None:
        if not isinstance(contents, dict):
            self.doc.add_rich(pretty_json(contents))
            return
        uri = one_line(str(contents.get("uri", "")), 200)
        mime = one_line(str(contents.get("mimeType", "")), 60)
        self.doc.add(
            Text.assemble(
                ("embedded " if embedded else "", "dim"),
                ("resource ", "bold cyan"),
                (uri, "cyan"),
                f"  {mime}",
            )
        )
        if "text" in contents:
            self.text(str(contents["text"]))
        elif "blob" in contents:
            raw = _decode_b64(contents["blob"])
            if raw is None:
                self.doc.add(Text("blob is not valid base64", style="red"))
            else:
                name = Path(str(contents.get("uri", "")).split("?")[0]).name or "blob"
                self.out.binaries.append((file_name(name, mime), raw))
                self.doc.add(Text(f"blob {len(raw):,} bytes (s saves it)", style="magenta"))
        else:
            self.doc.add_rich(pretty_json(contents))

    def more(self, items: Any, what: str) -> None:
        """How many ``what`` a big result's folded list left out (``inspector.wire.folded``)."""
        if isinstance(items, list) and total(items) > len(items):
            left = total(items) - len(items)
            self.doc.add(
                Text(f"… {left:,} more {what} (c copies all of it, s saves it)", "dim italic")
            )

    def result(self, result: dict[str, Any], schema: dict[str, Any] | None) -> None:
        if isinstance(result.get("description"), str):
            self.doc.add(safe_text(result["description"], "italic", multiline=True))
        if result.get("isError"):
            self.doc.add(Text("tool reported an error (isError: true)", style="bold red"))
        if "structuredContent" in result:  # first: it is what a program reads
            self.doc.add(Text("structuredContent", style="bold"))
            self.doc.add_rich(pretty_json(result["structuredContent"]))
            if schema:
                self.out.check = self.doc.section(
                    *_output_lines(check_output(schema, result))
                    if self.out.complete
                    else [Text("checking against the outputSchema…", style="dim italic")]
                )
        elif schema and not result.get("isError"):
            self.doc.add(Text("outputSchema declared but no structuredContent", style="yellow"))
        if "structuredContent" in result and result.get("content"):
            self.doc.add(Text("content", style="bold"))
        for i, block in enumerate(result.get("content") or []):
            self.block(block, i)
        self.more(result.get("content"), "content blocks")
        for contents in result.get("contents") or []:
            self.contents(contents)
        self.more(result.get("contents"), "contents")
        for n, message in enumerate(result.get("messages") or []):
            if isinstance(message, dict):
                role = one_line(str(message.get("role", "?")), 20)
                self.doc.add(Text(f"{role}:", style="bold blue"))
                self.block(message.get("content"), n)
        self.more(result.get("messages"), "messages")
        known = {
            "content",
            "structuredContent",
            "isError",
            "contents",
            "messages",
            "description",
            "_meta",
        }
        rest = {k: v for k, v in result.items() if k not in known}
        if rest:
            self.doc.add_rich(pretty_json(rest))


def format_outcome(outcome: Outcome, *, quick: bool = False) -> Formatted:
    """The document for ``outcome`` (runs on any thread; a big one in a worker).

    ``quick`` leaves the size and the outputSchema check for ``complete_outcome``."""
    result = outcome.shown_value()
    if outcome.size is None and result is not None and not quick:
        outcome.size = json_length(result)
    writer = _OutcomeWriter(quick)
    doc = writer.doc
    writer.out.header = doc.section(*_header(outcome))
    if outcome.note:
        doc.add(safe_text(outcome.note, "bold yellow", multiline=True))
    if outcome.cancelled:
        doc.add(Text("cancelled by you", style="bold yellow"), Text(CANCELLED_HINT, style="dim"))
    elif outcome.no_answer:
        doc.add(
            Text("no answer from the server", style="bold yellow"),
            safe_text(outcome.no_answer, "dim", multiline=True),
        )
    elif outcome.error is not None:
        doc.add(_error_panel(outcome.error))
    elif isinstance(result, dict):
        writer.result(result, outcome.output_schema)
    else:
        doc.add_rich(pretty_json(result))
    writer.out.document = doc.build()
    return writer.out


def complete_outcome(outcome: Outcome, quick: Formatted) -> Formatted:
    """``quick`` with the size and the outputSchema check worked out (the rest is kept);
    a result of many objects is measured and checked in a child process (``measure``)."""
    result = outcome.shown_value()
    schema = outcome.output_schema if quick.check is not None else None
    measured = measure(result, schema, outcome.frame)
    if outcome.size is None and result is not None:
        outcome.size = measured.size
    sections = list(quick.document.sections)
    sections[quick.header] = Block(stack(*_header(outcome)))
    if quick.check is not None and isinstance(result, dict):
        sections[quick.check] = Block(stack(*_output_lines(measured.check)))
    return replace(quick, document=Document(sections), complete=True, blob=measured.blob)


def _header(outcome: Outcome) -> list[RenderableType]:
    """The title line, and the status line under it when there is one."""
    status = [safe_text(outcome.status, outcome.status_style)] if outcome.status else []
    return [_title(outcome), *status]


def _title(outcome: Outcome) -> Text:
    meta = []
    if outcome.latency_ms is not None:
        meta.append(f"{outcome.latency_ms:,.0f} ms")
    if outcome.size is not None:
        meta.append(f"{outcome.size:,} bytes")
    elif outcome.result is not None:
        meta.append("size…")
    return Text.assemble((one_line(outcome.title, 80), "bold"), "  ", (" · ".join(meta), "dim"))


def redacted(outcome: Outcome, redactor: Redactor | None) -> Outcome:
    """``outcome`` as shown: a result or error echoing a secret the session knows (a token,
    a header's value) redacted, as the session file and the toasts have it. The same
    outcome when nothing is to be redacted (no copy); runs with the formatting."""
    if redactor is None or not redactor.secrets:
        return outcome
    result = outcome.shown_value()
    shown, error = redactor.parsed(result), redactor.parsed(outcome.error)
    no_answer = redactor.text(outcome.no_answer)
    if shown is result and error is outcome.error and no_answer == outcome.no_answer:
        return outcome
    return replace(outcome, result=shown, parked=None, error=error, no_answer=no_answer, size=None)


def render_outcome(outcome: Outcome) -> Document:
    """The document alone (a Rich renderable: tests print it)."""
    return format_outcome(outcome).document


def _error_panel(err: dict[str, Any]) -> RenderableType:
    return Panel(
        stack(
            Text.assemble(
                ("protocol error ", "bold red"),
                (str(err.get("code")), "red"),
                "  ",
                safe_text(str(err.get("message", "")), multiline=True),
            ),
            *([pretty_json(err["data"])] if err.get("data") is not None else []),
        ),
        border_style="red",
        title="JSON-RPC error",
        title_align="left",
    )


def _output_lines(check: OutputCheck) -> list[RenderableType]:
    """The outputSchema check, as the result view shows it."""
    if check.status is OutputStatus.MATCHES:
        return [Text("✓ matches outputSchema", style="green")]
    if check.status is OutputStatus.MISSING:
        return [Text("outputSchema declared but no structuredContent", style="yellow")]
    if check.status is not OutputStatus.MISMATCH:
        return []
    lines: list[RenderableType] = [
        Text(f"✗ {len(check.issues)} mismatch(es) with outputSchema:", style="bold red")
    ]
    for issue in check.issues:
        lines.append(Text(f"  {issue_path(issue)}: {one_line(issue.message, 200)}", style="red"))
    return lines


class ResultView(DocumentView):
    """Shows the latest outcome; ``s`` saves what it holds (binary blocks, JSON, text),
    ``c`` copies it, ``o`` follows a resource link, PgUp/PgDn/Home/End scroll."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("s", "save", "Save"),
        Binding("c", "copy", "Copy"),
        Binding("o", "open_link", "Open link"),
        Binding("k", "keep", "Keep as check"),
        # nothing to save, copy or open in what is shown: the keys leave the footer, and
        # these hidden ones still say why (``o`` would otherwise go on to the app's Server
        # log, ``c`` to the detail's copy)
        Binding("s", "save('none')", "Save", show=False),
        Binding("c", "copy('none')", "Copy", show=False),
        Binding("o", "open_link('none')", "Open link", show=False),
    ]

    @dataclass
    class OpenLink(Message):
        uri: str

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.outcome: Outcome | None = None
        self._shown = Formatted(Document())
        self._offered = (False, False, False)  # what the footer's s, c and o were set for
        self.formatter: Formatter[Formatted] = Formatter(
            self, self._formatted, self._failed, group="result-format"
        )

    @property
    def shown(self) -> Formatted:
        """The outcome as shown: its document, and what ``s`` and ``o`` act on."""
        return self._shown

    @shown.setter
    def shown(self, formatted: Formatted) -> None:
        self._shown = formatted
        offers = self._offers()  # the outcome may have changed since, too
        if offers != self._offered:
            self._offered = offers
            self.refresh_bindings()  # s, c and o in the footer follow what is shown

    def _held(self) -> bool:
        """An answer is shown (a result or a protocol error): ``c`` copies it."""
        outcome = self.outcome
        if outcome is None or outcome.cancelled or outcome.no_answer:
            return False
        return outcome.error is not None or outcome.value_kept()

    def _offers(self) -> tuple[bool, bool, bool]:
        """What ``s``, ``c`` and ``o`` act on in what is shown."""
        held = self._held()
        return (held or bool(self._shown.binaries), held, bool(self._shown.links))

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        keys = ("save", "copy", "open_link")
        if action in keys:  # the footer's binding, or the hidden one
            there = self._offers()[keys.index(action)]
            return there == (parameters != ("none",))
        return super().check_action(action, parameters)

    @property
    def formatting(self) -> bool:
        """The outcome is still being formatted in the background (not shown yet)."""
        return self.formatter.pending and self.document is not self.shown.document

    @property
    def complete(self) -> bool:
        """The outcome is shown with its size and outputSchema check."""
        return self.outcome is not None and self.shown.complete and not self.formatter.pending

    def show(self, outcome: Outcome) -> None:
        """Show ``outcome``; a big one is formatted off the UI thread, first without its
        size and outputSchema check (they follow), so its first screen comes early."""
        self.outcome = outcome
        self.shown = Formatted(Document())
        size = outcome.size or rough_size([outcome.result, outcome.error], THREAD_BYTES)
        if outcome.parked is not None:
            size = max(size, len(outcome.parked))
        # folded: its size and check are the whole frame's (``measure``), never the part's
        quick = size > THREAD_BYTES or isinstance(outcome.result, FoldedResult)
        redactor = getattr(self.app, "redactor", None)  # the session file's and toasts'

        def work() -> Formatted:
            result = outcome.result
            if result is not None and not (
                isinstance(result, FoldedResult) or many_containers(result)
            ):
                # kept as it is, not parked: the log's copy of the frame is enough (one
                # it copied into its chunk was held twice while this was formatted)
                outcome.frame = None
            return format_outcome(redacted(outcome, redactor), quick=quick)

        if not self.formatter.submit(work, size):
            note = f"more than {THREAD_BYTES:,}" if outcome.size is None else f"{size:,}"
            self.show_message(f"{one_line(outcome.title, 80)}: formatting {note} bytes…", "yellow")

    def set_status(self, text: str, style: str = "green") -> bool:
        """Say ``text`` under the title of the outcome shown, which stays as it is (a
        subscribe to the resource read); False when no outcome is shown."""
        outcome = self.outcome
        if outcome is None:
            return False
        outcome.status, outcome.status_style = text, style
        if self.document is self.shown.document and self.shown.document.sections:
            sections = list(self.shown.document.sections)
            sections[self.shown.header] = Block(stack(*_header(outcome)))
            self.shown = replace(self.shown, document=Document(sections))
            self.show_document(self.shown.document, home=False)
        # still being formatted: the header is made from the outcome, status included
        return True

    def show_text(self, text: str, style: str = "dim") -> None:
        self.formatter.cancel()
        self.outcome = None
        self.shown = Formatted(Document())
        self.show_message(text, style)

    def _formatted(self, formatted: Formatted) -> None:
        first = not self.shown.document.sections
        self.shown = formatted
        self.show_document(formatted.document, home=first)
        outcome = self.outcome
        if not formatted.complete and outcome is not None:
            self.formatter.submit(lambda: complete_outcome(outcome, formatted), THREAD_BYTES + 1)
        elif outcome is not None:
            if formatted.blob is not None:
                outcome.park(formatted.blob)  # shown: what is left of the tree is the bytes
                self.shown = replace(formatted, blob=None)
                release_memory()
            if outcome.parked is not outcome.frame:
                # not what is kept: a frame the log copied into its chunk (up to 4 MB) would
                # be held twice (a 1 MB text shown at 2.2x instead of 1.2x)
                outcome.frame = None

    def _failed(self, message: str) -> None:
        self.show_message(message, "bold red")

    def action_save(self, nothing: str = "") -> None:
        mask = value_mask(redactors(self.app))  # as shown: the session's secrets out
        choices = save_choices(self.outcome, self.shown.binaries, mask) if self.outcome else []
        if not choices:
            self.notify("nothing to save: no result is shown", severity="warning")
            return
        save_files_dialog(self.app, choices)

    def action_copy(self, nothing: str = "") -> None:
        """The result (or the error) as JSON to the clipboard (OSC 52), made in a thread
        worker: a big result's JSON takes a while."""
        outcome = self.outcome
        if outcome is None or not self._held():
            self.notify("nothing to copy: no result is shown", severity="warning")
            return
        app = self.app
        mask = value_mask(redactors(app))  # as shown: the session's secrets out

        def copy() -> None:
            text = result_json(mask(outcome.value()), mask(outcome.error)) or ""
            app.call_from_thread(app.copy_to_clipboard, text)
            app.call_from_thread(
                app.notify, f"Copied the result as JSON, {len(text):,} characters (OSC 52)."
            )

        self.run_worker(copy, thread=True, group="result-copy", exit_on_error=False)

    def action_keep(self) -> None:
        from inspector.tui.collection_keep import keep_dialog

        outcome = self.outcome
        if outcome is None or outcome.step is None or outcome.cancelled or outcome.no_answer:
            self.notify("no call answered here to keep as a check", severity="warning")
            return
        keep_dialog(self.app, outcome.step, outcome.value(), outcome.error)

    def action_open_link(self, nothing: str = "") -> None:
        if not self.shown.links:
            self.notify("no resource link in this result", severity="warning")
            return
        self.post_message(self.OpenLink(self.shown.links[0]))
