"""The sampling screen: a server's ``sampling/createMessage`` shown in full, answered by hand.

    decision = await app.push_screen_wait(SamplingScreen(params, server="demo"))
    decision.result   # the CreateMessageResult to send, or None: rejected (error -1)

The user writes (or edits) the reply text, the model name and the stop reason, or
switches to raw JSON (ctrl+j) to send any result at all (tool_use blocks, images,
a deliberately broken answer). "Always answer with this text" turns the reply into
a standing rule (see ``inspector.tui.interactive``). Server text is data.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, ClassVar, TypeVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Button, Checkbox, Input, Label, Select, Static, TextArea

from inspector.tui.safe_text import one_line, safe_text

ResultT = TypeVar("ResultT")
STOP_REASONS = ("endTurn", "stopSequence", "maxTokens", "toolUse")
DEFAULT_MODEL = "mcp-inspect-human"
TEXT_LIMIT = 20_000  # longer message text is folded in the view (the wire log has it all)


@dataclass
class SamplingDecision:
    """What the user decided: a result to send, or a rejection (``result is None``)."""

    result: dict[str, Any] | None
    reason: str = "rejected by the user"
    remember: bool = False  # make this answer the standing rule


def _json(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, indent=2)


def _block(block: Any) -> Text:
    """One content block, literally; binary payloads summarised."""
    if not isinstance(block, dict):
        return safe_text(_json(block), "red", multiline=True)
    kind = block.get("type")
    if kind == "text":
        return safe_text(str(block.get("text", "")), multiline=True, limit=TEXT_LIMIT)
    if kind in ("image", "audio"):
        size = len(str(block.get("data", ""))) * 3 // 4
        return safe_text(f"[{kind} {block.get('mimeType', '?')}, ~{size:,} bytes]", "italic")
    if kind == "tool_use":
        text = safe_text(f"tool_use {block.get('name')} (id {block.get('id')}) ", "bold")
        text.append_text(safe_text(json.dumps(block.get("input"), ensure_ascii=False),
                                   limit=TEXT_LIMIT))
        return text
    if kind == "tool_result":
        text = safe_text(f"tool_result for {block.get('toolUseId')}: ", "bold")
        for inner in block.get("content") or []:
            text.append_text(_block(inner))
        return text
    return safe_text(_json(block), multiline=True, limit=TEXT_LIMIT)


def render_request(params: dict[str, Any]) -> Text:
    """Everything the server asked for, readable, with no markup interpreted."""
    out = Text(end="")

    def line(*pieces: Text) -> None:
        for piece in pieces:
            out.append_text(piece)
        out.append("\n")

    system = params.get("systemPrompt")
    if system is not None:
        line(Text("System prompt", style="bold"))
        line(safe_text(str(system), "italic", multiline=True, limit=TEXT_LIMIT))
        line()
    messages = params.get("messages")
    for message in messages if isinstance(messages, list) else []:
        message = message if isinstance(message, dict) else {"content": message}
        role = str(message.get("role", "?"))
        line(safe_text(f"{role} ▸", "bold green" if role == "user" else "bold cyan"))
        content = message.get("content")
        for block in content if isinstance(content, list) else [content]:
            line(_block(block))
        line()
    for key in ("maxTokens", "temperature", "stopSequences", "includeContext", "toolChoice",
                "metadata"):
        if key in params:
            line(Text(f"{key}: ", style="bold"),
                 safe_text(json.dumps(params[key], ensure_ascii=False), limit=400))
    prefs = params.get("modelPreferences")
    if isinstance(prefs, dict):
        hints = [str(h.get("name")) for h in prefs.get("hints") or [] if isinstance(h, dict)]
        facts = Text()
        facts.append("model hints: ", style="bold")
        facts.append_text(safe_text(", ".join(hints) or "none"))
        for key in ("intelligencePriority", "speedPriority", "costPriority"):
            if key in prefs:
                facts.append(f"   {key.removesuffix('Priority')}: ", style="bold")
                facts.append_text(safe_text(str(prefs[key])))
        line(facts)
    tools = params.get("tools")
    if isinstance(tools, list) and tools:
        line(Text(f"tools offered ({len(tools)}):", style="bold"))
        for tool in tools:
            if isinstance(tool, dict):
                line(safe_text(f"  {tool.get('name')}", "bold"),
                     safe_text(f"  {one_line(str(tool.get('description', '')), 160)}", "dim"))
    out.rstrip()
    return out


def default_model(params: dict[str, Any]) -> str:
    """The first model hint, else our own name: what the reply claims to come from."""
    prefs = params.get("modelPreferences")
    for hint in (prefs.get("hints") or []) if isinstance(prefs, dict) else []:
        if isinstance(hint, dict) and isinstance(hint.get("name"), str) and hint["name"]:
            return str(hint["name"])
    return DEFAULT_MODEL


class ServerRequestScreen(ModalScreen[ResultT]):
    """A dialog that answers a server request; the server may withdraw it (cancel)."""

    withdrawn = False

    def withdraw(self) -> None:
        """Close now if on top, else as soon as it comes back on top."""
        self.withdrawn = True
        if self.is_current:
            self.dismiss(None)

    def on_screen_resume(self) -> None:
        if self.withdrawn:
            self.dismiss(None)


class SamplingScreen(ServerRequestScreen[SamplingDecision]):
    """Shows a sampling request; dismisses with a ``SamplingDecision``."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("ctrl+s", "send", "Send reply", priority=True),
        Binding("escape", "reject", "Reject (-1)"),
        Binding("ctrl+j", "toggle_json", "JSON/form"),
    ]

    DEFAULT_CSS = """
    SamplingScreen { align: center middle; }
    SamplingScreen > #dialog {
        width: 90%; max-width: 120; height: auto; max-height: 95%; border: thick $accent;
        background: $surface; padding: 0 1;
    }
    SamplingScreen #title { text-style: bold; height: auto; margin-bottom: 1; }
    SamplingScreen #request {
        height: auto; max-height: 22; border: round $panel-lighten-2; padding: 0 1;
    }
    SamplingScreen #reply, SamplingScreen #raw { height: 7; }
    SamplingScreen #raw { display: none; height: 14; }
    SamplingScreen.json-mode #raw { display: block; }
    SamplingScreen.json-mode #reply, SamplingScreen.json-mode #meta,
    SamplingScreen.json-mode #reply-label { display: none; }
    SamplingScreen #meta { height: auto; }
    SamplingScreen #meta Label { padding: 1 1 0 0; }
    SamplingScreen #meta Input { width: 1fr; }
    SamplingScreen #meta Select { width: 24; }
    SamplingScreen #error { color: $text-error; height: auto; }
    SamplingScreen #buttons { height: auto; align-horizontal: right; }
    SamplingScreen #buttons Button { margin-left: 1; }
    """

    def __init__(self, params: dict[str, Any], *, server: str = "the server",
                 draft: str = "") -> None:
        super().__init__()
        self.params = params
        self.server = server
        self.draft = draft

    def compose(self) -> ComposeResult:
        with Vertical(id="dialog"):
            title = Text("sampling/createMessage", style="bold")
            title.append_text(safe_text(f" from {one_line(self.server, 80)}: the server asks "
                                        "for an LLM completion; you are the model."))
            yield Static(title, id="title")
            with VerticalScroll(id="request"):
                yield Static(render_request(self.params), id="request-body")
            yield Label(Text.assemble(("Your reply", "bold"), (
                "   ctrl+s sends · esc rejects (-1) · ctrl+j edits the whole result as JSON "
                "(tool_use, images)", "dim")), id="reply-label")
            yield TextArea(self.draft, id="reply", soft_wrap=True)
            with Horizontal(id="meta"):
                yield Label("model")
                yield Input(default_model(self.params), id="model", placeholder="model name")
                yield Label("stop reason")
                yield Select([(r, r) for r in STOP_REASONS], value="endTurn", id="stop-reason",
                             allow_blank=False)
            yield TextArea("", id="raw", language="json", soft_wrap=True)
            yield Static("", id="error")
            yield Checkbox("Always answer with this text (standing rule, switch off any time)",
                           id="remember")
            with Horizontal(id="buttons"):
                yield Button("{ } JSON", id="json", compact=True)
                yield Button("Reject", id="reject", variant="error", compact=True)
                yield Button("Send", id="send", variant="primary", compact=True)

    def on_mount(self) -> None:
        self.query_one("#reply", TextArea).focus()

    # -- values ------------------------------------------------------------------------

    def result_from_form(self) -> dict[str, Any]:
        stop = self.query_one("#stop-reason", Select).value
        return {"role": "assistant",
                "content": {"type": "text", "text": self.query_one("#reply", TextArea).text},
                "model": self.query_one("#model", Input).value or DEFAULT_MODEL,
                "stopReason": stop if isinstance(stop, str) else "endTurn"}

    @property
    def json_mode(self) -> bool:
        return self.has_class("json-mode")

    def _show_error(self, message: str) -> None:
        self.query_one("#error", Static).update(safe_text(message))

    # -- actions -----------------------------------------------------------------------

    def action_toggle_json(self) -> None:
        raw = self.query_one("#raw", TextArea)
        if not self.json_mode:
            raw.text = _json(self.result_from_form())
            self.add_class("json-mode")
            raw.focus()
            return
        try:
            value = json.loads(raw.text)
        except ValueError as exc:
            self._show_error(f"not JSON: {exc}")
            return
        content = value.get("content") if isinstance(value, dict) else None
        if isinstance(content, dict) and content.get("type") == "text":
            self.query_one("#reply", TextArea).text = str(content.get("text", ""))
        self.remove_class("json-mode")
        self._show_error("")
        self.query_one("#reply", TextArea).focus()

    def action_send(self) -> None:
        remember = self.query_one("#remember", Checkbox).value
        if self.json_mode:
            try:
                result = json.loads(self.query_one("#raw", TextArea).text)
            except ValueError as exc:
                self._show_error(f"not JSON: {exc}")
                return
            if not isinstance(result, dict):
                self._show_error("the result must be a JSON object")
                return
        else:
            result = self.result_from_form()
        self.dismiss(SamplingDecision(result, remember=remember))

    def action_reject(self) -> None:
        self.dismiss(SamplingDecision(None))

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        actions = {"send": self.action_send, "reject": self.action_reject,
                   "json": self.action_toggle_json}
        if event.button.id in actions:
            actions[event.button.id]()
