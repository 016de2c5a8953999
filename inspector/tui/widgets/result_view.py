"""Results: tool content blocks by type, structured content checked against the output
schema, resource contents, prompt messages, and errors - protocol errors apart from
tool ``isError`` results."""

from __future__ import annotations

import base64
import binascii
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar

from rich.console import Group, RenderableType
from rich.panel import Panel
from rich.text import Text
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.message import Message
from textual.widgets import Static

from inspector.tui.safe_text import one_line, safe_text
from inspector.tui.widgets.message_detail import pretty_json

MIME_EXT = {"image/png": ".png", "image/jpeg": ".jpg", "image/gif": ".gif",
            "image/webp": ".webp", "audio/wav": ".wav", "audio/x-wav": ".wav",
            "audio/mpeg": ".mp3", "audio/ogg": ".ogg", "application/pdf": ".pdf"}


@dataclass
class Outcome:
    """What a call produced, for display: a result, or an error, with timing."""

    title: str
    result: Any = None
    error: dict[str, Any] | None = None  # {"code", "message", "data"} for protocol errors
    latency_ms: float | None = None
    size: int | None = None
    output_schema: dict[str, Any] | None = None
    binaries: list[tuple[str, bytes]] = field(default_factory=list)  # (suggested name, bytes)
    links: list[str] = field(default_factory=list)
    note: str = ""  # what happened around the call (e.g. the session expired meanwhile)


def stack(*parts: RenderableType) -> Group:
    """A Group whose Text parts each end their line (``safe_text`` makes ``end=""``)."""
    for part in parts:
        if isinstance(part, Text):
            part.end = "\n"
    return Group(*parts)


def _json_text(text: str) -> RenderableType:
    """Text that is JSON is pretty-printed; anything else shown literally."""
    stripped = text.strip()
    if stripped[:1] in "{[":
        try:
            return pretty_json(json.loads(stripped))
        except (json.JSONDecodeError, RecursionError):
            pass
    return safe_text(text, multiline=True)


def _decode_b64(data: Any) -> bytes | None:
    if not isinstance(data, str):
        return None
    try:
        return base64.b64decode(data, validate=True)
    except (binascii.Error, ValueError):
        return None


def render_block(block: Any, outcome: Outcome, index: int) -> RenderableType:
    if not isinstance(block, dict):
        return pretty_json(block)
    kind = block.get("type")
    if kind == "text":
        return _json_text(str(block.get("text", "")))
    if kind in ("image", "audio"):
        raw = _decode_b64(block.get("data"))
        mime = str(block.get("mimeType", "?"))
        if raw is None:
            return Text(f"{kind} {mime}: data is not valid base64", style="red")
        name = f"{kind}-{index}{MIME_EXT.get(mime, '.bin')}"
        outcome.binaries.append((name, raw))
        return Text.assemble((f"{kind} ", "bold magenta"), (one_line(mime, 60), "magenta"),
                             f"  {len(raw):,} bytes  ", ("(s saves it)", "dim"))
    if kind == "resource_link":
        uri = str(block.get("uri", ""))
        outcome.links.append(uri)
        return Text.assemble(("link ", "bold cyan"), (one_line(uri, 200), "underline cyan"),
                             f"  {one_line(str(block.get('name', '')), 60)}",
                             (f"  (o opens link {len(outcome.links)})", "dim"))
    if kind == "resource":
        return render_contents(block.get("resource"), outcome, embedded=True)
    return pretty_json(block)


def render_contents(contents: Any, outcome: Outcome, embedded: bool = False) -> RenderableType:
    if not isinstance(contents, dict):
        return pretty_json(contents)
    uri = one_line(str(contents.get("uri", "")), 200)
    mime = one_line(str(contents.get("mimeType", "")), 60)
    head = Text.assemble(("embedded " if embedded else "", "dim"), ("resource ", "bold cyan"),
                         (uri, "cyan"), f"  {mime}")
    if "text" in contents:
        body: RenderableType = _json_text(str(contents["text"]))
    elif "blob" in contents:
        raw = _decode_b64(contents["blob"])
        if raw is None:
            body = Text("blob is not valid base64", style="red")
        else:
            name = Path(uri.split("?")[0]).name or "blob"
            outcome.binaries.append((name + MIME_EXT.get(mime, ""), raw))
            body = Text(f"blob {len(raw):,} bytes (s saves it)", style="magenta")
    else:
        body = pretty_json(contents)
    return stack(head, body)


def render_outcome(outcome: Outcome) -> RenderableType:
    outcome.binaries.clear()
    outcome.links.clear()
    parts: list[RenderableType] = []
    meta = []
    if outcome.latency_ms is not None:
        meta.append(f"{outcome.latency_ms:,.0f} ms")
    if outcome.size is not None:
        meta.append(f"{outcome.size:,} bytes")
    header = Text.assemble((one_line(outcome.title, 80), "bold"), "  ",
                           (" · ".join(meta), "dim"))
    parts.append(header)
    if outcome.note:
        parts.append(safe_text(outcome.note, "bold yellow", multiline=True))
    if outcome.error is not None:
        err = outcome.error
        parts.append(Panel(stack(
            Text.assemble(("protocol error ", "bold red"), (str(err.get("code")), "red"), "  ",
                          safe_text(str(err.get("message", "")), multiline=True)),
            *( [pretty_json(err["data"])] if err.get("data") is not None else [])),
            border_style="red", title="JSON-RPC error", title_align="left"))
        return stack(*parts)
    result = outcome.result
    if not isinstance(result, dict):
        parts.append(pretty_json(result))
        return stack(*parts)
    if result.get("isError"):
        parts.append(Text("tool reported an error (isError: true)", style="bold red"))
    for i, block in enumerate(result.get("content") or []):
        parts.append(render_block(block, outcome, i))
    if "structuredContent" in result:
        parts.append(Text("structuredContent", style="bold"))
        parts.append(pretty_json(result["structuredContent"]))
        parts.extend(_check_output(outcome.output_schema, result["structuredContent"]))
    elif outcome.output_schema and not result.get("isError"):
        parts.append(Text("outputSchema declared but no structuredContent", style="yellow"))
    for contents in result.get("contents") or []:
        parts.append(render_contents(contents, outcome))
    for message in result.get("messages") or []:
        if isinstance(message, dict):
            parts.append(Text(f"{one_line(str(message.get('role', '?')), 20)}:",
                              style="bold blue"))
            parts.append(render_block(message.get("content"), outcome, len(parts)))
    if "description" in result and isinstance(result["description"], str):
        parts.insert(1, safe_text(result["description"], "italic", multiline=True))
    known = {"content", "structuredContent", "isError", "contents", "messages", "description",
             "_meta"}
    rest = {k: v for k, v in result.items() if k not in known}
    if rest:
        parts.append(pretty_json(rest))
    return stack(*parts)


def _check_output(schema: dict[str, Any] | None, value: Any) -> list[RenderableType]:
    if not schema:
        return []
    from inspector.forms.validate import validate

    issues = validate(schema, value)
    if not issues:
        return [Text("✓ matches outputSchema", style="green")]
    lines = [Text(f"✗ {len(issues)} mismatch(es) with outputSchema:", style="bold red")]
    for issue in issues:
        path = "/".join(str(p) for p in issue.path) or "(root)"
        lines.append(Text(f"  {path}: {one_line(issue.message, 200)}", style="red"))
    return lines


class ResultView(VerticalScroll, can_focus=True):
    """Shows the latest outcome; ``s`` saves binary content, ``o`` follows a resource link."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("s", "save", "Save binary"), Binding("o", "open_link", "Open link")]

    class OpenLink(Message):
        def __init__(self, uri: str) -> None:
            super().__init__()
            self.uri = uri

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.outcome: Outcome | None = None
        self._body = Static("", id="result-body")

    def compose(self):  # type: ignore[no-untyped-def]
        yield self._body

    def show(self, outcome: Outcome) -> None:
        self.outcome = outcome
        self._body.update(render_outcome(outcome))
        self.scroll_home(animate=False)

    def show_text(self, text: str, style: str = "dim") -> None:
        self.outcome = None
        self._body.update(Text(text, style=style))

    def action_save(self) -> None:
        if self.outcome is None or not self.outcome.binaries:
            self.notify("nothing binary to save in this result", severity="warning")
            return
        saved = []
        for name, data in self.outcome.binaries:
            path = _free_path(Path.cwd() / Path(name).name)
            path.write_bytes(data)
            saved.append(str(path))
        self.notify("saved " + ", ".join(saved))

    def action_open_link(self) -> None:
        if self.outcome is None or not self.outcome.links:
            self.notify("no resource link in this result", severity="warning")
            return
        self.post_message(self.OpenLink(self.outcome.links[0]))


def _free_path(path: Path) -> Path:
    candidate, n = path, 1
    while candidate.exists():
        candidate = path.with_name(f"{path.stem}-{n}{path.suffix}")
        n += 1
    return candidate
