"""The sampling screen: a server's ``sampling/createMessage`` shown in full, answered by hand.

    decision = await app.push_screen_wait(SamplingScreen(params, server="demo"))
    decision.result   # the CreateMessageResult to send, or None: rejected (error -1)

The user writes (or edits) the reply text, the model name and the stop reason, or,
when the server offers tools, answers with a ``tool_use`` of one of them (input JSON
checked against its inputSchema; toolChoice respected), or switches to raw JSON
(ctrl+j) to send any result at all (several tool_use blocks, images, a deliberately
broken answer). "Always answer with this text" turns the reply into
a standing rule (see ``inspector.tui.interactive``). Server text is data.
"""

from __future__ import annotations

import json
import uuid
from dataclasses import dataclass
from typing import Any, ClassVar, TypeVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.geometry import Size
from textual.screen import ModalScreen
from textual.widgets import Button, Checkbox, Input, Label, Select, Static, TextArea

from inspector.engine.responders import defaults_for
from inspector.forms.validate import validate
from inspector.safe_text import one_line, safe_text
from inspector.tui.masked import shown_mask, shown_value_mask

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


def _block(block: Any, indent: str = "") -> Text:
    """One content block, literally and safely; binary payloads summarised."""
    if not isinstance(block, dict):
        return safe_text(f"{indent}{_json(block)}", "red", multiline=True, limit=TEXT_LIMIT)
    kind = block.get("type")
    if kind == "text":
        return safe_text(indent + str(block.get("text", "")), multiline=True, limit=TEXT_LIMIT)
    if kind in ("image", "audio"):
        size = len(str(block.get("data", ""))) * 3 // 4
        return safe_text(
            f"{indent}[{kind} {block.get('mimeType', '?')}, ~{size:,} bytes]", "italic"
        )
    if kind == "tool_use":
        text = safe_text(f"{indent}⚙ tool_use {block.get('name')} (id {block.get('id')}) ", "bold")
        text.append_text(
            safe_text(json.dumps(block.get("input"), ensure_ascii=False), limit=TEXT_LIMIT)
        )
        return text
    if kind == "tool_result":
        error = " (isError)" if block.get("isError") else ""
        text = safe_text(
            f"{indent}↩ tool_result for {block.get('toolUseId')}{error}:",
            "bold red" if error else "bold",
        )
        inner = block.get("content")
        for item in inner if isinstance(inner, list) else [inner]:
            text.append("\n")
            text.append_text(_block(item, indent + "    "))
        if "structuredContent" in block:
            text.append("\n")
            text.append_text(
                safe_text(
                    f"{indent}    structuredContent: "
                    + json.dumps(block["structuredContent"], ensure_ascii=False),
                    limit=TEXT_LIMIT,
                )
            )
        return text
    if kind == "resource_link":
        return safe_text(
            f"{indent}[resource_link {block.get('uri')} {block.get('name', '')}]", "italic"
        )
    if kind == "resource":
        resource = block.get("resource")
        resource = resource if isinstance(resource, dict) else {}
        text = safe_text(f"{indent}[resource {resource.get('uri')}] ", "italic")
        if "text" in resource:
            text.append_text(safe_text(str(resource["text"]), multiline=True, limit=TEXT_LIMIT))
        elif "blob" in resource:
            size = len(str(resource["blob"])) * 3 // 4
            text.append_text(safe_text(f"~{size:,} bytes", "italic"))
        return text
    # an unknown block type: shown as JSON, never interpreted
    return safe_text(f"{indent}{_json(block)}", multiline=True, limit=TEXT_LIMIT)


def tool_choice(params: dict[str, Any]) -> str:
    """The request's toolChoice mode: "auto" (the default), "required" or "none"."""
    choice = params.get("toolChoice")
    mode = choice.get("mode") if isinstance(choice, dict) else None
    return mode if mode in ("auto", "required", "none") else "auto"


def offered_tools(params: dict[str, Any]) -> list[dict[str, Any]]:
    """The named tools the server offers (malformed entries dropped)."""
    tools = params.get("tools")
    return (
        [t for t in tools if isinstance(t, dict) and isinstance(t.get("name"), str)]
        if isinstance(tools, list)
        else []
    )


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
    for key in (
        "maxTokens",
        "temperature",
        "stopSequences",
        "includeContext",
        "toolChoice",
        "metadata",
    ):
        if key in params:
            line(
                Text(f"{key}: ", style="bold"),
                safe_text(json.dumps(params[key], ensure_ascii=False), limit=400),
            )
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
                line(
                    safe_text(f"  {tool.get('name')}", "bold"),
                    safe_text(f"  {one_line(str(tool.get('description', '')), 160)}", "dim"),
                )
                if "inputSchema" in tool:
                    line(
                        safe_text(
                            "    input: " + json.dumps(tool["inputSchema"], ensure_ascii=False),
                            "dim",
                            limit=400,
                        )
                    )
    out.rstrip()
    return out


def default_model(params: dict[str, Any]) -> str:
    """The first model hint, else our own name: what the reply claims to come from."""
    prefs = params.get("modelPreferences")
    for hint in (prefs.get("hints") or []) if isinstance(prefs, dict) else []:
        if isinstance(hint, dict) and isinstance(hint.get("name"), str) and hint["name"]:
            return str(hint["name"])
    return DEFAULT_MODEL


class WrappingCheckbox(Checkbox):
    """A checkbox whose label wraps to its width: never cut off in a narrow dialog."""

    DEFAULT_CSS = """
    WrappingCheckbox { width: 100%; height: auto; text-wrap: wrap; text-overflow: fold; }
    """

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        return max(1, len(self.render().wrap(width)))


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
    """Shows a sampling request; dismisses with a ``SamplingDecision``.

    When the server offers tools (and toolChoice is not "none") the reply can be a
    ``tool_use`` of one of them: the input is JSON checked against its inputSchema.
    """

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
    /* the buttons stay on screen: the rest scrolls above them when the terminal is short */
    SamplingScreen #body { height: auto; max-height: 100%; }
    SamplingScreen #title { text-style: bold; height: auto; margin-bottom: 1; }
    SamplingScreen #request {
        height: auto; max-height: 22; border: round $panel-lighten-2; padding: 0 1;
    }
    SamplingScreen #reply, SamplingScreen #raw { height: 7; }
    SamplingScreen #raw { display: none; height: 14; }
    SamplingScreen #kind-row { height: auto; }
    SamplingScreen #kind-row Label { padding: 1 1 0 0; }
    SamplingScreen #reply-kind { width: 1fr; }
    SamplingScreen #tool-input { display: none; height: 7; }
    SamplingScreen #tool-note { color: $text-warning; height: auto; }
    SamplingScreen.tool-mode #tool-input { display: block; }
    SamplingScreen.tool-mode #reply { display: none; }
    SamplingScreen.json-mode #raw { display: block; }
    SamplingScreen.json-mode #reply, SamplingScreen.json-mode #meta,
    SamplingScreen.json-mode #reply-label, SamplingScreen.json-mode #kind-row,
    SamplingScreen.json-mode #tool-input { display: none; }
    SamplingScreen #meta { height: auto; }
    SamplingScreen #meta Label { padding: 1 1 0 0; }
    SamplingScreen #meta Input { width: 1fr; }
    SamplingScreen #meta Select { width: 24; }
    SamplingScreen #error { color: $text-error; height: auto; display: none; }
    SamplingScreen #reply-label { width: 100%; }  /* wraps in a narrow dialog, never cut */
    SamplingScreen #buttons { dock: bottom; height: auto; align-horizontal: right; }
    /* short: the request and the reply give up rows; tall: they get more */
    SamplingScreen.-short #title { margin-bottom: 0; }
    SamplingScreen.-short #request { max-height: 7; }
    SamplingScreen.-short #reply, SamplingScreen.-short #tool-input { height: 4; }
    SamplingScreen.-short #raw { height: 8; }
    SamplingScreen.-short #meta Label, SamplingScreen.-short #kind-row Label {
        padding: 0 1 0 0;
    }
    SamplingScreen.-short #meta Input { border: none; height: 1; }
    SamplingScreen.-short #meta SelectCurrent, SamplingScreen.-short #kind-row SelectCurrent {
        border: none; height: 1;
    }
    SamplingScreen.-short #remember { border: none; }
    SamplingScreen.-tall #request { max-height: 30; }
    SamplingScreen.-tall #reply, SamplingScreen.-tall #tool-input { height: 12; }
    SamplingScreen.-tall #raw { height: 20; }
    SamplingScreen #buttons Button { margin-left: 1; }
    """

    def __init__(
        self, params: dict[str, Any], *, server: str = "the server", draft: str = ""
    ) -> None:
        super().__init__()
        self.params = params
        self.server = server
        self.draft = draft
        self.choice = tool_choice(params)
        self.tools = offered_tools(params)
        # toolChoice "none": the model must not use a tool, so none is offered
        self.usable_tools = [] if self.choice == "none" else self.tools
        self.tool_use_id = f"toolu_{uuid.uuid4().hex[:20]}"
        self._refused: list[str] = []  # the problems shown at the last refused Send
        self._pending_input: str | None = None  # tool input carried back from JSON mode

    def compose(self) -> ComposeResult:
        with Vertical(id="dialog"):
            with VerticalScroll(id="body", can_focus=False):
                mask = shown_mask(self.app)  # the session's secrets out of the server's text
                title = Text("sampling/createMessage", style="bold")
                title.append_text(
                    safe_text(
                        f" from {mask(one_line(self.server, 80))}: the server asks "
                        "for an LLM completion; you are the model."
                    )
                )
                yield Static(title, id="title")
                with VerticalScroll(id="request"):
                    shown = shown_value_mask(self.app)(self.params)  # the same, in its JSON
                    yield Static(render_request(shown), id="request-body")
                yield Label(
                    Text.assemble(
                        ("Your reply", "bold"),
                        (
                            "   ctrl+s sends · esc rejects (-1) · ctrl+j edits the whole result "
                            "as JSON (tool_use, images)",
                            "dim",
                        ),
                    ),
                    id="reply-label",
                )
                if self.tools:
                    with Horizontal(id="kind-row"):
                        yield Label("answer with")
                        options = [("text", "")] + [
                            (f"tool_use: {one_line(str(t['name']), 60)}", str(t["name"]))
                            for t in self.usable_tools
                        ]
                        yield Select(options, value="", id="reply-kind", allow_blank=False)
                    yield Static(safe_text(self._choice_note()), id="tool-note")
                yield TextArea(self.draft, id="reply", soft_wrap=True)
                yield TextArea("", id="tool-input", language="json", soft_wrap=True)
                with Horizontal(id="meta"):
                    yield Label("model")
                    yield Input(default_model(self.params), id="model", placeholder="model name")
                    yield Label("stop reason")
                    yield Select(
                        [(r, r) for r in STOP_REASONS],
                        value="endTurn",
                        id="stop-reason",
                        allow_blank=False,
                    )
                yield TextArea("", id="raw", language="json", soft_wrap=True)
                yield Static("", id="error")
                yield WrappingCheckbox(
                    "Always answer with this text (a standing rule: switch it off any time)",
                    id="remember",
                )
            with Horizontal(id="buttons"):
                yield Button("{ } JSON", id="json", compact=True)
                yield Button("Reject", id="reject", variant="error", compact=True)
                yield Button("Send", id="send", variant="primary", compact=True)

    def _choice_note(self) -> str:
        if self.choice == "none":
            return "toolChoice none: the model must not use a tool (tool use not offered)"
        if self.choice == "required":
            return "toolChoice required: the model must use a tool (a text reply is flagged)"
        return ""

    def on_mount(self) -> None:
        self.query_one("#reply", TextArea).focus()

    # -- values ------------------------------------------------------------------------

    @property
    def tool_name(self) -> str:
        """The tool the reply uses; "" for a text reply."""
        if not self.tools:
            return ""
        value = self.query_one("#reply-kind", Select).value
        return value if isinstance(value, str) else ""

    def tool_schema(self, name: str) -> Any:
        for tool in self.tools:
            if tool.get("name") == name:
                return tool.get("inputSchema") or {"type": "object"}
        return {"type": "object"}

    def tool_input(self) -> Any:
        """The tool input the user typed; raises ValueError when it is not JSON."""
        return json.loads(self.query_one("#tool-input", TextArea).text or "{}")

    def result_from_form(self) -> dict[str, Any]:
        """The result the form describes; raises ValueError on tool input that is not JSON."""
        stop = self.query_one("#stop-reason", Select).value
        content: Any = {"type": "text", "text": self.query_one("#reply", TextArea).text}
        if self.tool_name:
            content = [
                {
                    "type": "tool_use",
                    "id": self.tool_use_id,
                    "name": self.tool_name,
                    "input": self.tool_input(),
                }
            ]
        return {
            "role": "assistant",
            "content": content,
            "model": self.query_one("#model", Input).value or DEFAULT_MODEL,
            "stopReason": stop if isinstance(stop, str) else "endTurn",
        }

    def problems(self) -> list[str]:
        """What is wrong with the form's reply (it may still be sent: a debugger)."""
        name = self.tool_name
        if not name:
            if self.choice == "required" and self.tools:
                return [
                    'toolChoice is "required": the model must use a tool, this reply is text only'
                ]
            return []
        return [
            f"input{''.join(f'/{p}' for p in issue.path)}: {issue.message}"
            for issue in validate(self.tool_schema(name), self.tool_input())
        ]

    @property
    def json_mode(self) -> bool:
        return self.has_class("json-mode")

    def _show_error(self, message: str) -> None:
        error = self.query_one("#error", Static)
        error.update(safe_text(message, multiline=True))
        error.display = bool(message)  # no empty row for no error (a short terminal)

    # -- actions -----------------------------------------------------------------------

    def on_select_changed(self, event: Select.Changed) -> None:
        if event.select.id != "reply-kind":
            return
        event.stop()
        name = self.tool_name
        self.set_class(bool(name), "tool-mode")
        self._refused = []
        self._show_error("")
        stop = self.query_one("#stop-reason", Select)
        pending, self._pending_input = self._pending_input, None
        if name:
            text = pending  # back from the JSON editor: keep what was there
            if text is None:
                text = _json(defaults_for(self.tool_schema(name)))
            self.query_one("#tool-input", TextArea).text = text
            stop.value = "toolUse"
            self.query_one("#remember", Checkbox).value = False  # a rule answers text only
        elif stop.value == "toolUse":
            stop.value = "endTurn"
        self.query_one("#remember", Checkbox).disabled = bool(name)

    def action_toggle_json(self) -> None:
        raw = self.query_one("#raw", TextArea)
        if not self.json_mode:
            try:
                raw.text = _json(self.result_from_form())
            except ValueError as exc:
                self._show_error(f"tool input is not JSON: {exc}")
                return
            self.add_class("json-mode")
            raw.focus()
            return
        try:
            value = json.loads(raw.text)
        except ValueError as exc:
            self._show_error(f"not JSON: {exc}")
            return
        self._form_from_content(value.get("content") if isinstance(value, dict) else None)
        self.remove_class("json-mode")
        self._show_error("")
        self.query_one("#reply", TextArea).focus()

    def _form_from_content(self, content: Any) -> None:
        """Back from JSON: a text block or one tool_use of an offered tool fills the form
        (anything else stays only in the JSON editor)."""
        blocks = content if isinstance(content, list) else [content]
        block = blocks[0] if len(blocks) == 1 and isinstance(blocks[0], dict) else {}
        names = {str(t["name"]) for t in self.usable_tools}
        name = ""
        if block.get("type") == "text":
            self.query_one("#reply", TextArea).text = str(block.get("text", ""))
        elif block.get("type") == "tool_use" and block.get("name") in names:
            name = str(block["name"])
            if isinstance(block.get("id"), str):
                self.tool_use_id = block["id"]
            self._pending_input = _json(block.get("input"))
            self.query_one("#tool-input", TextArea).text = self._pending_input
        else:
            return
        if self.tools:
            kind = self.query_one("#reply-kind", Select)
            if kind.value == name:
                self._pending_input = None  # no change event will consume it
            else:
                kind.value = name

    def action_send(self) -> None:
        remember = self.query_one("#remember", Checkbox).value and not self.tool_name
        if self.json_mode:
            try:
                result = json.loads(self.query_one("#raw", TextArea).text)
            except ValueError as exc:
                self._show_error(f"not JSON: {exc}")
                return
            if not isinstance(result, dict):
                self._show_error("the result must be a JSON object")
                return
            self.dismiss(SamplingDecision(result, remember=remember))
            return
        try:
            result = self.result_from_form()
            problems = self.problems()
        except ValueError as exc:
            self._show_error(f"tool input is not JSON: {exc}")
            return
        if problems and problems != self._refused:  # shown once; Send again sends anyway
            self._refused = problems
            self._show_error(
                "\n".join(["⚠ " + p for p in problems[:5]] + ["press Send again to send it anyway"])
            )
            return
        self.dismiss(SamplingDecision(result, remember=remember))

    def action_reject(self) -> None:
        self.dismiss(SamplingDecision(None))

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        actions = {
            "send": self.action_send,
            "reject": self.action_reject,
            "json": self.action_toggle_json,
        }
        if event.button.id in actions:
            actions[event.button.id]()
