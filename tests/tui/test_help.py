"""The help screen, the command palette and the README's key table: one list of keys."""

from __future__ import annotations

import importlib
import inspect
import pkgutil
import re
from typing import Any

import pytest
from paths import ROOT
from textual.binding import Binding
from textual.widgets import OptionList
from tui_helpers import screen_text, select_item, wait_connected, wait_for

import inspector.tui
from inspector.target import demo_target
from inspector.tui import keymap
from inspector.tui.app import InspectorApp
from inspector.tui.screens.confirm import ConfirmScreen
from inspector.tui.screens.help import HelpScreen
from inspector.tui.widgets.log_filter import LogFilterBar
from inspector.tui.widgets.message_detail import MessageDetail
from inspector.tui.widgets.message_log import MessageLog

README = ROOT / "README.md"
SIZE = (140, 40)


def all_sections() -> tuple[keymap.Section, ...]:
    return keymap.sections(InspectorApp)


def shown_keys() -> set[tuple[str, str]]:
    """(keys, text) of every line of the reference."""
    return {(k.keys, k.text) for s in all_sections() for g in s.groups for k in g.keys}


def classes_with_bindings() -> list[type[Any]]:
    """Every class of inspector.tui that declares its own BINDINGS."""
    found = []
    for info in pkgutil.walk_packages(inspector.tui.__path__, "inspector.tui."):
        module = importlib.import_module(info.name)
        for _, cls in inspect.getmembers(module, inspect.isclass):
            if cls.__module__ == info.name and cls.__dict__.get("BINDINGS"):
                found.append(cls)
    return found


def test_every_binding_of_the_tui_is_in_the_help() -> None:
    lines = shown_keys()
    missing = []
    for cls in classes_with_bindings():
        if cls is HelpScreen:  # its own keys are on its bottom line
            continue
        for binding in cls.__dict__["BINDINGS"]:
            assert isinstance(binding, Binding)
            if binding.system:
                continue
            key = set(keymap.key_label(binding.key).split(" "))
            text = keymap.explain(cls, binding)
            if not any(text == t and key <= set(keys.split(" ")) for keys, t in lines):
                missing.append(f"{cls.__name__}: {binding.key} -> {binding.action}")
    assert not missing, "bindings the help does not list (add their class to keymap):\n" + (
        "\n".join(missing)
    )


def test_every_explanation_is_of_a_binding_that_exists() -> None:
    known = {
        f"{cls.__name__}.{keymap.action_name(b.action)}"
        for cls in [*classes_with_bindings(), *keymap.TEXTUAL_CLASSES]
        for b in cls.__dict__.get("BINDINGS", [])
        if isinstance(b, Binding)
    } | {"App.command_palette"}
    assert not set(keymap.EXPLAIN) - known


def test_the_readme_key_table_is_the_help_screen_s() -> None:
    text = README.read_text("utf-8")
    found = re.search(r"<!-- keys:[^>]*-->\n(.*?)<!-- /keys -->", text, re.S)
    assert found, "the README lost its key table markers"
    expected = keymap.markdown_table(all_sections())
    assert found.group(1) == expected, (
        "README.md's key table differs from the bindings; put this between the markers:\n"
        + expected
    )


async def help_section(pilot: Any, key: str = "question_mark") -> str:
    app = pilot.app
    await pilot.press(key)
    await wait_for(pilot, lambda: isinstance(app.screen, HelpScreen))
    screen = app.screen
    assert isinstance(screen, HelpScreen)
    section = screen.section
    body = screen.query_one("#help-body")
    target = screen.query_one(f"#help-{section}")
    # the section is scrolled to the top of the text, and chosen on the left
    top = min(target.virtual_region.y, body.max_scroll_y)
    await wait_for(pilot, lambda: body.scroll_offset.y == top)
    chosen = screen.query_one("#help-sections", OptionList).highlighted_option
    assert chosen is not None and chosen.id == section
    await pilot.press("escape")
    await wait_for(pilot, lambda: not isinstance(app.screen, HelpScreen))
    return section


@pytest.mark.slow
async def test_help_opens_on_the_section_of_where_the_focus_is() -> None:
    app = InspectorApp(demo_target(), confirm_destructive=True)
    async with app.run_test(size=SIZE) as pilot:
        await wait_connected(pilot)
        await wait_for(pilot, lambda: app.query_one("#list-tools").has_focus)
        assert await help_section(pilot) == "catalog"
        await pilot.press("g")
        log = app.query_one(MessageLog)
        await wait_for(pilot, lambda: log.lines.has_focus)
        assert await help_section(pilot) == "log"
        await pilot.press("slash")  # in the filter ? types: F1 opens the help
        bar = app.query_one(LogFilterBar)
        await wait_for(pilot, lambda: bar.input.has_focus)
        assert await help_section(pilot, "f1") == "filter"
        assert bar.query_text == ""
        await pilot.press("escape", "end", "enter")  # close the filter, open an event
        detail = app.query_one(MessageDetail)
        await wait_for(pilot, lambda: detail.display)
        detail.query_one("#detail-doc").focus()
        await wait_for(pilot, lambda: app.focused is not None and detail in app.focused.ancestors)
        assert await help_section(pilot) == "detail"
        await select_item(pilot, "tools", "echo")  # the focus is in the form now
        assert await help_section(pilot, "f1") == "form"
        await select_item(pilot, "tools", "delete_note")
        await pilot.press(*"1")  # the note's id
        await pilot.press("ctrl+s")  # destructive: a dialog asks first
        await wait_for(pilot, lambda: isinstance(app.screen, ConfirmScreen))
        assert await help_section(pilot, "f1") == "dialogs"
        assert isinstance(app.screen, ConfirmScreen)  # closing the help left the dialog


@pytest.mark.slow
async def test_the_help_screen_shows_every_area_and_moves_between_them() -> None:
    app = InspectorApp(demo_target())
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_connected(pilot)
        await pilot.press("question_mark")
        await wait_for(pilot, lambda: isinstance(app.screen, HelpScreen))
        screen = app.screen
        assert isinstance(screen, HelpScreen)
        titles = [o.prompt for o in screen.query_one("#help-sections", OptionList).options]
        assert titles == [s.title for s in all_sections()]
        await pilot.press("down")  # catalog -> form
        await wait_for(pilot, lambda: screen.section == "form")
        await wait_for(pilot, lambda: "switch the form to a raw JSON editor" in screen_text(app))
        await pilot.press("end")  # the body scrolls to the end: sessions
        await wait_for(pilot, lambda: "mcp-inspect replay FILE" in screen_text(app))
        await pilot.press("question_mark")  # ? closes it again
        await wait_for(pilot, lambda: not isinstance(app.screen, HelpScreen))


@pytest.mark.slow
async def test_the_palette_lists_the_help_s_actions_and_runs_them() -> None:
    app = InspectorApp(demo_target())
    async with app.run_test(size=SIZE) as pilot:
        await wait_connected(pilot)
        titles = [c.title for c in app.get_system_commands(app.screen)]
        for title, _, _ in keymap.palette_entries(InspectorApp):
            assert title in titles
        assert titles.count("Quit") == 1  # ours, that asks before losing work
        everywhere = next(s for s in all_sections() if s.id == "everywhere")
        actions = {e[2] for e in keymap.palette_entries(InspectorApp)}
        assert {k.action for k in everywhere.groups[0].keys if k.action} - {"focus_catalog"} <= {
            a.split("(")[0] for a in actions
        } | actions
        await pilot.press("ctrl+p")
        await pilot.press(*"Log size")
        await pilot.pause(0.3)
        await pilot.press("enter")
        await wait_for(pilot, lambda: app.log_layout == "max")
        await pilot.press("ctrl+p")
        await pilot.press(*"Help")
        await pilot.pause(0.3)
        await pilot.press("enter")
        await wait_for(pilot, lambda: isinstance(app.screen, HelpScreen))
