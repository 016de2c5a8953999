"""SchemaForm in a real Textual app, driven with Pilot (keys and clicks)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import anyio
import pytest
from textual.app import App, ComposeResult
from textual.widgets import Button, Checkbox, Input, Select, SelectionList, Static, TextArea
from tui_helpers import WAIT, focus, screen_text, wait_for

from inspector.forms.schema import ValidationIssue
from inspector.tui.widgets.json_editor import JsonEditor
from inspector.tui.widgets.schema_form import FieldWidget, SchemaForm

pytestmark = pytest.mark.slow  # end to end: see pyproject's markers

SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "name": {"type": "string", "description": "who [bold red]is[/] this \x1b[31m"},
        "age": {"type": "integer", "minimum": 0},
        "address": {"$ref": "#/$defs/Address"},
        "tags": {"type": "array", "items": {"type": "string"}},
        "pet": {
            "anyOf": [
                {
                    "title": "Cat",
                    "type": "object",
                    "properties": {"kind": {"const": "cat"}, "lives": {"type": "integer"}},
                },
                {
                    "title": "Dog",
                    "type": "object",
                    "properties": {"kind": {"const": "dog"}, "good": {"type": "boolean"}},
                },
                {"type": "null"},
            ],
            "default": None,
        },
        "role": {"enum": ["admin", "user"], "default": "user"},
        "scopes": {"type": "array", "items": {"enum": ["read", "write"]}},
        "env": {"type": "object", "additionalProperties": {"type": "string"}},
        "next": {"$ref": "#/$defs/Link"},
    },
    "required": ["name", "age"],
    "$defs": {
        "Address": {
            "type": "object",
            "title": "Address",
            "properties": {
                "street": {"type": "string"},
                "city": {"type": "string", "default": "Paris"},
            },
            "required": ["street"],
        },
        "Link": {
            "type": "object",
            "properties": {"v": {"type": "integer"}, "next": {"$ref": "#/$defs/Link"}},
        },
    },
}


class FormApp(App[None]):
    def __init__(self, schema: dict[str, Any], initial: Any = None) -> None:
        super().__init__()
        self.schema = schema
        self.initial = initial
        self.submitted: list[SchemaForm.Submitted] = []

    def compose(self) -> ComposeResult:
        yield SchemaForm(self.schema, self.initial)

    def on_schema_form_submitted(self, message: SchemaForm.Submitted) -> None:
        self.submitted.append(message)


def field(form: SchemaForm, *path: str | int) -> FieldWidget:
    widget = form.field(path)
    assert widget is not None, path
    return widget


def text_of(widget: Static) -> str:
    return str(widget.render())


async def click(pilot: Any, widget: Any) -> None:
    widget.scroll_visible(animate=False)
    await pilot.pause()
    assert await pilot.click(widget)
    await pilot.pause()


async def test_keyboard_fills_fields_in_tab_order_including_a_nested_object() -> None:
    app = FormApp(SCHEMA)
    with anyio.fail_after(WAIT):
        async with app.run_test(size=(100, 60)) as pilot:
            form = app.query_one(SchemaForm)
            await click(pilot, field(form, "name").query_one(Input))
            await pilot.press(*"Ada", "tab", "4", "2", "tab")
            assert app.focused is field(form, "address").query_one("CollapsibleTitle")
            await pilot.press("tab")  # into the group: the nested street input
            assert field(form, "address", "street").query_one(Input) is app.focused
            await pilot.press(*"Main St")
            await pilot.pause()
            assert form.root.value()["name"] == "Ada"
            assert form.root.value()["age"] == 42
            assert form.root.value()["address"] == {"street": "Main St", "city": "Paris"}
            assert "tags" not in form.root.value() and "env" not in form.root.value()


async def test_array_items_add_move_remove_by_mouse() -> None:
    app = FormApp(SCHEMA)
    with anyio.fail_after(WAIT):
        async with app.run_test(size=(100, 60)) as pilot:
            form = app.query_one(SchemaForm)
            for text in ("a", "b"):
                await click(pilot, field(form, "tags").query_one(".add-item", Button))
                inputs = field(form, "tags").query(Input)
                await focus(pilot, inputs.last())
                await pilot.press(text)
                await pilot.pause()
            assert form.root.value()["tags"] == ["a", "b"]
            await click(pilot, field(form, "tags").query(".move-up").last())
            assert form.root.value()["tags"] == ["b", "a"]
            assert [i.value for i in field(form, "tags").query(Input)] == ["b", "a"]
            await click(pilot, field(form, "tags").query(".remove-item").first())
            assert form.root.value()["tags"] == ["a"]


async def test_array_by_keyboard_focus_follows_the_item() -> None:
    """An item is one Tab stop; alt+↑ alt+↓ move it and ctrl+r removes it, from the item."""
    app = FormApp(SCHEMA)
    with anyio.fail_after(WAIT):
        async with app.run_test(size=(100, 60)) as pilot:
            form = app.query_one(SchemaForm)
            for text in ("x", "y", "z"):
                await focus(pilot, field(form, "tags").query_one(".add-item", Button))
                await pilot.press("enter")
                await pilot.pause()
                assert isinstance(app.focused, Input)  # the new item's input
                await pilot.press(text)
            await pilot.pause()
            assert form.root.value()["tags"] == ["x", "y", "z"]
            boxes = list(field(form, "tags").query(Input))
            await focus(pilot, boxes[0])
            await pilot.press("tab")
            assert app.focused is boxes[1]  # the next item, not the first one's buttons
            await pilot.press("tab", "tab")
            assert app.focused is field(form, "tags").query_one(".add-item", Button)
            await focus(pilot, boxes[2])
            await pilot.press("alt+up")
            await pilot.pause()
            await pilot.press("alt+up")  # the focus went with the item
            await pilot.pause()
            assert form.root.value()["tags"] == ["z", "x", "y"]
            assert isinstance(app.focused, Input) and app.focused.value == "z"
            await pilot.press("alt+up")  # the first item goes nowhere
            await pilot.press("alt+down")
            await pilot.pause()
            assert form.root.value()["tags"] == ["x", "z", "y"]
            await pilot.press("ctrl+r")
            await pilot.pause()
            assert form.root.value()["tags"] == ["x", "y"]
            assert isinstance(app.focused, Input) and app.focused.value == "y"  # took its place
            await pilot.press("ctrl+r", "ctrl+r")
            await pilot.pause()
            assert form.root.value()["tags"] == []
            assert app.focused is field(form, "tags").query_one(".add-item", Button)


async def test_pick_a_union_variant_and_toggle_null() -> None:
    app = FormApp(SCHEMA)
    with anyio.fail_after(WAIT):
        async with app.run_test(size=(100, 60)) as pilot:
            form = app.query_one(SchemaForm)
            assert form.root.value()["pet"] is None
            pet = field(form, "pet")
            await click(pilot, pet.query_one(".null-toggle", Checkbox))
            assert form.root.value()["pet"] == {"kind": "cat"}
            select = field(form, "pet").query_one(".variant-select", Select)
            await focus(pilot, select)
            await pilot.press("enter", "down", "enter")  # open, move to Dog, pick
            await pilot.pause()
            assert form.root.value()["pet"] == {"kind": "dog"}
            good = field(form, "pet", "good").query_one(Checkbox)
            await click(pilot, good)
            assert form.root.value()["pet"] == {"kind": "dog", "good": True}
            await click(pilot, field(form, "pet").query_one(".null-toggle", Checkbox))
            assert form.root.value()["pet"] is None
            assert not field(form, "pet").query(".variant-select")


async def test_enum_multi_select_map_rows_and_recursive_expand() -> None:
    app = FormApp(SCHEMA)
    with anyio.fail_after(WAIT):
        async with app.run_test(size=(100, 60)) as pilot:
            form = app.query_one(SchemaForm)
            role = field(form, "role").query_one(Select)
            assert role.value == 1
            role.value = 0
            scopes = field(form, "scopes").query_one(SelectionList)
            scopes.select(1)
            await click(pilot, field(form, "env").query_one(".add-row", Button))
            key, value = field(form, "env").query(Input)
            key.value = "HOME"
            value.value = "/root"
            await pilot.pause()
            field(form, "next", "v").query_one(Input).value = "1"
            inner = field(form, "next", "next")  # recursive: waits for a click
            assert not inner.query(".field-input")
            await click(pilot, inner.query_one(".expand", Button))
            field(form, "next", "next", "v").query_one(Input).value = "2"
            await pilot.pause()
            assert field(form, "next", "next", "next").query_one(".expand", Button)
            args = form.root.value()
            assert args["role"] == "admin" and args["scopes"] == ["write"]
            assert args["env"] == {"HOME": "/root"}
            assert args["next"] == {"v": 1, "next": {"v": 2}}
            await click(pilot, field(form, "next", "next").query_one(".collapse", Button))
            assert form.root.value()["next"] == {"v": 1}


async def test_json_editor_round_trip_keeps_input_and_refuses_bad_json() -> None:
    app = FormApp(
        SCHEMA,
        initial={"name": "Ada", "age": 3, "tags": ["x"], "pet": {"kind": "dog", "good": False}},
    )
    with anyio.fail_after(WAIT):
        async with app.run_test(size=(100, 60)) as pilot:
            form = app.query_one(SchemaForm)
            field(form, "address", "street").query_one(Input).value = "Elm"
            await pilot.pause()
            before = form.root.value()
            await pilot.press("ctrl+j")
            await pilot.pause()
            assert form.json_mode
            editor = form.query_one(JsonEditor)
            assert editor.display and json.loads(editor.text) == before
            assert isinstance(app.focused, TextArea)
            # edit the JSON: the form must show the edit after switching back
            changed = {**before, "age": 7, "tags": ["x", "y"]}
            editor.text_area.load_text(json.dumps(changed))
            await pilot.press("ctrl+j")
            await pilot.pause()
            assert not form.json_mode
            assert form.root.value() == changed
            assert field(form, "age").query_one(Input).value == "7"
            assert [i.value for i in field(form, "tags").query(Input)] == ["x", "y"]
            # invalid JSON: stay in the editor, with the error shown
            await click(pilot, form.query_one("#toggle-json", Button))
            assert form.json_mode
            editor.text_area.load_text('{"name": ')
            await pilot.press("ctrl+j")
            await pilot.pause()
            assert form.json_mode
            error = editor.query_one(".json-error", Static)
            assert error.display and "invalid JSON" in text_of(error)
            value, issues = form.get_arguments()
            assert value is None and "invalid JSON" in issues[0].message
            assert form.root.value() == changed  # the form did not lose anything


async def test_validation_errors_show_on_fields_and_submitted_is_posted() -> None:
    app = FormApp(SCHEMA)
    with anyio.fail_after(WAIT):
        async with app.run_test(size=(100, 60)) as pilot:
            form = app.query_one(SchemaForm)
            field(form, "age").query_one(Input).value = "-5"
            await pilot.pause()
            await pilot.press("ctrl+s")
            await pilot.pause()
            assert len(app.submitted) == 1
            message = app.submitted[0]
            assert message.arguments["age"] == -5
            assert ValidationIssue(("age",), "must be at least 0 (got -5)") in message.issues
            error = field(form, "age").query_one(".field-error", Static)
            assert error.display and "must be at least 0" in text_of(error)
            # fixing the field clears its error line
            field(form, "age").query_one(Input).value = "5"
            await pilot.pause()
            assert not error.display and field(form, "age").errors == []
            # the name was never typed in: required, and said so until it is given
            assert field(form, "name").errors == ["required: nothing typed yet"]
            field(form, "name").query_one(Input).value = "Ada"
            await pilot.pause()
            assert field(form, "name").errors == []
            await click(pilot, form.query_one("#send", Button))
            assert len(app.submitted) == 2 and app.submitted[1].issues == []
            # a deep issue: the field inside the array row gets it
            form.show_issues([ValidationIssue(("address", "street"), "bad street")])
            await pilot.pause()
            street_error = field(form, "address", "street").query_one(".field-error", Static)
            assert "bad street" in text_of(street_error)
            # an issue with no field goes on top of the form
            form.show_issues([ValidationIssue((), "invalid input schema: x")])
            await pilot.pause()
            assert "invalid input schema" in text_of(form.query_one(".form-errors", Static))


async def test_server_text_is_shown_literally() -> None:
    app = FormApp(SCHEMA)
    with anyio.fail_after(WAIT):
        async with app.run_test(size=(100, 60)) as pilot:
            await pilot.pause()
            form = app.query_one(SchemaForm)
            help_line = field(form, "name").query_one(".field-help", Static)
            shown = text_of(help_line)
            assert "[bold red]is[/]" in shown and "\x1b" not in shown and "␛" in shown
            label = text_of(field(form, "name").query_one(".field-label", Static))
            assert label.startswith("name *  string")


async def test_hostile_property_names_and_enum_labels_stay_literal() -> None:
    name = "[b]x[/b]\x1b[2J"
    schema = {
        "type": "object",
        "properties": {
            name: {"$ref": "#/$defs/Loop"},
            "pick": {"enum": ["[red]a", "b\x07"]},
            "m": {"type": "object", "additionalProperties": {"type": "integer"}},
        },
        "$defs": {"Loop": {"type": "object", "properties": {"again": {"$ref": "#/$defs/Loop"}}}},
    }
    app = FormApp(schema, initial={"m": {"k\x1b": 1}})
    with anyio.fail_after(WAIT):
        async with app.run_test(size=(100, 60)) as pilot:
            await pilot.pause()
            form = app.query_one(SchemaForm)
            expand = field(form, name, "again").query_one(".expand", Button)
            assert "[b]x[/b]" not in str(expand.label) and "+ add again" in str(expand.label)
            title = field(form, name).query_one("CollapsibleTitle")
            assert "[b]x[/b]␛[2J" in str(title.render())
            select = field(form, "pick").query_one(Select)
            select.value = 0
            await pilot.pause()
            assert "[red]a" in str(select.query_one("SelectCurrent #label", Static).render())
            key = field(form, "m").query_one(".row-key", Input)
            assert key.value == "k␛"
            assert form.root.value()["m"] == {"k\x1b": 1}  # shown escaped, kept exact


async def test_screenshot(tmp_path: Path) -> None:
    app = FormApp(
        SCHEMA,
        initial={
            "name": "Ada",
            "tags": ["a", "b"],
            "pet": {"kind": "dog", "good": True},
            "env": {"HOME": "/root"},
        },
    )
    with anyio.fail_after(WAIT):
        async with app.run_test(size=(100, 70)) as pilot:
            form = app.query_one(SchemaForm)
            form.get_arguments()
            await pilot.pause()
            path = app.save_screenshot("schema_form.svg", str(tmp_path))
            svg = Path(path).read_text()
            assert "Ada" in svg and "required" in svg


SCHEDULE_ARGS = {
    "title": "Design review",
    "when": {"start": "2026-12-01T10:00:00Z", "end": "2026-12-01T11:00:00Z"},
    "recurrence": "weekly",
    "location": {"kind": "in_person", "room": "4.02", "floor": 4},
    "reminders": [15, 60],
    "attendees": ["ada@example.com"],
    "priority": 2,
}


async def test_one_blank_row_between_fields_none_doubled_after_a_union_box() -> None:
    from inspector.demo.schemas import SCHEDULE_EVENT

    app = FormApp(SCHEDULE_EVENT, SCHEDULE_ARGS)
    with anyio.fail_after(WAIT):
        async with app.run_test(size=(90, 80)) as pilot:
            form = app.query_one(SchemaForm)
            await wait_for(
                pilot,
                lambda: (
                    form.field(("priority",)) is not None
                    and form.field(("priority",)).region.height > 0
                ),
            )  # type: ignore[union-attr]
            lines = [line.rstrip() for line in screen_text(app).splitlines()]
            end = max(i for i, line in enumerate(lines) if line.strip())
            body = lines[: end + 1]
            doubled = [i for i in range(1, len(body)) if not body[i] and not body[i - 1]]
            assert doubled == [], "\n".join(body)
            # a box's last field leaves no blank row before its bottom border
            for i, line in enumerate(body):
                if line.startswith("╰"):
                    assert body[i - 1].strip("│ "), "\n".join(body[i - 3 : i + 1])
            # the help of a union sits under its label, not after the variant's box
            when = next(i for i, line in enumerate(body) if line.startswith("when"))
            assert body[when + 1] == "Either one instant or a start/end range"
            # a variant titled like its key ("In person" / in_person) is not named twice
            assert not any("In person  In person" in line for line in body)
            assert body[-1].startswith("2 ")  # the form ends with its last control


async def test_long_form_scrolls_to_its_last_field_inside_a_short_box() -> None:
    from inspector.demo.schemas import SCHEDULE_EVENT

    app = FormApp(SCHEDULE_EVENT, SCHEDULE_ARGS)
    app.CSS = "SchemaForm { max-height: 20; }"
    with anyio.fail_after(WAIT):
        async with app.run_test(size=(90, 40)) as pilot:
            form = app.query_one(SchemaForm)
            scroll = form.query_one(".form-fields")
            await wait_for(pilot, lambda: form.size.height == 20)
            # the buttons take two rows: the fields get the rest, not 100% of the form
            assert scroll.region.bottom <= form.region.bottom
            scroll.scroll_end(animate=False)
            priority = form.field(("priority",))
            assert priority is not None
            await wait_for(
                pilot,
                lambda: priority.region.height > 0 and priority.region.bottom <= form.region.bottom,
            )


async def test_json_editor_says_where_the_json_breaks_while_typing() -> None:
    app = FormApp(SCHEMA, initial={"name": "Ada", "age": 3})
    with anyio.fail_after(WAIT):
        async with app.run_test(size=(100, 60)) as pilot:
            form = app.query_one(SchemaForm)
            await pilot.press("ctrl+j")
            editor = form.query_one(JsonEditor)
            status = editor.query_one(".json-status", Static)
            await wait_for(pilot, lambda: form.json_mode and editor.valid is True)
            assert text_of(status) == "✓ valid JSON  ·  ✓ the schema takes it"
            area = editor.text_area
            await focus(pilot, area)
            area.move_cursor((2, 0))  # the start of the line after '  "name": "Ada",'
            await pilot.press("backspace", "backspace")  # drop the comma and the newline
            await wait_for(pilot, lambda: editor.valid is False)
            assert text_of(status).startswith("✗ line 2, column ")
            assert "delimiter" in text_of(status)
            await pilot.press(",")
            await wait_for(pilot, lambda: editor.valid is True)
            assert text_of(status) == "✓ valid JSON  ·  ✓ the schema takes it"
            # an error shown on send stays until the text changes, then goes
            area.load_text("[1, 2")
            await pilot.press("ctrl+s")
            error = editor.query_one(".json-error", Static)
            await wait_for(pilot, lambda: error.has_class("shown") and editor.valid is False)
            await focus(pilot, area)
            area.move_cursor((0, 5))
            await pilot.press("]")
            await wait_for(pilot, lambda: editor.valid is True and not error.has_class("shown"))
            assert app.submitted == []  # invalid JSON was never sent
