"""Enter on the catalog item already open (issue 25): its form keeps what was typed and
its result stays, so ``s`` still has the result to save; another item opens afresh."""

from __future__ import annotations

import pytest
from textual.widgets import Input, OptionList
from tui_helpers import select_item, wait_connected, wait_for

from inspector.target import demo_target
from inspector.tui.app import InspectorApp
from inspector.tui.screens.save_files import SaveFilesScreen
from inspector.tui.widgets.item_panel import ItemPanel
from inspector.tui.widgets.result_view import ResultView

pytestmark = pytest.mark.slow  # end to end: see pyproject's markers

SIZE = (150, 45)


async def test_enter_on_the_open_item_keeps_its_form_and_result() -> None:
    app = InspectorApp(demo_target())
    async with app.run_test(size=SIZE) as pilot:
        await wait_connected(pilot)
        await select_item(pilot, "tools", "echo")
        panel = app.query_one(ItemPanel)
        form = panel.form
        await pilot.press(*"keep me", "ctrl+s")
        view = app.query_one(ResultView)
        await wait_for(pilot, lambda: view.outcome is not None and view.complete)
        outcome = view.outcome
        # back to the list (its cursor still on echo), Enter on echo again
        options = app.query_one("#list-tools", OptionList)
        await pilot.press("escape")
        await wait_for(pilot, lambda: options.has_focus)
        await pilot.press("enter")
        await wait_for(pilot, lambda: isinstance(app.focused, Input))
        assert view.outcome is outcome  # the result stays
        assert panel.form is form  # the same form, not a fresh one
        assert form is not None and form.current_value()["message"] == "keep me"
        # the result can still be saved: Tab over to it, s offers it
        for _ in range(8):
            if app.focused is view:
                break
            await pilot.press("tab")
        assert app.focused is view
        await pilot.press("s")
        await wait_for(pilot, lambda: isinstance(app.screen, SaveFilesScreen))
        await pilot.press("escape")
        await wait_for(pilot, lambda: not isinstance(app.screen, SaveFilesScreen))
        # another item opens afresh: its own form, the result pane's hint
        await select_item(pilot, "tools", "add")
        assert panel.form is not form
        assert view.outcome is None
