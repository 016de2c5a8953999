"""Issue 25 items 5 and 6, through the real app on the demo: typing after the variant
select lands in the variant's first field; the JSON editor says whether the JSON holds
and whether the schema takes it; ctrl+t resets the form to its defaults."""

from __future__ import annotations

import json

import pytest
from textual.widgets import Input, Select, Static
from tui_helpers import select_item, wait_connected, wait_for

from inspector.target import demo_target
from inspector.tui.app import InspectorApp
from inspector.tui.screens.confirm import ConfirmScreen
from inspector.tui.widgets.item_panel import ItemPanel
from inspector.tui.widgets.schema_form import SchemaForm

pytestmark = pytest.mark.slow  # end to end: see pyproject's markers

SIZE = (140, 50)


def form_of(app: InspectorApp) -> SchemaForm:
    form = app.query_one(ItemPanel).form
    assert form is not None
    return form


def focused_field(app: InspectorApp, form: SchemaForm) -> tuple[str | int, ...] | None:
    """The path of the field whose box has the focus (None: not a field's box)."""
    return form.focused_path() if isinstance(app.focused, Input) else None


def text_of(widget: Static) -> str:
    return str(widget.render())


async def test_tab_from_the_variant_select_goes_to_the_variants_first_field() -> None:
    """schedule_event: `when` switched to Range, then Tab and "tomorrow": the text is in
    `start`, not dropped on the variant's header."""
    app = InspectorApp(demo_target())
    async with app.run_test(size=SIZE) as pilot:
        await wait_connected(pilot)
        await select_item(pilot, "tools", "schedule_event")
        form = form_of(app)
        when = form.field(("when",))
        assert when is not None
        select = when.query_one(".variant-select", Select)
        await pilot.press("tab")
        await wait_for(pilot, lambda: select.has_focus)
        await pilot.press("enter", "down", "enter")  # open the list, Range, take it
        await wait_for(pilot, lambda: isinstance(form.root.value().get("when"), dict))
        await wait_for(
            pilot,
            lambda: isinstance(app.focused, Select) and form.field(("when", "start")) is not None,
        )
        start = form.field(("when", "start"))
        assert start is not None
        await pilot.press("tab", *"tomorrow")
        await pilot.pause()
        assert app.focused is start.query_one(Input)
        assert start.query_one(Input).value == "tomorrow"
        assert form.root.value()["when"]["start"] == "tomorrow"


MANAGER_IS_AN_OBJECT = '{"name": "Ann", "email": "ann@example.com", "manager": {"name": "Bob"}}'


async def test_the_json_editor_says_the_syntax_then_what_the_schema_says() -> None:
    """create_user as JSON with `manager` an object: valid JSON, and the schema's no
    (the closest variant and why, in JSON), where it said only "✓ valid JSON"."""
    app = InspectorApp(demo_target())
    async with app.run_test(size=SIZE) as pilot:
        await wait_connected(pilot)
        await select_item(pilot, "tools", "create_user")
        form = form_of(app)
        await pilot.press("ctrl+j")
        editor = form.editor
        await wait_for(pilot, lambda: form.json_mode and editor.text_area.has_focus)
        status = editor.query_one(".json-status", Static)
        await wait_for(pilot, lambda: editor.valid is True)
        # the form's defaults: name and email are "", which the schema does not take
        assert text_of(status).splitlines() == [
            "✓ valid JSON  ·  ✗ the schema does not take it: 2 problems",
            "  ✗ name: must not be empty",
            '  ✗ email: not a valid email, like name@example.com (got "")',
        ]
        await pilot.press("f7", *MANAGER_IS_AN_OBJECT)  # select all, type over it
        await wait_for(pilot, lambda: editor.text == MANAGER_IS_AN_OBJECT)
        await wait_for(pilot, lambda: "manager" in text_of(status))
        assert text_of(status).splitlines() == [
            "✓ valid JSON  ·  ✗ the schema does not take it: 1 problem",
            "  ✗ manager: matches none of its 2 options (anyOf); the closest, option 1 (a "
            'string, format email): must be a string (got {"name": "Bob"})',
        ]
        assert "'" not in text_of(status)
        # a send marks the same problem once: the line under the editor has it already
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert not editor.query_one(".json-error", Static).has_class("shown")
        assert "manager: matches none" in text_of(status)
        await pilot.press("backspace", "f7", *'{"name": "Ann", "email": "ann@example.com"}')
        await wait_for(pilot, lambda: "✓ the schema takes it" in text_of(status))
        assert text_of(status) == "✓ valid JSON  ·  ✓ the schema takes it"
        # the form view says the same of `manager`, in JSON too
        await pilot.press("f7", *MANAGER_IS_AN_OBJECT, "ctrl+j")
        await wait_for(pilot, lambda: not form.json_mode)
        await pilot.press("ctrl+s")  # the first press marks the problems, sends nothing
        manager = form.field(("manager",))
        assert manager is not None
        await wait_for(pilot, lambda: bool(manager.errors))
        assert manager.errors == [
            "matches none of its 2 options (anyOf); the closest, option 1 (a string, format "
            'email): must be a string (got {"name": "Bob"})'
        ]


async def test_ctrl_n_resets_the_form_and_the_json_editor_to_the_defaults() -> None:
    app = InspectorApp(demo_target())
    async with app.run_test(size=SIZE) as pilot:
        await wait_connected(pilot)
        await select_item(pilot, "tools", "create_user")
        form = form_of(app)
        defaults = form.root.value()
        shown = {b.binding.key for b in app.screen.active_bindings.values() if b.binding.show}
        assert "ctrl+t" in shown  # in the footer, beside ctrl+j and ctrl+s
        name = form.field(("name",))
        assert name is not None and app.focused is name.query_one(Input)
        await pilot.press(*"Ann", "tab", *"ann@example.com")
        await wait_for(pilot, lambda: form.root.value()["email"] == "ann@example.com")
        # in the form: asked first (input would be lost), then every field as it began
        await pilot.press("ctrl+t")
        await wait_for(pilot, lambda: isinstance(app.screen, ConfirmScreen))
        await pilot.press("y")
        await wait_for(pilot, lambda: form.root.value() == defaults)
        # the focus stays in the form, on its first field (the field it was in is gone)
        await wait_for(pilot, lambda: focused_field(app, form) == ("name",))
        name = form.field(("name",))
        assert name is not None and name.query_one(Input).value == ""
        # in the JSON editor: the text becomes the defaults, and ctrl+z brings it back
        await pilot.press("ctrl+j")
        editor = form.editor
        await wait_for(pilot, lambda: form.json_mode and editor.text_area.has_focus)
        await pilot.press("f7", *MANAGER_IS_AN_OBJECT)
        await wait_for(pilot, lambda: editor.text == MANAGER_IS_AN_OBJECT)
        await pilot.press("ctrl+t")
        await wait_for(pilot, lambda: isinstance(app.screen, ConfirmScreen))
        await pilot.press("y")
        await wait_for(pilot, lambda: editor.text != MANAGER_IS_AN_OBJECT)
        assert json.loads(editor.text) == defaults
        assert editor.text_area.has_focus
        await pilot.press("ctrl+z")
        await wait_for(pilot, lambda: editor.text == MANAGER_IS_AN_OBJECT)
        # back in the form with what the editor held (the focus on its first field, not
        # in the catalog): "n" keeps it
        await pilot.press("ctrl+j")
        await wait_for(pilot, lambda: not form.json_mode)
        await wait_for(pilot, lambda: focused_field(app, form) == ("name",))
        await pilot.press("ctrl+t")
        await wait_for(pilot, lambda: isinstance(app.screen, ConfirmScreen))
        await pilot.press("n")
        await wait_for(pilot, lambda: not isinstance(app.screen, ConfirmScreen))
        assert form.root.value()["manager"] == {"name": "Bob"}
        await pilot.press("ctrl+t")
        await wait_for(pilot, lambda: isinstance(app.screen, ConfirmScreen))
        await pilot.press("y")
        await wait_for(pilot, lambda: form.root.value() == defaults)
        # at the defaults already: nothing to lose, nothing asked
        await pilot.press("ctrl+t")
        await pilot.pause()
        assert not isinstance(app.screen, ConfirmScreen) and form.root.value() == defaults
