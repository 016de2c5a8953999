"""Typing in a text box does not lay the screen out again (``SteadyInput``): a form of a
dozen fields made each typed character cost 45 ms of CPU in layout. The box still scrolls
to keep the cursor in view, and a field's size still follows what it needs."""

from __future__ import annotations

from typing import Any

import pytest
from textual.pilot import Pilot
from textual.screen import Screen
from textual.widget import Widget
from tui_helpers import screen_text, select_item, wait_connected, wait_for

from inspector.target import demo_target
from inspector.tui.app import InspectorApp
from inspector.tui.widgets.catalog import ListFilter
from inspector.tui.widgets.field_input import FieldInput

LETTERS = "abcdefghij"


def count_layouts(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """A one-item list counting the screen layouts from now on."""
    count = [0]
    original = Screen._refresh_layout

    def counted(self: Screen[Any], *args: Any, **kwargs: Any) -> None:
        count[0] += 1
        original(self, *args, **kwargs)

    monkeypatch.setattr(Screen, "_refresh_layout", counted)
    return count


async def settle(pilot: Pilot[Any], layouts: list[int]) -> None:
    """Let the layouts already asked for run (the footer's rebuild for a new focus comes
    after a refresh, later still on a loaded machine), then count from zero."""
    for _ in range(50):
        before = layouts[0]
        await pilot.pause(0.1)
        if layouts[0] == before:
            break
    layouts[0] = 0


def count_layout_requests(monkeypatch: pytest.MonkeyPatch, widget: Widget) -> list[int]:
    """A one-item list counting from now on the layouts ``widget`` asks for."""
    count = [0]
    original = Widget.refresh

    def counted(self: Widget, *regions: Any, **kwargs: Any) -> Widget:
        if self is widget and kwargs.get("layout"):
            count[0] += 1
        return original(self, *regions, **kwargs)

    monkeypatch.setattr(Widget, "refresh", counted)
    return count


@pytest.mark.slow
async def test_typing_in_a_form_field_does_not_reflow_the_screen(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    app = InspectorApp(demo_target())
    async with app.run_test(size=(120, 35)) as pilot:
        await wait_connected(pilot)
        await select_item(pilot, "tools", "create_user")
        while not isinstance(app.focused, FieldInput):
            await pilot.press("tab")  # to the first text box, as a user goes
        box = app.focused
        layouts = count_layouts(monkeypatch)
        await settle(pilot, layouts)  # Tab's own layouts are not the typing's
        for letter in LETTERS:
            await pilot.press(letter)
        await wait_for(pilot, lambda: box.value == LETTERS)
        await pilot.pause()
        assert layouts[0] < 3  # ten before: one a character

        # a text longer than the box: its end is in view as it is typed, its start after Home
        tail = "".join(chr(ord("k") + n % 16) for n in range(100)) + "END"
        for letter in tail:
            await pilot.press(letter)
        await wait_for(pilot, lambda: box.value == LETTERS + tail)
        await pilot.pause()
        assert "END" in screen_text(app)
        assert "abcdefghij" not in screen_text(app)
        await pilot.press("home")
        await pilot.pause()
        assert "abcdefghij" in screen_text(app) and "END" not in screen_text(app)


@pytest.mark.slow
async def test_typing_in_the_catalog_filter_does_not_reflow_the_screen(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    app = InspectorApp(demo_target())
    async with app.run_test(size=(120, 35)) as pilot:
        await wait_connected(pilot)
        await pilot.press("slash")
        await wait_for(pilot, lambda: isinstance(app.focused, ListFilter))
        box = app.focused
        asked = count_layout_requests(monkeypatch, box)
        for letter in "echo":
            await pilot.press(letter)
        await wait_for(pilot, lambda: box.value == "echo")
        await pilot.pause()
        # four before, one a character (the list it filters may still need one: its
        # rows and the tabs' counts change)
        assert asked[0] == 0
