"""A form for a JSON Schema (tool arguments): fields from `inspector.forms`, plus raw JSON.

    form = SchemaForm(tool["inputSchema"], initial=last_arguments)
    value, issues = form.get_arguments()
    # or handle SchemaForm.Submitted(arguments, issues) on ctrl+s / Send

The widget holds no state of its own beyond the field tree: every input writes into
its node at once, so rebuilding a part of the form (adding an item, switching a
variant, toggling null) loses nothing. Server text (titles, descriptions, enum
labels) is data: it goes through `Text` objects and control characters are shown.
The widget for each field, `FieldWidget`, is in `inspector.tui.widgets.form_fields`.
"""

from __future__ import annotations

from typing import Any, ClassVar

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.message import Message
from textual.widget import Widget
from textual.widgets import Button, Static

from inspector.forms.schema import FieldNode, ValidationIssue, build_form, validate
from inspector.tui.safe_text import visible
from inspector.tui.widgets.form_fields import FieldWidget, plain
from inspector.tui.widgets.json_editor import JsonEditor

__all__ = ["FieldWidget", "SchemaForm", "plain"]


class SchemaForm(Widget, can_focus=False):
    """A form for a JSON Schema, with a raw JSON editor a key away (ctrl+j)."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("ctrl+j", "toggle_json", "JSON/form", show=True),
        Binding("ctrl+s", "submit", "Send", show=True),
    ]

    # The buttons and the general errors are docked: the fields (or the editor) below
    # then get 100% of what is left, not of the whole form, and never run past its end.
    DEFAULT_CSS = """
    SchemaForm { height: auto; max-height: 100%; }
    SchemaForm > .form-top { dock: top; height: auto; }
    SchemaForm .form-bar { height: auto; margin: 0 0 1 0; }
    SchemaForm .form-bar > Button { margin: 0 1 0 0; min-width: 8; }
    SchemaForm .form-errors { color: $text-error; height: auto; display: none; }
    SchemaForm .form-errors.shown { display: block; }
    SchemaForm > VerticalScroll { height: auto; max-height: 100%; }
    SchemaForm > JsonEditor { display: none; max-height: 100%; }
    """

    class Submitted(Message):
        """The user asked to send (ctrl+s or Send); `issues` may be non-empty."""

        def __init__(self, form: SchemaForm, arguments: Any, issues: list[ValidationIssue]) -> None:
            super().__init__()
            self.form = form
            self.arguments = arguments
            self.issues = issues

        @property
        def control(self) -> SchemaForm:
            return self.form

    class Changed(Message):
        """A field changed (the app may re-validate or remember the arguments)."""

        def __init__(self, form: SchemaForm) -> None:
            super().__init__()
            self.form = form

        @property
        def control(self) -> SchemaForm:
            return self.form

    def __init__(
        self,
        schema: Any,
        initial: Any = None,
        *,
        send_button: bool = True,
        name: str | None = None,
        id: str | None = None,
        classes: str | None = None,
    ) -> None:
        super().__init__(name=name, id=id, classes=classes)
        self.schema = schema  # kept as given: validation and display use the original
        self.root = build_form(schema)
        if initial is not None:
            self.root.set_value(initial)
        self.send_button = send_button
        self._widgets: dict[int, FieldWidget] = {}
        self._issues: list[ValidationIssue] = []
        self._json_mode = False
        self._json_shown = ""  # the text the editor was given, to spot "no edit"

    # --- layout ----------------------------------------------------------------------
    def compose(self) -> ComposeResult:
        with Vertical(classes="form-top"):
            with Horizontal(classes="form-bar"):
                yield Button(
                    "{ } JSON", id="toggle-json", tooltip="edit as raw JSON (ctrl+j)", compact=True
                )
                if self.send_button:
                    yield Button(
                        "Send", id="send", variant="primary", tooltip="send (ctrl+s)",
                        compact=True,
                    )
            yield Static("", classes="form-errors")
        with VerticalScroll(classes="form-fields"):
            yield FieldWidget(self.root, self, bare=True)
        yield JsonEditor()

    @property
    def json_mode(self) -> bool:
        return self._json_mode

    @property
    def editor(self) -> JsonEditor:
        return self.query_one(JsonEditor)

    def field(self, path: tuple[str | int, ...]) -> FieldWidget | None:
        """The widget of the field at `path` (for tests and focus), if shown."""
        node = self.root.find(path)
        widget = self._widgets.get(id(node))
        return widget if widget is not None and widget.is_attached else None

    def _register(self, widget: FieldWidget) -> None:
        self._widgets[id(widget.node)] = widget

    def _changed(self, node: FieldNode) -> None:
        widget = self._widgets.get(id(node))
        if widget is not None and widget.is_attached:
            widget.show_errors([])
        self.post_message(self.Changed(self))

    # --- values ----------------------------------------------------------------------
    def set_arguments(self, value: Any) -> None:
        """Load arguments into the form (and the editor, if shown)."""
        self.root.set_value(value)
        self._rebuild_fields()
        if self.json_mode:
            self.editor.set_value(self.root.value())

    def _rebuild_fields(self) -> None:
        self._widgets.clear()
        scroll = self.query_one(".form-fields", VerticalScroll)
        scroll.remove_children()
        scroll.mount(FieldWidget(self.root, self, bare=True))

    def get_arguments(self) -> tuple[Any, list[ValidationIssue]]:
        """(arguments, issues): from the form, or from the editor in JSON mode.

        Issues are also shown (on the fields, or under the editor). With invalid JSON
        the arguments are None and the one issue says why.
        """
        if self.json_mode:
            value, error = self.editor.parse()
            if error is not None:
                issues = [ValidationIssue((), error)]
                self.editor.show_error(error)
                return None, issues
        else:
            value = self.root.value()
        issues = validate(self.schema, value)
        self.show_issues(issues)
        return value, issues

    def show_issues(self, issues: list[ValidationIssue]) -> None:
        """Put each issue on the field it belongs to; the rest go on top of the form."""
        self._issues = list(issues)
        for widget in self._widgets.values():
            if widget.is_attached:
                widget.show_errors([])
        if self.json_mode:
            texts = [self._issue_text(i) for i in issues]
            self.editor.show_error(texts[0] if texts else None, *texts[1:])
            return
        per_widget: dict[int, list[str]] = {}
        general: list[str] = []
        for issue in issues:
            node: FieldNode | None = self.root.find(issue.path)
            message = issue.message
            extra = issue.path[len(node.path) :] if node is not None else issue.path
            if extra:
                message = f"{'/'.join(map(str, extra))}: {message}"
            while node is not None:
                shown_at = self._widgets.get(id(node))
                if shown_at is not None and shown_at.is_attached and node is not self.root:
                    per_widget.setdefault(id(shown_at), []).append(message)
                    break
                node = node.parent
            else:
                general.append(self._issue_text(issue))
        for widget in self._widgets.values():
            if id(widget) in per_widget:
                widget.show_errors(per_widget[id(widget)])
        bar = self.query_one(".form-errors", Static)
        if general:
            bar.update(Text("\n".join(f"✗ {visible(m)}" for m in general)))
            bar.add_class("shown")
        else:
            bar.update("")
            bar.remove_class("shown")

    @staticmethod
    def _issue_text(issue: ValidationIssue) -> str:
        where = "/".join(map(str, issue.path))
        return f"{where}: {issue.message}" if where else issue.message

    # --- actions ---------------------------------------------------------------------
    def action_toggle_json(self) -> None:
        """Form -> JSON text, or JSON text -> form (stays in the editor if invalid)."""
        if not self.json_mode:
            self.editor.set_value(self.root.value())
            self._json_shown = self.editor.text
            self._show_json(True)
            self.editor.text_area.focus()
            self._set_toggle_label("☰ Form")
            return
        value, error = self.editor.parse()
        if error is not None:
            self.editor.show_error(error)
            return
        self._show_json(False)
        if self.editor.text != self._json_shown:  # not edited: keep the fields as they are
            self.root.set_value(value)
            self._rebuild_fields()
        self._set_toggle_label("{ } JSON")
        self.editor.show_error(None)

    def _show_json(self, flag: bool) -> None:
        # Show/hide the two children directly: a class on the form would restyle every
        # field below it (slow with hundreds of fields).
        self._json_mode = flag
        self.editor.display = flag
        self.query_one(".form-fields", VerticalScroll).display = not flag

    def _set_toggle_label(self, label: str) -> None:
        self.query_one("#toggle-json", Button).label = label

    def action_submit(self) -> None:
        value, issues = self.get_arguments()
        if self.json_mode and value is None and issues:
            return  # the JSON does not parse: nothing to send; the error is shown
        self.post_message(self.Submitted(self, value, issues))

    @on(Button.Pressed, "#toggle-json")
    def _toggle_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        self.action_toggle_json()

    @on(Button.Pressed, "#send")
    def _send_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        self.action_submit()
