"""The working pane: the selected item's description, its form, send, and the result."""

from __future__ import annotations

from typing import Any

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.css.scalar import Scalar
from textual.message import Message
from textual.widgets import Button, Checkbox, Input, Select, Static, Switch, TextArea

from inspector.engine.uritemplate import variables
from inspector.tui.safe_text import one_line, safe_text
from inspector.tui.widgets.catalog import display_name, hints
from inspector.tui.widgets.result_view import Outcome, ResultView
from inspector.tui.widgets.schema_form import SchemaForm

MIN_RESULT_ROWS = 3  # the result's top border and a line or two: a hint, "waiting…"
MIN_FORM_ROWS = 4

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


class _PanelResult(ResultView):
    """The panel's result view: after each change of what it shows the panel refits the
    form to the result's new height (the app shows results through `ResultView`)."""

    def show(self, outcome: Outcome) -> None:
        super().show(outcome)
        self._refit()

    def show_text(self, text: str, style: str = "dim") -> None:
        super().show_text(text, style)
        self._refit()

    @property
    def content_height(self) -> int:
        """Rows the content takes (the pane itself may be taller or shorter)."""
        return self.query_one("#result-body").outer_size.height if self.is_mounted else 0

    def _refit(self) -> None:
        panel = self.parent
        if isinstance(panel, ItemPanel):
            self.call_after_refresh(panel._fit_form)  # the content's height is known then


class ItemPanel(Vertical):
    """Posts ``ItemPanel.Run`` when the user sends; the app runs it and calls ``show``."""

    DEFAULT_CSS = """
    ItemPanel { height: 1fr; }
    ItemPanel #item-head { height: auto; max-height: 8; padding: 0 1; }
    ItemPanel #item-form-box { height: auto; }
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
        yield _PanelResult(id="result")

    def on_resize(self) -> None:
        self._fit_form()

    def _fit_form(self) -> None:
        """Let the form take the rows it needs, less what the result shows (up to 40%).

        A hint or a one-line status keeps a couple of rows for the result; a real result
        gets its own height, at most 40% of the pane, and the form scrolls in the rest.
        The cap is worked out from the result's content, never from the form's height
        or the result pane's size, so setting it cannot feed back into it.
        """
        height = self.content_region.height
        if not height:
            return
        head = self.query_one("#item-head").outer_size.height
        actions = self.query_one("#item-actions").outer_size.height
        result = self.result
        wanted = result.content_height + result.styles.gutter.height
        room = min(max(wanted, MIN_RESULT_ROWS), max(MIN_RESULT_ROWS, height * 2 // 5))
        cap = Scalar.from_number(max(MIN_FORM_ROWS, height - head - actions - room))
        box = self.query_one("#item-form-box")
        if box.styles.max_height != cap:
            box.styles.max_height = cap

    @property
    def result(self) -> _PanelResult:
        return self.query_one(_PanelResult)

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
        self.call_after_refresh(self._fit_form)  # the head's height is known after layout

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
