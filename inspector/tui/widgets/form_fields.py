"""The widget for one field of a `SchemaForm`: `FieldWidget` shows a node of the
`inspector.forms` field tree (label, control, help, error line) and writes every
edit into that node at once. Nested nodes get nested `FieldWidget`s.

A field knows nothing of the form around it: it posts `FieldWidget.Edited` after an
edit and `FieldWidget.Rebuilt` after it recomposed (the form checks again on both),
and the form finds its fields in the DOM.

Server text (titles, descriptions, enum labels) is data: it goes through `Text`
objects and control characters are shown.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, ClassVar

from rich.text import Text
from textual import events, on
from textual.actions import SkipAction
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.content import Content
from textual.message import Message
from textual.widget import AwaitMount, Widget
from textual.widgets import Button, Checkbox, Collapsible, Input, Select, SelectionList, Static
from textual.widgets._collapsible import CollapsibleTitle  # not exported; the group's header
from textual.widgets.selection_list import Selection

from inspector.forms.schema import (
    MISSING,
    ArrayNode,
    BoolNode,
    ConstNode,
    EnumNode,
    FieldNode,
    MultiEnumNode,
    NullNode,
    ObjectNode,
    ScalarNode,
    UnionNode,
)
from inspector.safe_text import visible
from inspector.tui.masked import shown_mask
from inspector.tui.widgets.field_input import FieldInput
from inspector.tui.widgets.steady_input import SteadyInput


def plain(text: str, style: str = "") -> Text:
    """Server text as a literal Rich Text (no markup parsing)."""
    return Text(visible(text), style=style)


def _short(value: Any, limit: int = 60) -> str:
    text = json.dumps(value, ensure_ascii=False)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _label(node: FieldNode, *, with_type: bool = True) -> Text:
    """`name *  type` with the title after the name when it says more."""
    text = Text()
    text.append(visible(node.label or node.title or "value"), style="bold")
    if (
        node.required
        and node.parent is not None
        and not isinstance(node.parent, ArrayNode | UnionNode)
    ):
        text.append(" *", style="bold red")
    title = node.title
    if title and _key(title) != _key(node.label or title):
        text.append(f"  {visible(title)}", style="italic")
    if with_type:
        text.append(f"  {visible(node.type_text)}", style="dim")
    return text


def _key(text: str) -> str:
    """`In person`, `in_person` and `in-person` say the same: the title is not repeated."""
    return "".join(c for c in text.casefold() if c.isalnum())


class RowButton(Button, can_focus=False):
    """An item's ↑ ↓ ✕: for the mouse; the keyboard uses the row's keys (one Tab stop
    per item, not four)."""


class VariantGroup(Collapsible):
    """The fields of a union's variant: its header takes no focus.

    The select above already says which variant this is; a focusable header between
    them was a Tab stop where typed text went nowhere (Tab from the select, then
    "tomorrow", was lost). Tab goes from the select to the variant's first field."""

    def on_mount(self) -> None:
        for title in self.query_children(CollapsibleTitle):
            title.can_focus = False


class ItemRow(Horizontal):
    """An array item or a map entry: its field(s) and buttons, keys on the item itself."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("alt+up", "item_up", "Item up"),
        Binding("alt+down", "item_down", "Item down"),
        Binding("ctrl+r", "remove_item", "Remove item"),
    ]

    def action_item_up(self) -> None:
        self._press("move-up")

    def action_item_down(self) -> None:
        self._press("move-down")

    def action_remove_item(self) -> None:
        self._press("remove")

    def _press(self, what: str) -> None:
        for button in self.query_children(".row-buttons").first().children:
            if isinstance(button, Button) and button.has_class(what):
                if not button.disabled:
                    button.press()  # the field's handler does the rest, as for a click
                return
        raise SkipAction()  # a map entry does not move: the key goes on


class FieldWidget(Vertical):
    """One node: header (label, null toggle), its control(s), help text and error line."""

    DEFAULT_CSS = """
    FieldWidget { height: auto; margin: 0 0 1 0; }
    /* one blank row between fields, none after the last one or around a bare value
       (a union's variant, the form's root): the enclosing field already has its own */
    FieldWidget:last-child, FieldWidget.bare { margin: 0; }
    FieldWidget > .field-head { height: auto; }
    FieldWidget > .field-head > .field-label { width: 1fr; height: auto; }
    FieldWidget > .field-label { height: auto; }
    FieldWidget > .field-head > .field-bool { width: 1fr; }
    FieldWidget > .field-head > .null-toggle { width: auto; height: auto; border: none;
        padding: 0 1; }
    FieldWidget .field-help { color: $text-muted; height: auto; }
    FieldWidget > .field-error { color: $text-error; height: auto; }
    FieldWidget .foreign { color: $text-warning; height: auto; }
    FieldWidget Input { width: 1fr; }
    FieldWidget Select { width: 1fr; }
    FieldWidget SelectionList { height: auto; max-height: 10; }
    FieldWidget .group { height: auto; border: round $primary 40%; padding: 0 1;
        margin: 0; }
    FieldWidget .group > Contents { padding: 0 0 0 1; height: auto; }
    FieldWidget .row { height: auto; }
    FieldWidget .row > FieldWidget { width: 1fr; margin: 0; }
    FieldWidget .row > .row-buttons { width: auto; height: auto; }
    FieldWidget .row > Input.row-key { width: 20; }
    FieldWidget Button.small { min-width: 3; width: auto; margin: 0 0 0 1; }
    FieldWidget Button.add { width: auto; margin: 0; }
    FieldWidget .const { color: $text-muted; height: auto; }
    /* where the focus is, plainly (in a screenshot too, without a cursor): the control
       takes a tinted background, its field's label the accent colour, an item its row */
    FieldWidget Input:focus, FieldWidget Select:focus > SelectCurrent,
    FieldWidget SelectionList:focus { background: $primary 40%; }
    FieldWidget .field-label.-lit { color: $accent; }
    FieldWidget ItemRow:focus-within { background: $primary 12%; }
    FieldWidget ItemRow:focus-within > .row-buttons > RowButton:enabled { color: $accent; }
    """

    @dataclass
    class Edited(Message):
        """The user changed `node` (it holds the new value already)."""

        field: FieldWidget
        node: FieldNode

        @property
        def control(self) -> FieldWidget:
            return self.field

    @dataclass
    class Rebuilt(Message):
        """The field recomposed after a structural change: new fields, no error lines."""

        field: FieldWidget

        @property
        def control(self) -> FieldWidget:
            return self.field

    def __init__(self, node: FieldNode, *, bare: bool = False) -> None:
        super().__init__(classes="bare" if bare else None)
        self.node = node
        self.bare = bare  # no header: a union's variant or a value shown by its row
        self._shown_text: str | None = None
        self._errors: list[str] = []  # what the error line says (no line: none)

    def _edited(self, node: FieldNode) -> None:
        self.post_message(self.Edited(self, node))

    # --- building --------------------------------------------------------------------
    def compose(self) -> ComposeResult:
        node = self.node
        group = isinstance(node, ObjectNode) and node.parent is not None
        is_null = node.nullable and node.is_null
        if not self.bare and (is_null or not group):
            if not node.nullable and not isinstance(node, BoolNode):
                yield Static(_label(node), classes="field-label")  # one widget, not a row
            else:
                with Horizontal(classes="field-head"):
                    if isinstance(node, BoolNode) and not is_null:
                        yield self._bool_box(node)
                    else:
                        yield Static(_label(node), classes="field-label")
                    if node.nullable:
                        yield self._null_toggle()
        if node.foreign is not MISSING:
            yield Static(
                plain(
                    f"loaded value kept as is: {_short(node.foreign)} "
                    "(edit the field to replace it)"
                ),
                classes="foreign",
            )
        help_text = node.description if not self.bare and not group else ""
        # a variant's box or a list of items would push the help far from its label
        help_first = isinstance(node, UnionNode | ArrayNode)
        if help_text and help_first:
            yield self._help(help_text)
        if not (node.nullable and node.is_null):
            yield from self._control(group)
        if help_text and not help_first:
            yield self._help(help_text)
        # the error line is mounted on demand: most fields never need one

    def _control(self, group: bool) -> ComposeResult:
        node = self.node
        if isinstance(node, ScalarNode):
            node.mask_text(visible(node.text))  # never hand control characters to the screen
            self._shown_text = node.text
            yield FieldInput(
                node.text,
                placeholder=visible(node.placeholder),
                classes="field-input",
                compact=True,
            )
        elif isinstance(node, BoolNode):
            if self.bare:  # otherwise the checkbox sits in the header row
                yield self._bool_box(node)
        elif isinstance(node, MultiEnumNode):
            yield SelectionList[int](
                *(
                    Selection(plain(label), i, i in node.chosen)
                    for i, (label, _) in enumerate(node.options)
                )
            )
        elif isinstance(node, EnumNode):
            yield Select(
                [(plain(label), i) for i, (label, _) in enumerate(node.options)],
                value=Select.NULL if node.selected is None else node.selected,
                prompt="choose…",
                classes="field-select",
                compact=True,
            )
        elif isinstance(node, ConstNode):
            yield Static(plain(f"= {_short(node.effective.get('const'))}"), classes="const")
        elif isinstance(node, NullNode):
            yield Static("null", classes="const")
        elif isinstance(node, UnionNode):
            yield Select(
                [(plain(v.title), i) for i, v in enumerate(node.variants)],
                value=node.selected,
                allow_blank=False,
                classes="variant-select",
                compact=True,
            )
            yield FieldWidget(node.current, bare=True)
        elif isinstance(node, ArrayNode):
            yield from self._array(node)
        elif isinstance(node, ObjectNode):
            if group:
                title = _label(node)
                variant = isinstance(node.parent, UnionNode)
                with (VariantGroup if variant else Collapsible)(
                    title=Content.from_rich_text(title),  # type: ignore[arg-type]
                    collapsed=False,
                    classes="group",
                ):
                    if node.nullable:
                        yield self._null_toggle()
                    if node.description:
                        yield self._help(node.description)
                    yield from self._object(node)
            else:
                yield from self._object(node)

    def _help(self, text: str) -> Static:
        """A field's description, the session's secrets out (``inspector.tui.masked``)."""
        shown = shown_mask(self.app)(text)
        return Static(Text(visible(shown, multiline=True)), classes="field-help")

    def _null_toggle(self) -> Checkbox:
        return Checkbox("null", self.node.is_null, classes="null-toggle", compact=True)

    @staticmethod
    def _bool_box(node: BoolNode) -> Checkbox:
        label = _label(node, with_type=False)
        if node.state is None and not node.required:
            label.append("  (unset)", style="dim")
        return Checkbox(label, bool(node.state), classes="field-bool", compact=True)

    def _object(self, node: ObjectNode) -> ComposeResult:
        if node.parent is None and not node.fields and not node.rows:
            yield Static("no declared arguments", classes="field-help")
        if not node.expanded:
            yield Button(
                plain(f"+ add {node.label or 'value'}"), classes="add expand", compact=True
            )
            return
        for child in node.fields.values():
            yield FieldWidget(child)
        for index, row in enumerate(node.rows):
            with ItemRow(classes="row map-row"):
                yield SteadyInput(
                    visible(row.key),
                    placeholder="key",
                    classes="row-key",
                    name=str(index),
                    compact=True,
                )
                yield FieldWidget(row.node, bare=True)
                with Horizontal(classes="row-buttons"):
                    yield RowButton(
                        "✕",
                        classes="small remove remove-row",
                        compact=True,
                        name=str(index),
                        tooltip="remove entry (ctrl+r)",
                    )
        if node.allows_extra:
            yield Button("+ add entry", classes="add add-row", compact=True)
        if node.lazy:
            yield Button("✕ remove", classes="small collapse", compact=True)

    def _array(self, node: ArrayNode) -> ComposeResult:
        for index, item in enumerate(node.items):
            with ItemRow(classes="row array-row"):
                yield FieldWidget(
                    item, bare=not isinstance(item, ObjectNode | ArrayNode | UnionNode)
                )
                with Horizontal(classes="row-buttons"):
                    yield RowButton(
                        "↑",
                        classes="small move-up",
                        compact=True,
                        name=str(index),
                        tooltip="move up (alt+↑)",
                        disabled=index == 0,
                    )
                    yield RowButton(
                        "↓",
                        classes="small move-down",
                        compact=True,
                        name=str(index),
                        tooltip="move down (alt+↓)",
                        disabled=index == len(node.items) - 1,
                    )
                    yield RowButton(
                        "✕",
                        classes="small remove remove-item",
                        compact=True,
                        name=str(index),
                        tooltip="remove item (ctrl+r)",
                    )
        yield Button("+ add item", classes="add add-item", compact=True, disabled=not node.can_add)

    async def rebuild(self, focus: str | None = None, index: int = -1) -> None:
        """Recompose this field from its node (after a structural change), then put the
        focus back on the control that `focus` selects (the `index`-th of this field's)."""
        self._errors = []  # the error line goes with the old children
        await self.recompose()
        self.post_message(self.Rebuilt(self))  # the new fields get their errors back
        if focus is None:
            return
        own = [w for w in self.query(focus) if self._mine(w) or w.parent is self]
        if not own:
            own = [w for w in self.query(focus) if w.focusable]
        if own:
            target = own[index] if -len(own) <= index < len(own) else own[-1]
            if not target.focusable:
                target = next((w for w in target.query("*") if w.focusable), target)
            target.focus()

    # --- where the focus is ----------------------------------------------------------
    # The label of every field the focus is in takes the accent colour. A class on the
    # label, not `:focus-within` on the field: that restyles the whole form per Tab.
    def on_descendant_focus(self, event: events.DescendantFocus) -> None:
        self._light(True)

    def on_descendant_blur(self, event: events.DescendantBlur) -> None:
        self._light(False)

    def _light(self, on: bool) -> None:
        if self.bare:
            return
        labels = list(self.query_children(".field-label"))
        for head in self.query_children(".field-head"):
            labels += head.query_children(".field-label")
        for label in labels:
            label.set_class(on, "-lit")

    # --- errors ----------------------------------------------------------------------
    def show_errors(self, messages: list[str]) -> AwaitMount | None:
        """Show messages in a red line under the field (or hide it); returns the line's
        mount when it is new (awaiting it: the line is in the DOM, styled).

        The line is mounted the first time and then only updated and shown or hidden:
        removing a widget takes effect later, so a line removed and shown again in the
        same turn (one check clearing, the next one setting) would vanish."""
        if messages == self._errors:
            return None
        self._errors = list(messages)
        lines = self.query_children(".field-error")
        text = Text("\n".join(f"✗ {visible(m)}" for m in messages))
        if lines:
            line = lines.first(Static)
            line.update(text)
            line.display = bool(messages)
            return None
        if messages:
            return self.mount(Static(text, classes="field-error"))
        return None

    @property
    def error_line(self) -> Static | None:
        """The error line, while it shows something."""
        lines = [line for line in self.query_children(".field-error") if line.display]
        return lines[0] if lines and isinstance(lines[0], Static) else None

    @property
    def errors(self) -> list[str]:
        """The messages the field's error line shows (empty: none)."""
        return list(self._errors)

    # --- events (each handler only looks at its own controls) ---------------------------
    def _mine(self, widget: Widget) -> bool:
        """Is `widget` a control of this field (not of a nested field)?"""
        for ancestor in widget.ancestors:
            if isinstance(ancestor, FieldWidget):
                return ancestor is self
        return False

    @on(Input.Changed)
    def _input_changed(self, event: Input.Changed) -> None:
        if not self._mine(event.input):
            return
        event.stop()
        if event.input.has_class("row-key"):
            node = self.node
            assert isinstance(node, ObjectNode)
            index = int(event.input.name or -1)
            # the key is shown with control characters escaped: unchanged means unchanged
            if 0 <= index < len(node.rows) and visible(node.rows[index].key) != event.value:
                node.set_row_key(index, event.value)
                self._edited(node)
            return
        if isinstance(self.node, ScalarNode) and event.value != self._shown_text:
            self._shown_text = event.value
            picked = event.input.picked if isinstance(event.input, FieldInput) else None
            if picked is not None and visible(picked) == event.value:
                self.node.set_text(picked)  # a value from a list: kept as the server sent it
                self.node.mask_text(event.value)
            else:
                self.node.set_text(event.value)
            self._edited(self.node)

    @on(Checkbox.Changed)
    async def _checkbox_changed(self, event: Checkbox.Changed) -> None:
        if not self._mine(event.checkbox):
            return
        event.stop()
        if event.checkbox.has_class("null-toggle"):
            if event.value != self.node.is_null:
                self.node.set_null(event.value)
                self._edited(self.node)
                await self.rebuild(".null-toggle")
        elif isinstance(self.node, BoolNode) and event.value != self.node.state:
            self.node.set_state(event.value)
            self._edited(self.node)
            if self.node.state is not None:
                event.checkbox.label = _label(self.node, with_type=False)

    @on(Select.Changed)
    async def _select_changed(self, event: Select.Changed) -> None:
        if not self._mine(event.select):
            return
        event.stop()
        value = event.value
        node = self.node
        if isinstance(node, UnionNode) and isinstance(value, int):
            if value != node.selected:
                node.select(value)
                self._edited(node)
                await self.rebuild(".variant-select")
        elif isinstance(node, EnumNode):
            index = value if isinstance(value, int) else None
            if index != node.selected:
                node.select(index)
                self._edited(node)

    @on(SelectionList.SelectedChanged)
    def _multi_changed(self, event: SelectionList.SelectedChanged[int]) -> None:
        if not self._mine(event.selection_list):
            return
        event.stop()
        node = self.node
        if isinstance(node, MultiEnumNode):
            chosen = set(event.selection_list.selected)
            # keep the order in which values were picked
            order = [i for i in node.chosen if i in chosen]
            order += [i for i in sorted(chosen) if i not in order]
            if order != node.chosen:
                node.set_chosen(order)
                self._edited(node)

    @on(Button.Pressed)
    async def _button(self, event: Button.Pressed) -> None:
        if not self._mine(event.button):
            return
        event.stop()
        button = event.button
        node = self.node
        index = int(button.name) if button.name and button.name.isdigit() else -1
        focus: tuple[str, int] = ("Button.add", -1)
        if isinstance(node, ArrayNode):
            if button.has_class("add-item"):
                node.add()
                focus = (".array-row", -1)
            elif button.has_class("remove-item"):
                node.remove(index)
                focus = _after_removal(".array-row", index, len(node.items))
            elif button.has_class("move-up") or button.has_class("move-down"):
                # the focus goes with the item (its buttons take none)
                focus = (".array-row", node.move(index, -1 if button.has_class("move-up") else 1))
        elif isinstance(node, ObjectNode):
            if button.has_class("add-row"):
                node.add_row()
                focus = (".row-key", -1)
            elif button.has_class("remove-row"):
                node.remove_row(index)
                focus = _after_removal(".map-row", index, len(node.rows))
            elif button.has_class("expand"):
                node.expand()
                node.touch()
                focus = ("FieldWidget", 0)
            elif button.has_class("collapse"):
                node.collapse()
                focus = (".expand", 0)
        self._edited(node)
        await self.rebuild(*focus)


def _after_removal(rows: str, index: int, left: int) -> tuple[str, int]:
    """Where the focus goes once a row is gone: the row now in its place (or the one
    before it), else the add button."""
    return (rows, min(index, left - 1)) if left else ("Button.add", -1)
