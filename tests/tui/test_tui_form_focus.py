"""Where the focus is in a form shows plainly, and an array item is one Tab stop whose
keys move and remove it: through the real app on the demo's create_user."""

from __future__ import annotations

import anyio
import pytest
from test_tui_typing_keys import form_of, make_app
from textual.widgets import Button, Input, OptionList, SelectionList, Static
from tui_helpers import focus, select_item, wait_connected, wait_for

from inspector.target import demo_target
from inspector.tui.app import InspectorApp
from inspector.tui.widgets.form_fields import FieldWidget
from inspector.tui.widgets.item_panel import ItemPanel

pytestmark = pytest.mark.slow  # end to end: see pyproject's markers

SIZE = (140, 50)


def label_of(field: FieldWidget) -> Static:
    return field.query_children(".field-label").first(Static)


def footer_keys(app: InspectorApp) -> set[str]:
    return {b.binding.key for b in app.screen.active_bindings.values() if b.binding.show}


async def test_the_focused_field_stands_out_without_its_cursor() -> None:
    app = make_app()
    with anyio.fail_after(60):
        async with app.run_test(size=SIZE) as pilot:
            await wait_connected(pilot)
            await select_item(pilot, "tools", "create_user")
            form = form_of(app)
            name, email = form.field(("name",)), form.field(("email",))
            assert name is not None and email is not None
            assert app.focused is name.query_one(Input)
            await wait_for(
                pilot, lambda: label_of(name).styles.color != label_of(email).styles.color
            )
            lit = name.query_one(Input).styles.background
            assert lit != email.query_one(Input).styles.background
            assert label_of(name).styles.color != label_of(email).styles.color
            await pilot.press("tab")
            assert app.focused is email.query_one(Input)
            assert email.query_one(Input).styles.background == lit
            assert name.query_one(Input).styles.background != lit
            await wait_for(
                pilot, lambda: label_of(email).styles.color != label_of(name).styles.color
            )


async def test_an_array_item_is_one_tab_stop_moved_and_removed_by_keys() -> None:
    app = make_app()
    with anyio.fail_after(60):
        async with app.run_test(size=SIZE) as pilot:
            await wait_connected(pilot)
            await select_item(pilot, "tools", "create_user")
            form = form_of(app)
            tags = form.field(("tags",))
            assert tags is not None
            await focus(pilot, tags.query_one("Button.add-item", Button))
            for word in ("one", "two", "three"):
                await pilot.press("enter")  # "+ add item": the focus goes to the new item
                await wait_for(pilot, lambda: isinstance(app.focused, Input))
                await pilot.press(*word, "tab")
                # past the item in one Tab: no ↑ ↓ ✕ stops
                assert app.focused is tags.query_one("Button.add-item", Button)
            assert form.root.value()["tags"] == ["one", "two", "three"]
            await pilot.press("shift+tab")
            box = app.focused
            assert isinstance(box, Input) and box.value == "three"
            assert {"alt+up", "alt+down", "ctrl+r"} <= footer_keys(app)  # said in the footer
            await pilot.press("alt+up")
            await wait_for(pilot, lambda: form.root.value()["tags"] == ["one", "three", "two"])
            await wait_for(pilot, lambda: getattr(app.focused, "value", None) == "three")
            # typed keys still type: "r" reconnects nowhere, it is text in the item
            await pilot.press("end", "!", "ctrl+r")
            await wait_for(pilot, lambda: form.root.value()["tags"] == ["one", "two"])
            assert getattr(app.focused, "value", None) == "two"  # took the removed one's place
            await pilot.press("alt+down")  # the last item goes nowhere
            await pilot.pause()
            assert form.root.value()["tags"] == ["one", "two"]
            # the buttons are still there for the mouse
            await pilot.click(tags.query(".remove-item").first())
            await wait_for(pilot, lambda: form.root.value()["tags"] == ["two"])


async def test_a_map_entry_is_removed_by_its_key_too() -> None:
    app = make_app()
    with anyio.fail_after(60):
        async with app.run_test(size=SIZE) as pilot:
            await wait_connected(pilot)
            await select_item(pilot, "tools", "create_user")
            form = form_of(app)
            metadata = form.field(("metadata",))
            assert metadata is not None
            await focus(pilot, metadata.query_one("Button.add-row", Button))
            await pilot.press("enter")  # the new entry's key box
            await wait_for(pilot, lambda: isinstance(app.focused, Input))
            await pilot.press("k", "tab", "v", "tab")  # key, value: two stops, no ✕
            assert app.focused is metadata.query_one("Button.add-row", Button)
            assert form.root.value()["metadata"] == {"k": "v"}
            await pilot.press("shift+tab", "alt+up")  # an entry does not move: nothing
            await pilot.press("ctrl+r")
            await wait_for(pilot, lambda: form.root.value().get("metadata") in ({}, None))
            await wait_for(
                pilot, lambda: app.focused is metadata.query_one("Button.add-row", Button)
            )


async def test_opening_a_form_focuses_a_field_that_is_shown() -> None:
    """show_media's only field is a list of choices; the JSON editor behind the form is
    hidden: Enter on the tool must focus the list, never the hidden editor (keys typed
    there went into JSON nobody could see)."""
    app = make_app()
    with anyio.fail_after(60):
        async with app.run_test(size=SIZE) as pilot:
            await wait_connected(pilot)
            await select_item(pilot, "tools", "show_media")
            await wait_for(pilot, lambda: isinstance(app.focused, SelectionList))
            focused = app.focused
            assert focused is not None
            assert all(node.display for node in focused.ancestors_with_self)
            await select_item(pilot, "tools", "echo")
            await wait_for(pilot, lambda: isinstance(app.focused, Input))


async def test_one_esc_leaves_the_json_editor_as_it_leaves_the_form() -> None:
    """ctrl+j, then Esc: back in the catalog at once (the code editor took the first Esc
    to move the focus on, so it took two), as from a field of the form."""
    app = InspectorApp(demo_target())
    async with app.run_test(size=(140, 40)) as pilot:
        await wait_connected(pilot)
        await select_item(pilot, "tools", "get_weather")
        options = app.query_one("#list-tools", OptionList)
        await pilot.press("escape")  # from the form's first field: one Esc
        await wait_for(pilot, lambda: options.has_focus)
        await pilot.press("enter")
        form = app.query_one(ItemPanel).form
        await wait_for(pilot, lambda: form is not None and not options.has_focus)
        assert form is not None
        await pilot.press("ctrl+j")
        editor = form.editor.text_area
        await wait_for(pilot, lambda: form.json_mode and editor.has_focus)
        before = editor.text
        await pilot.press("tab")  # Tab still indents in the editor
        await wait_for(pilot, lambda: editor.text != before)
        assert editor.has_focus
        await pilot.press("escape")
        await wait_for(pilot, lambda: options.has_focus)
