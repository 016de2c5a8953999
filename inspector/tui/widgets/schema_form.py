"""A form for a JSON Schema (tool arguments): fields from `inspector.forms`, plus raw JSON.

    form = SchemaForm(tool["inputSchema"], initial=last_arguments)
    value, issues = form.get_arguments()
    # or handle SchemaForm.Submitted(arguments, issues) on ctrl+s / Send; ctrl+t resets

The widget holds no state of its own beyond the field tree: every input writes into
its node at once, so rebuilding a part of the form (adding an item, switching a
variant, toggling null) loses nothing. `get_arguments` checks the value once and puts
each issue on its field; from then on the form checks again as the user edits, so an
error goes away when its value is fixed (and only then). Keys that type text never
fire the app's shortcuts from inside the form (`TypingScope`).

Server text (titles, descriptions, enum labels) is data: it goes through `Text` objects
and control characters are shown.
The widget for each field, `FieldWidget`, is in `inspector.tui.widgets.form_fields`.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, ClassVar

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.message import Message
from textual.screen import Screen
from textual.widget import AwaitMount, Widget
from textual.widgets import Button, Static

from inspector.forms.schema import (
    FieldNode,
    ValidationIssue,
    build_form,
    check_form,
    form_validator,
    in_form_order,
    validate,
)
from inspector.safe_text import visible
from inspector.tui.screens.confirm import ConfirmScreen
from inspector.tui.widgets.form_fields import FieldWidget, plain
from inspector.tui.widgets.json_editor import JsonEditor
from inspector.tui.widgets.typing_scope import TypingScope

__all__ = ["FieldWidget", "SchemaForm", "plain"]


class FormFields(VerticalScroll):
    """The form's fields, scrolling in the room the form gets.

    When error lines appear or go, the field the user is in is kept in view with its
    own line: lines shown above it could push it out of sight. This waits for the
    layout that holds the new lines (scrolling earlier is clamped to the old height)."""

    def keep_focus_in_view(self, mounts: list[AwaitMount]) -> None:
        if self.has_focus_within:
            self.call_later(self._after_mounts, mounts)

    async def _after_mounts(self, mounts: list[AwaitMount]) -> None:
        for mount in mounts:
            await mount
        if self.is_attached:
            self.screen.screen_layout_refresh_signal.subscribe(self, self._laid_out)
            self.screen.refresh(layout=True)

    def _laid_out(self, screen: Screen[Any]) -> None:
        screen.screen_layout_refresh_signal.unsubscribe(self)
        focused = screen.focused
        if focused is None or not self.has_focus_within:
            return
        field = next((a for a in focused.ancestors if isinstance(a, FieldWidget)), None)
        line = field.error_line if field is not None else None
        if line is not None:
            self.scroll_to_widget(line, animate=False, immediate=True)
        self.scroll_to_widget(focused, animate=False, immediate=True)  # it wins if not both


class SchemaForm(TypingScope, Widget, can_focus=False):
    """A form for a JSON Schema, with a raw JSON editor a key away (ctrl+j)."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("ctrl+j", "toggle_json", "JSON/form", show=True),
        Binding("ctrl+s", "submit", "Send", show=True),
        Binding("ctrl+t", "reset", "Reset", show=True),
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

    @dataclass
    class Submitted(Message):
        """The user asked to send (ctrl+s or Send); `issues` may be non-empty."""

        form: SchemaForm
        arguments: Any
        issues: list[ValidationIssue]

        @property
        def control(self) -> SchemaForm:
            return self.form

    @dataclass
    class Changed(Message):
        """A field changed (the app may re-validate or remember the arguments)."""

        form: SchemaForm

        @property
        def control(self) -> SchemaForm:
            return self.form

    @dataclass
    class FieldsBuilt(Message):
        """Every field was built anew (arguments loaded, JSON edited): what was attached
        to the old ones (completions) is to be attached again."""

        form: SchemaForm

        @property
        def control(self) -> SchemaForm:
            return self.form

    def __init__(
        self,
        schema: Any,
        initial: Any = None,
        *,
        send_button: bool = True,
        sends: bool = True,
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
        self.sends = sends  # ctrl+s sends (a replay's form does not: no Send in the footer)
        self._issues: list[ValidationIssue] = []
        self._checked = False  # issues were shown: check again on every edit
        self._edited = False  # the user changed a field since the form was built or sent
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
                        "Send",
                        id="send",
                        variant="primary",
                        tooltip="send (ctrl+s)",
                        compact=True,
                    )
            yield Static("", classes="form-errors")
        with FormFields(classes="form-fields"):
            yield FieldWidget(self.root, bare=True)
        yield JsonEditor(schema_check=self._schema_problems)

    @property
    def json_mode(self) -> bool:
        return self._json_mode

    @property
    def editor(self) -> JsonEditor:
        return self.query_one(JsonEditor)

    def field(self, path: tuple[str | int, ...]) -> FieldWidget | None:
        """The widget of the field at `path` (for tests and focus), if shown."""
        node = self.root.find(path)
        return self._shown_fields().get(id(node)) if node is not None else None

    def _shown_fields(self) -> dict[int, FieldWidget]:
        """id(node) -> the widget showing it, for the fields in the DOM now."""
        # walk_children, not query: no selector to match, 20x faster on a big form
        return {id(w.node): w for w in self.walk_children(FieldWidget)}

    @on(FieldWidget.Edited)
    def _field_edited(self, event: FieldWidget.Edited) -> None:
        event.stop()
        self._edited = True
        self.recheck()
        self.post_message(self.Changed(self))

    @on(FieldWidget.Rebuilt)
    def _field_rebuilt(self, event: FieldWidget.Rebuilt) -> None:
        event.stop()
        self.recheck()

    def recheck(self) -> None:
        """Once issues were shown, check again and show what is left (after an edit, or
        a part of the form rebuilt): fast with the form's own validator."""
        if self._checked and not self.json_mode:
            self.show_issues(check_form(self.root, self.schema)[1])

    @property
    def edited(self) -> bool:
        """Did the user change anything since the form was built (or `mark_sent`)?"""
        if self.json_mode and self.is_mounted:
            return self._edited or self.editor.text != self._json_shown
        return self._edited

    def mark_sent(self) -> None:
        """What the form holds was sent: nothing unsent from here."""
        self._edited = False
        if self.json_mode and self.is_mounted:
            self._json_shown = self.editor.text

    # --- values ----------------------------------------------------------------------
    def set_arguments(self, value: Any) -> None:
        """Load arguments into the form (and the editor, if shown)."""
        self.root.set_value(value)
        self._rebuild_fields()
        if self.json_mode:
            self.editor.set_value(self.root.value())

    def _rebuild_fields(self) -> AwaitMount:
        scroll = self.query_one(".form-fields", VerticalScroll)
        scroll.remove_children()
        mounted = scroll.mount(FieldWidget(self.root, bare=True))
        self.call_after_refresh(self._fields_rebuilt)  # once the new fields are there
        return mounted

    def _fields_rebuilt(self) -> None:
        self.recheck()
        self.post_message(self.FieldsBuilt(self))

    def get_arguments(self) -> tuple[Any, list[ValidationIssue]]:
        """(arguments, issues): from the form, or from the editor in JSON mode.

        The one check before a send: issues are also shown (on the fields, or under the
        editor), and from then on the form checks again as the user edits. With invalid
        JSON the arguments are None and the one issue says why.
        """
        self._checked = True
        if self.json_mode:
            value, error = self.editor.parse()
            if error is not None:
                issues = [ValidationIssue((), error)]
                self.editor.show_error(error)
                return None, issues
            # typed as JSON on purpose: an explicit "" is meant, only the schema speaks
            issues = validate(self.schema, value, form_validator(self.root, self.schema))
            issues = in_form_order(self.root, issues)
        else:
            value, issues = check_form(self.root, self.schema)
        self.show_issues(issues)
        return value, issues

    def _schema_problems(self, value: Any) -> list[str]:
        """What the schema says of a value typed as JSON (the editor's live line): the
        issues a send would mark."""
        issues = validate(self.schema, value, form_validator(self.root, self.schema))
        return [self._issue_text(issue) for issue in in_form_order(self.root, issues)]

    def focused_path(self) -> tuple[str | int, ...] | None:
        """Where the field the user is in sits in the arguments (None: not in a field)."""
        focused = self.screen.focused if self.is_attached else None
        if focused is None:
            return None
        for widget in focused.ancestors_with_self:
            if isinstance(widget, FieldWidget) and self in widget.ancestors:
                return widget.node.path
        return None

    def current_value(self) -> Any:
        """The arguments as they stand, unchecked and shown nowhere (to keep them)."""
        if self.json_mode:
            value, error = self.editor.parse()
            if error is None:
                return value
        return self.root.value()

    def show_issues(self, issues: list[ValidationIssue]) -> None:
        """Put each issue on the field it belongs to; the rest go on top of the form.

        Each field is set once, to its messages or to none: showing the same issues
        twice changes nothing on screen (no error line removed and added back)."""
        self._issues = list(issues)
        if self.json_mode:
            editor = self.editor
            editor.check()  # the line under the editor lists the schema's problems
            if editor.checked_text:
                editor.show_error(None)
            else:  # too long to check as typed: the send's check says it
                texts = [self._issue_text(i) for i in issues]
                editor.show_error(texts[0] if texts else None, *texts[1:])
            return
        shown = self._shown_fields()
        per_widget: dict[int, list[str]] = {}
        general: list[str] = []
        for issue in issues:
            node: FieldNode | None = self.root.find(issue.path)
            message = issue.message
            extra = issue.path[len(node.path) :] if node is not None else issue.path
            if extra:
                message = f"{'/'.join(map(str, extra))}: {message}"
            while node is not None:
                shown_at = shown.get(id(node))
                if shown_at is not None and shown_at.is_attached and node is not self.root:
                    per_widget.setdefault(id(shown_at), []).append(message)
                    break
                node = node.parent
            else:
                general.append(self._issue_text(issue))
        mounts, changed = [], False
        for widget in shown.values():
            messages = per_widget.get(id(widget), [])
            changed = changed or messages != widget.errors
            mount = widget.show_errors(messages)
            if mount is not None:
                mounts.append(mount)
        if changed:
            self.query_one(".form-fields", FormFields).keep_focus_in_view(mounts)
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
        in_editor = self.editor.has_focus_within
        self._show_json(False)
        built: AwaitMount | None = None
        if self.editor.text != self._json_shown:  # not edited: keep the fields as they are
            self._edited = True
            self.root.set_value(value)
            built = self._rebuild_fields()
        else:
            self.recheck()
        self._set_toggle_label("{ } JSON")
        self.editor.show_error(None)
        if in_editor:
            # the editor is hidden: the focus would go to the catalog, and what the user
            # types next to its shortcuts; it goes to the form's first field instead
            self.call_later(self._focus_first_field, built)

    def action_reset(self) -> None:
        """Put the schema's defaults back in every field (asks first when that loses
        input: in the JSON editor the reset is an edit, ctrl+z undoes it)."""
        defaults = build_form(self.schema)
        if self.current_value() == defaults.value():
            self._reset_to(defaults)
            return

        def answered(answer: str | None) -> None:
            if answer is not None:
                self._reset_to(build_form(self.schema))

        undo = " (ctrl+z in the editor brings it back)" if self.json_mode else ""
        question = f"Reset the form to its defaults? What it holds now is dropped{undo}."
        self.app.push_screen(ConfirmScreen(question, always=False), answered)

    def _reset_to(self, root: FieldNode) -> None:
        self.root = root
        self._edited = True
        built = self._rebuild_fields()
        if self.json_mode:
            self.editor.replace_text(json.dumps(root.value(), indent=2, ensure_ascii=False))
        else:  # the field the focus was in is gone with the old ones
            self.call_later(self._focus_first_field, built)
        self.post_message(self.Changed(self))

    async def _focus_first_field(self, built: AwaitMount | None) -> None:
        if built is not None:
            await built  # the new fields, not the old ones being removed
        fields = self.query_one(".form-fields", VerticalScroll)
        first = next((w for w in fields.query("*") if w.focusable), None)
        if first is not None:
            first.focus()

    def _show_json(self, flag: bool) -> None:
        # Show/hide the two children directly: a class on the form would restyle every
        # field below it (slow with hundreds of fields).
        self._json_mode = flag
        self.editor.display = flag
        self.query_one(".form-fields", VerticalScroll).display = not flag

    def _set_toggle_label(self, label: str) -> None:
        self.query_one("#toggle-json", Button).label = label

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action in ("submit", "reset"):
            return self.sends  # a replay's form: nothing to send, nothing to reset
        return True

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
