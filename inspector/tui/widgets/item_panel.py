"""The working pane: the selected item's description, its form, send, and the result.

Sending is decided here, once per key press or click: the form checks its value once
(`SchemaForm.get_arguments`); with issues, the first press shows them on the form and
says what is wrong, the next one sends anyway (a debugger may send bad input on
purpose). The panel also knows which items hold input that was never sent.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.css.scalar import Scalar
from textual.geometry import Size
from textual.layout import DockArrangeResult
from textual.message import Message
from textual.widget import Widget
from textual.widgets import (
    Button,
    Checkbox,
    Input,
    Select,
    SelectionList,
    Static,
    Switch,
    TextArea,
)

from inspector.engine.kinds import KIND
from inspector.engine.uritemplate import variables
from inspector.forms.schema import ValidationIssue
from inspector.safe_text import fold, one_line, safe_text
from inspector.tui.masked import shown_mask
from inspector.tui.widgets.catalog import display_name, hints
from inspector.tui.widgets.result_view import ResultView
from inspector.tui.widgets.schema_form import SchemaForm
from inspector.tui.widgets.typing_scope import TypingScope

MIN_RESULT_ROWS = 3  # the result's top border and a line or two: a hint, "waiting…"
MIN_FORM_ROWS = 4
FORM_NOTE = "form hidden: ctrl+f shows it (ctrl+s sends it as it is)"
ZOOMS = ("normal", "pane", "screen")  # what z cycles the result through


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
        return {
            "type": "object",
            "properties": {n: {"type": "string"} for n in names},
            "required": names,
        }
    return None


def item_key(kind: str, item: dict[str, Any]) -> str:
    return f"{kind}:{item.get('name') or item.get('uri') or item.get('uriTemplate')}"


def issues_notice(issues: list[ValidationIssue], focus: tuple[str | int, ...] | None) -> str:
    """What the toast says when a send is held back: the issue of the field the user is
    in (`focus`), else the first one, in words."""
    first = next(
        (i for i in issues if focus is not None and i.path[: len(focus)] == focus), issues[0]
    )
    where = "/".join(map(str, first.path))
    text = f"{where}: {first.message}" if where else first.message
    if len(issues) > 1:
        text += f" (and {len(issues) - 1} more, marked on the form)"
    return f"{text}\nFix it, or press ctrl+s again to send anyway."


# what takes a field's value (buttons, headers and help lines do not)
FIELD_CONTROLS = (Input, TextArea, Select, Switch, Checkbox, SelectionList)


def _outer_height(widget: Widget, container: Size, viewport: Size) -> int:
    """The height an auto-height ``widget`` takes in ``container`` (its max-height too)."""
    styles = widget.styles
    gutter = styles.gutter
    width = container.width - styles.margin.width
    height = widget.get_content_height(container, viewport, width - gutter.width)
    height += gutter.height
    if styles.max_height is not None:
        height = min(height, int(styles.max_height.resolve(container, viewport)))
    return height + styles.margin.height


class FormActions(TypingScope, Horizontal):
    """The form's buttons (Call, Call as task...): part of the form for typed keys."""


class _PanelResult(ResultView):
    """The panel's result view: after each change of what it shows the panel refits the
    form to the result's new height (the app shows results through `ResultView`)."""

    def document_shown(self) -> None:
        panel = self.parent
        if isinstance(panel, ItemPanel):
            self.call_after_refresh(panel._fit_form)  # the content's height is known then


class ItemPanel(Vertical):
    """Posts ``ItemPanel.Run`` when the user sends; the app runs it and calls ``show``."""

    DEFAULT_CSS = """
    ItemPanel { height: 1fr; }
    /* a long description scrolls in the head (a scrollbar says there is more) */
    ItemPanel #item-head-box { height: auto; max-height: 8; }
    ItemPanel #item-head { height: auto; padding: 0 1; }
    ItemPanel #item-form-box { height: auto; }
    ItemPanel #item-actions { height: auto; padding: 0 1; }
    ItemPanel #item-actions Button { margin: 0 1 0 0; min-width: 10; }
    ItemPanel ResultView { height: 1fr; border-top: solid $panel-lighten-2; padding: 0 1; }
    ItemPanel #form-note { display: none; height: 1; padding: 0 1; color: $text-muted; }
    ItemPanel.-form-hidden #form-note { display: block; }
    ItemPanel.-form-hidden #item-form-box { display: none; }
    /* z: the result takes the whole pane */
    ItemPanel.-result-only #item-head-box, ItemPanel.-result-only #item-form-box,
    ItemPanel.-result-only #form-note, ItemPanel.-result-only #item-actions { display: none; }
    """

    @dataclass
    class Run(Message):
        kind: str
        item: dict[str, Any]
        arguments: Any
        action: str = "run"

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.kind: str | None = None
        self.item: dict[str, Any] | None = None
        self.last_arguments: dict[str, Any] = {}  # kept for the session, per item
        self._unsent: dict[str, str] = {}  # item key -> name: input typed, never sent
        self._warned_issues = False
        self.read_only = False

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="item-head-box", can_focus=False):
            yield Static(
                Text("Pick a tool, resource, template or prompt on the left.", style="dim"),
                id="item-head",
            )
        yield Vertical(id="item-form-box")
        yield Static(FORM_NOTE, id="form-note")
        yield FormActions(id="item-actions")
        yield _PanelResult(id="result")

    def arrange(self, size: Size, optimal: bool = False) -> DockArrangeResult:
        # the form's cap for this size is set before the children are placed: a resize
        # is laid out once, not again after ``on_resize`` changed the cap
        if not optimal:
            self._fit_form(size)
        return super().arrange(size, optimal)

    def on_resize(self) -> None:
        self._fit_form()  # what the layout could not foresee (a scrollbar came): refit

    def _fit_form(self, size: Size | None = None) -> None:
        """Let the form take the rows it needs, less what the result shows (up to 40%).

        A hint or a one-line status keeps a couple of rows for the result; a real result
        gets its own height, at most 40% of the pane, and the form scrolls in the rest.
        The cap is worked out from the result's content, never from the form's height
        or the result pane's size, so setting it cannot feed back into it. ``size``: the
        pane's, while it is laid out (that layout places the form with the cap; the head
        and the result are measured at its width, they are not placed yet).
        """
        height = self.content_region.height if size is None else size.height
        if not height:
            return
        head_box = self.query_one("#item-head-box")
        result = self.result
        if not head_box.display:  # the result alone (z)
            head = 0
        elif size is None:
            head = head_box.outer_size.height
        else:
            head = _outer_height(head_box, size, self.app.size)
        if size is None:
            wanted = result.content_height + result.styles.gutter.height
        else:
            wanted = result.height_at(size.width) + result.styles.gutter.height
        actions_row = self.query_one("#item-actions")
        actions = actions_row.outer_size.height if actions_row.display else 0  # one row
        room = min(max(wanted, MIN_RESULT_ROWS), max(MIN_RESULT_ROWS, height * 2 // 5))
        cap = Scalar.from_number(max(MIN_FORM_ROWS, height - head - actions - room))
        if size is not None and self.zoom != "screen":
            # the result gets at least what the form leaves, at most the whole pane
            result.fit_to(size.width, height - head - actions - int(cap.value), height)
        box = self.query_one("#item-form-box")
        if box.styles.max_height == cap:
            return
        if size is not None:
            box.styles.set_rule("max_height", cap)  # no refresh: this layout uses it
        else:
            box.styles.max_height = cap

    @property
    def result(self) -> _PanelResult:
        return self.query_one(_PanelResult)

    @property
    def form(self) -> SchemaForm | None:
        forms = self.query(SchemaForm)
        return forms.first() if forms else None

    # -- room for the result ---------------------------------------------------------

    @property
    def zoom(self) -> str:
        """How much room the result takes: "normal", "pane" or "screen"."""
        if self.is_mounted and self.screen.maximized is self.result:
            return "screen"
        return "pane" if self.has_class("-result-only") else "normal"

    def cycle_zoom(self) -> str:
        """The result: in its place -> the whole work pane -> the whole screen -> back."""
        result = self.result
        step = ZOOMS[(ZOOMS.index(self.zoom) + 1) % len(ZOOMS)]
        if step == "screen":
            self.screen.maximize(result, container=False)
        else:
            if self.screen.maximized is result:
                self.screen.minimize()
            self.set_class(step == "pane", "-result-only")
        result.focus()
        return step

    @property
    def form_hidden(self) -> bool:
        return self.has_class("-form-hidden")

    def toggle_form(self) -> None:
        """Hide the form (its values stay: ctrl+s sends them) or show it again."""
        if self.item is None:
            return
        hide = not self.form_hidden
        self.set_class(hide, "-form-hidden")
        if hide:
            focused = self.app.focused
            box = self.query_one("#item-form-box")
            if focused is None or box in focused.ancestors_with_self:
                self.result.focus()
        else:
            self.call_after_refresh(self.focus_form)  # focusable once displayed again

    def _reset_room(self) -> None:
        if self.screen.maximized is self.result:
            self.screen.minimize()
        self.remove_class("-result-only", "-form-hidden")

    def show_form(self) -> None:
        """The open item's form shown again (the result back in its place) and focused;
        what the form holds and the result stay."""
        self._reset_room()
        self.call_after_refresh(self.focus_form)  # focusable once displayed again

    async def select(self, kind: str, item: dict[str, Any], *, subscribable: bool = False) -> None:
        self._remember()
        self._reset_room()
        self.kind, self.item = kind, item
        self._warned_issues = False
        mask = shown_mask(self.app)  # the session's secrets out of the server's texts
        head = Text()
        head.append(mask(one_line(display_name(item), 80)), style="bold")
        for label, style in hints(item):
            head.append(f" [{label}]", style=style)
        for key in ("name", "uri", "uriTemplate", "mimeType"):
            value = item.get(key)
            if isinstance(value, str) and value != display_name(item):
                head.append(f"\n{key}: ", style="dim")
                head.append(mask(one_line(value, 200)))
        description = item.get("description")
        if isinstance(description, str) and description:
            head.append("\n")
            shown = mask(fold(description, 1500))
            head.append_text(safe_text(shown, "italic", multiline=True))
        self.query_one("#item-head", Static).update(head)
        self.query_one("#item-head-box").scroll_home(animate=False)
        box = self.query_one("#item-form-box", Vertical)
        await box.remove_children()
        schema = form_schema(kind, item)
        if schema is not None:
            await box.mount(
                SchemaForm(
                    schema,
                    self.last_arguments.get(item_key(kind, item)),
                    send_button=False,
                    sends=not self.read_only,
                    id="item-form",
                )
            )
        actions = self.query_one("#item-actions", FormActions)
        await actions.remove_children()
        buttons = [
            Button(
                # a replay's button is disabled: no key to advertise
                KIND[kind].verb if self.read_only else f"{KIND[kind].verb} (ctrl+s)",
                id="run",
                variant="primary",
                disabled=self.read_only,
                compact=True,
            )
        ]
        if kind == "tools" and (item.get("execution") or {}).get("taskSupport") in (
            "optional",
            "required",
        ):
            buttons.append(
                Button("Call as task", id="run-task", disabled=self.read_only, compact=True)
            )
        if kind == "resources" and subscribable:
            buttons.append(
                Button("Subscribe", id="subscribe", disabled=self.read_only, compact=True)
            )
            buttons.append(
                Button("Unsubscribe", id="unsubscribe", disabled=self.read_only, compact=True)
            )
        await actions.mount_all(buttons)
        # say what the empty pane is for (a replay cannot send)
        self.result.show_text(
            ""
            if self.read_only
            else f"{KIND[kind].verb.lower()} with ctrl+s: the result shows here"
        )
        self.call_after_refresh(self._fit_form)  # the head's height is known after layout

    async def show_instead_of_form(self, widget: Widget) -> None:
        """Put ``widget`` where the form goes (a replay's recorded calls of the item)."""
        box = self.query_one("#item-form-box", Vertical)
        await box.remove_children()
        await box.mount(widget)
        self.call_after_refresh(self._fit_form)

    def focus_form(self) -> None:
        """Focus the first field of the form, or the action button when there is none."""
        box = self.query_one("#item-form-box")
        # the screen's focus chain holds only what is shown: a hidden editor (the JSON
        # one, behind the form) is focusable for Textual and took the keys unseen
        fields = [
            w
            for w in self.screen.focus_chain
            if box in w.ancestors and isinstance(w, FIELD_CONTROLS)
        ]
        if fields:
            # the first field is at the top already; scrolling to it hid its label
            fields[0].focus(scroll_visible=False)
        else:
            self.query_one("#run", Button).focus()

    def _remember(self) -> None:
        """Keep the form's input for the session (no check: the form is going away)."""
        form = self.form
        if form is not None and self.kind is not None and self.item is not None:
            key = item_key(self.kind, self.item)
            self.last_arguments[key] = form.current_value()
            if form.edited:
                self._unsent[key] = display_name(self.item)

    def unsent(self) -> list[str]:
        """The names of the items whose form holds input that was never sent (none in a
        replay: its forms can never be sent, so quitting loses nothing of them)."""
        if self.read_only:
            return []
        names = dict(self._unsent)
        form = self.form
        if form is not None and form.edited and self.kind is not None and self.item is not None:
            names[item_key(self.kind, self.item)] = display_name(self.item)
        return list(names.values())

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        if event.button.id in ("run", "run-task"):
            self.submit("task" if event.button.id == "run-task" else "run")
        elif event.button.id in ("subscribe", "unsubscribe"):
            self.submit(event.button.id)

    def on_schema_form_submitted(self, event: SchemaForm.Submitted) -> None:
        """ctrl+s in the form: it has checked its value already; decide on that."""
        event.stop()
        self._send("run", event.arguments, event.issues)

    def submit(self, action: str = "run") -> None:
        """A button, or ctrl+s from outside the form: check the form once, then decide."""
        form = self.form
        if form is None or self.read_only or self.item is None:
            self._send(action, None, [])
            return
        arguments, issues = form.get_arguments()
        self._send(action, arguments, issues)

    def _send(self, action: str, arguments: Any, issues: list[ValidationIssue]) -> None:
        """The one place that decides whether a press sends."""
        if self.kind is None or self.item is None:
            return
        if self.read_only:
            self.notify(
                "this is a replay: calls are disabled (reconnect with "
                "`mcp-inspect replay FILE --against TARGET` to re-run)",
                severity="warning",
            )
            return
        form = self.form
        if form is not None:
            if form.json_mode and arguments is None and issues:
                return  # the JSON does not parse: nothing to send; the editor says why
            if issues and not self._warned_issues:
                self._warned_issues = True
                count = f"{len(issues)} problem{'s' * (len(issues) != 1)}"
                self.notify(
                    issues_notice(issues, form.focused_path()),
                    title=f"not sent: {count}",
                    severity="warning",
                )
                return
            if issues:
                self.notify(
                    f"sent anyway, with {len(issues)} validation issue"
                    f"{'s' * (len(issues) != 1)} (still marked on the form)",
                    severity="warning",
                )
            self._warned_issues = False
            key = item_key(self.kind, self.item)
            self.last_arguments[key] = arguments
            self._unsent.pop(key, None)
            form.mark_sent()
        self.post_message(self.Run(self.kind, self.item, arguments, action))

    def on_schema_form_changed(self, event: SchemaForm.Changed) -> None:
        self._warned_issues = False
