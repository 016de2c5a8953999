"""The working pane: the selected item's description, its form, send, and the result."""

from __future__ import annotations

from typing import Any

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.message import Message
from textual.widgets import Button, Checkbox, Input, Select, Static, Switch, TextArea

from inspector.engine.uritemplate import variables
from inspector.tui.safe_text import one_line, safe_text
from inspector.tui.widgets.catalog import display_name, hints
from inspector.tui.widgets.result_view import ResultView
from inspector.tui.widgets.schema_form import SchemaForm

ACTION_LABELS = {"tools": "Call", "resources": "Read", "resource_templates": "Read",
                 "prompts": "Get"}


def form_schema(kind: str, item: dict[str, Any]) -> dict[str, Any] | None:
    """The JSON Schema a form is built from, per kind of item (None: no arguments)."""
    if kind == "tools":
        schema = item.get("inputSchema")
        return schema if isinstance(schema, dict) else {"type": "object"}
    if kind == "prompts":
        props: dict[str, Any] = {}
        required: list[str] = []
        for arg in item.get("arguments") or []:
            if not isinstance(arg, dict) or not isinstance(arg.get("name"), str):
                continue
            prop: dict[str, Any] = {"type": "string"}
            if isinstance(arg.get("description"), str):
                prop["description"] = arg["description"]
            props[arg["name"]] = prop
            if arg.get("required"):
                required.append(arg["name"])
        return {"type": "object", "properties": props, "required": required}
    if kind == "resource_templates":
        names = variables(str(item.get("uriTemplate", "")))
        return {"type": "object", "properties": {n: {"type": "string"} for n in names},
                "required": names}
    return None


def item_key(kind: str, item: dict[str, Any]) -> str:
    return f"{kind}:{item.get('name') or item.get('uri') or item.get('uriTemplate')}"


class ItemPanel(Vertical):
    """Posts ``ItemPanel.Run`` when the user sends; the app runs it and calls ``show``."""

    DEFAULT_CSS = """
    ItemPanel { height: 1fr; }
    ItemPanel #item-head { height: auto; max-height: 8; padding: 0 1; }
    ItemPanel #item-form-box { height: auto; max-height: 60%; }
    ItemPanel #item-actions { height: auto; padding: 0 1; }
    ItemPanel #item-actions Button { margin: 0 1 0 0; min-width: 10; }
    ItemPanel ResultView { height: 1fr; border-top: solid $panel-lighten-2; padding: 0 1; }
    """

    class Run(Message):
        def __init__(self, kind: str, item: dict[str, Any], arguments: Any,
                     action: str = "run") -> None:
            super().__init__()
            self.kind = kind
            self.item = item
            self.arguments = arguments
            self.action = action

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.kind: str | None = None
        self.item: dict[str, Any] | None = None
        self.last_arguments: dict[str, Any] = {}  # kept for the session, per item
        self._warned_issues = False
        self.read_only = False

    def compose(self) -> ComposeResult:
        yield Static(Text("Pick a tool, resource, template or prompt on the left.",
                          style="dim"), id="item-head")
        yield Vertical(id="item-form-box")
        yield Horizontal(id="item-actions")
        yield ResultView(id="result")

    @property
    def result(self) -> ResultView:
        return self.query_one(ResultView)

    @property
    def form(self) -> SchemaForm | None:
        forms = self.query(SchemaForm)
        return forms.first() if forms else None

    async def select(self, kind: str, item: dict[str, Any], *, subscribable: bool = False) -> None:
        self._remember()
        self.kind, self.item = kind, item
        self._warned_issues = False
        head = Text()
        head.append(one_line(display_name(item), 80), style="bold")
        for label, style in hints(item):
            head.append(f" [{label}]", style=style)
        for key in ("name", "uri", "uriTemplate", "mimeType"):
            value = item.get(key)
            if isinstance(value, str) and value != display_name(item):
                head.append(f"\n{key}: ", style="dim")
                head.append(one_line(value, 200))
        description = item.get("description")
        if isinstance(description, str) and description:
            head.append("\n")
            head.append_text(safe_text(description, "italic", multiline=True, limit=1500))
        self.query_one("#item-head", Static).update(head)
        box = self.query_one("#item-form-box", Vertical)
        await box.remove_children()
        schema = form_schema(kind, item)
        if schema is not None:
            await box.mount(SchemaForm(schema, self.last_arguments.get(item_key(kind, item)),
                                       send_button=False, id="item-form"))
        actions = self.query_one("#item-actions", Horizontal)
        await actions.remove_children()
        buttons = [Button(f"{ACTION_LABELS[kind]} (ctrl+s)", id="run", variant="primary",
                          disabled=self.read_only, compact=True)]
        if kind == "tools" and (item.get("execution") or {}).get("taskSupport") in (
                "optional", "required"):
            buttons.append(Button("Call as task", id="run-task", disabled=self.read_only,
                                  compact=True))
        if kind == "resources" and subscribable:
            buttons.append(Button("Subscribe", id="subscribe", disabled=self.read_only,
                                  compact=True))
            buttons.append(Button("Unsubscribe", id="unsubscribe",
                                  disabled=self.read_only, compact=True))
        await actions.mount_all(buttons)
        # say what the empty pane is for (a replay cannot send)
        self.result.show_text("" if self.read_only else
                              f"{ACTION_LABELS[kind].lower()} with ctrl+s: the result shows here")

    def focus_form(self) -> None:
        """Focus the first field of the form, or the action button when there is none."""
        fields = [w for w in self.query("#item-form-box *")
                  if w.focusable and isinstance(w, Input | TextArea | Select | Switch | Checkbox)]
        if fields:
            # the first field is at the top already; scrolling to it hid its label
            fields[0].focus(scroll_visible=False)
        else:
            self.query_one("#run", Button).focus()

    def _remember(self) -> None:
        form = self.form
        if form is not None and self.kind is not None and self.item is not None:
            value, _ = form.get_arguments()
            self.last_arguments[item_key(self.kind, self.item)] = value

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        if event.button.id in ("run", "run-task"):
            self.submit("task" if event.button.id == "run-task" else "run")
        elif event.button.id in ("subscribe", "unsubscribe"):
            self.submit(event.button.id)

    def on_schema_form_submitted(self, event: SchemaForm.Submitted) -> None:
        event.stop()
        self.submit("run")

    def submit(self, action: str = "run") -> None:
        if self.kind is None or self.item is None:
            return
        if self.read_only:
            self.notify("this is a replay: calls are disabled (reconnect with "
                        "`mcp-inspect replay FILE --against TARGET` to re-run)",
                        severity="warning")
            return
        arguments: Any = None
        form = self.form
        if form is not None:
            arguments, issues = form.get_arguments()
            if issues and not self._warned_issues:
                self._warned_issues = True
                self.notify(f"{len(issues)} validation issue(s) shown on the form; press "
                            "ctrl+s again to send anyway", severity="warning")
                return
            self._warned_issues = False
            self.last_arguments[item_key(self.kind, self.item)] = arguments
        self.post_message(self.Run(self.kind, self.item, arguments, action))

    def on_schema_form_changed(self, event: SchemaForm.Changed) -> None:
        self._warned_issues = False
