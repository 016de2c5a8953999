"""A key never goes into a widget the user cannot see (issue 25 item 1): the two
reproductions, pressed as a user does, and every hidden focusable of the main screen."""

from __future__ import annotations

from typing import Any

import pytest
from textual.widget import Widget
from textual.widgets import TextArea
from tui_helpers import interactive_demo_app, wait_connected, wait_for

from inspector.target import demo_target
from inspector.tui.app import InspectorApp
from inspector.tui.focus_guard import shown
from inspector.tui.screens.elicitation import ElicitationScreen
from inspector.tui.widgets.catalog import ListFilter


async def type_keys(pilot: Any, *keys: str) -> None:
    for key in keys:
        await pilot.press(key)
        await pilot.pause()


def filters(app: InspectorApp) -> dict[str, str]:
    return {box.kind: box.value for box in app.query(ListFilter)}


@pytest.mark.slow
async def test_a_maximized_log_takes_the_keys_not_the_kept_filter() -> None:
    """120x35: ``/echo`` Enter, Esc, ``l`` ``l`` ``q``: the log grows, shrinks back and
    q asks to quit (the form holds typed text), nothing is typed into the filter."""
    app = InspectorApp(demo_target())
    async with app.run_test(size=(120, 35)) as pilot:
        await wait_connected(pilot)
        await type_keys(pilot, "slash", "e", "c", "h", "o", "enter", "escape")
        assert app.log_layout == "normal"
        await type_keys(pilot, "l")
        assert app.focused is not None and shown(app.focused)
        await type_keys(pilot, "l", "g")
        assert filters(app)["tools"] == "echo"
        assert app.log_layout != "max"  # l cycled it: max, then on
        await type_keys(pilot, "q")
        await wait_for(pilot, lambda: app.return_code is not None or app.screen is not app.main)


@pytest.mark.slow
async def test_after_a_cancelled_elicitation_digits_and_q_are_keys() -> None:
    """80x24, the detail open, an elicitation cancelled, then Esc ``5`` ``5`` ``q``: the
    Server tab shows and q quits. (The tools tab hid its list; Textual gave the focus to
    the list's filter box, which took its tab back and typed ``book55q``.)"""
    app = interactive_demo_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_connected(pilot)
        await type_keys(pilot, "slash", "b", "o", "o", "k", "enter", "escape", "g", "d")
        assert app.main.detail.display
        await type_keys(pilot, "escape", "enter")
        await pilot.press("ctrl+s")
        await wait_for(pilot, lambda: isinstance(app.screen, ElicitationScreen))
        await pilot.press("escape")
        await wait_for(pilot, lambda: app.screen is app.main)
        await type_keys(pilot, "escape", "5", "5")
        assert filters(app)["tools"] == "book"
        assert app.main.catalog.active_kind == "server"
        await type_keys(pilot, "q")
        await wait_for(pilot, lambda: app.return_code is not None or app.screen is not app.main)
        assert filters(app)["tools"] == "book"


def typed(app: InspectorApp) -> dict[Widget, str]:
    """What every text field of the main screen holds."""
    return {
        w: str(w.text if isinstance(w, TextArea) else w.value)
        for w in app.main.query("Input, TextArea")
    }  # type: ignore[attr-defined]


@pytest.mark.slow
async def test_no_key_reaches_any_hidden_focusable() -> None:
    """Every focusable the main screen hides (filters, the JSON editor, collapsed panes,
    the detail, other tabs), focused behind the user's back: the next key acts as a key
    (or its tab shows first: TabbedContent's way), never typed where nobody sees it."""
    app = InspectorApp(demo_target())
    async with app.run_test(size=(120, 35)) as pilot:
        await wait_connected(pilot)
        await type_keys(pilot, "slash", "e", "c", "h", "o", "enter", "escape", "l")
        hidden = [w for w in app.main.query("*") if w.can_focus and not shown(w)]
        kinds = {type(w).__name__ for w in hidden}
        assert {"ListFilter", "FieldInput", "DataTable", "Button"} <= kinds, kinds
        for widget in hidden:
            widget.focus()
            before = typed(app)
            await pilot.press("x")  # no key of the app's: typed into any text field
            assert app.focused is None or shown(app.focused), widget
            changed = [w for w, text in typed(app).items() if before[w] != text]
            assert all(shown(w) for w in changed), (widget, changed)
        assert app.log_layout == "max"
