"""The server's completions as a list under the field, through the real app on the demo.

The demo's ``bob`` has 150 files: the server answers 100 with ``total: 150`` and
``hasMore``; the user sees them, scrolls them, narrows them by typing and picks one,
with the focus (and every typed key) staying in the field.
"""

from __future__ import annotations

from typing import Any

import anyio
import pytest
from textual.widgets import OptionList
from tui_helpers import interactive_demo_app, select_item, wait_connected, wait_for

from inspector.engine.completion import Completion
from inspector.tui.app import InspectorApp
from inspector.tui.widgets.catalog import Catalog
from inspector.tui.widgets.completion_menu import CompletionMenu, count_text
from inspector.tui.widgets.field_input import FieldInput
from inspector.tui.widgets.item_panel import ItemPanel

SIZE = (140, 40)
FILES = "demo://users/{user}/files/{path}"


def box_and_menu(app: InspectorApp, name: str) -> tuple[FieldInput, CompletionMenu]:
    form = app.query_one(ItemPanel).form
    assert form is not None
    field = form.field((name,))
    assert field is not None
    return field.query_one(FieldInput), field.query_one(CompletionMenu)


@pytest.mark.slow
async def test_bobs_150_files_are_listed_scrolled_narrowed_and_picked() -> None:
    app = interactive_demo_app()
    with anyio.fail_after(60):
        async with app.run_test(size=SIZE) as pilot:
            await wait_connected(pilot)
            await select_item(pilot, "resource_templates", FILES)
            user, users = box_and_menu(app, "user")
            path, files = box_and_menu(app, "path")
            assert app.focused is user
            await pilot.press("b")
            await wait_for(pilot, lambda: users.shown)
            assert users.values == ["bob"] and users.count_line == "1 value"
            await pilot.press("enter")  # picks the highlighted value
            assert user.value == "bob" and not users.shown
            await pilot.press("tab")
            assert app.focused is path
            layout = app.log_layout

            await pilot.press("down")  # nothing typed: ↓ lists every value
            await wait_for(pilot, lambda: files.shown)
            assert len(files.values) == 100
            assert files.count_line == "showing 100 of 150, more on the server: type to narrow"
            assert files.highlighted == "logs/log-001.txt"
            await pilot.press("down", "down", "pagedown")
            assert files.highlighted == "logs/log-011.txt"
            for _ in range(13):
                await pilot.press("pagedown")
            assert files.highlighted == "logs/log-100.txt"  # the end, not past it
            # the list scrolled along: the highlighted value is on screen
            options = files.query_one(OptionList)
            assert options.scroll_y > 0
            await pilot.press("up")
            assert files.highlighted == "logs/log-099.txt"
            assert app.focused is path  # the list never took the focus

            # typing narrows: every key goes to the field, none fires a shortcut (l, g, 1)
            await pilot.press(*"logs/log-14")
            await wait_for(pilot, lambda: files.count_line == "10 values")
            assert files.values == [f"logs/log-{n}.txt" for n in range(140, 150)]
            assert app.focused is path and app.log_layout == layout
            assert app.query_one(Catalog).active_kind == "resource_templates"
            await pilot.press("down", "enter")
            assert path.value == "logs/log-141.txt" and not files.shown
            form = app.query_one(ItemPanel).form
            assert form is not None
            await pilot.pause()
            assert form.root.value() == {"user": "bob", "path": "logs/log-141.txt"}

            # Esc closes the list and stays in the field; the next Esc leaves the form
            await pilot.press("backspace")
            await wait_for(pilot, lambda: files.shown)
            await pilot.press("escape")
            assert not files.shown and app.focused is path
            await pilot.press("escape")
            assert app.focused is not path


@pytest.mark.slow
async def test_a_click_on_a_value_picks_it_and_tab_closes_the_list() -> None:
    app = interactive_demo_app()
    with anyio.fail_after(60):
        async with app.run_test(size=SIZE) as pilot:
            await wait_connected(pilot)
            await select_item(pilot, "prompts", "greeting")
            name, names = box_and_menu(app, "name")
            await pilot.press("A")
            await wait_for(pilot, lambda: names.shown and len(names.values) == 2)
            assert names.values == ["Ada", "Alan"]
            # the list laid out where it shows before the click (a loaded CI run clicked
            # while it was still sized as closed: the click picked nothing)
            await wait_for(pilot, lambda: names.options.size.height >= 2)
            await pilot.click(names.options, offset=(2, 1))  # the second row: Alan
            await wait_for(pilot, lambda: name.value == "Alan" and not names.shown)
            assert app.focused is name
            await pilot.press("backspace")
            await wait_for(pilot, lambda: names.shown)
            await pilot.press("tab")
            await wait_for(pilot, lambda: not names.shown)


def test_count_line_says_what_the_server_holds_back() -> None:
    def count(**kw: Any) -> str:
        return count_text(Completion(**kw))

    assert count(values=["a"]) == "1 value"
    assert count(values=["a", "b"], total=2) == "2 values"
    assert count(values=["a"], total=9) == "showing 1 of 9, more on the server: type to narrow"
    assert count(values=["a"], has_more=True) == "1 value, more on the server: type to narrow"
    assert count(values=["a"], total=0) == "1 value"  # a total below what came is ignored
    assert count() == "no completions"
    assert count(error="boom").startswith("completion failed: boom")


@pytest.mark.slow
async def test_the_list_comes_back_after_the_json_editor_rebuilt_the_fields() -> None:
    app = interactive_demo_app()
    with anyio.fail_after(60):
        async with app.run_test(size=SIZE) as pilot:
            await wait_connected(pilot)
            await select_item(pilot, "prompts", "greeting")
            await pilot.press("ctrl+j")  # the JSON editor, focused
            form = app.query_one(ItemPanel).form
            assert form is not None and form.json_mode
            form.editor.text_area.select_all()
            await pilot.press(*'{"name": "Gr"}', "ctrl+j")
            await wait_for(pilot, lambda: not form.json_mode)
            await wait_for(pilot, lambda: bool(form.query(CompletionMenu)))
            name, names = box_and_menu(app, "name")
            assert name.value == "Gr"
            name.focus()
            await pilot.press("down")
            await wait_for(pilot, lambda: names.shown)
            assert names.values == ["Grace"]
