"""The work pane's split: the form takes the rows it needs until a result wants some."""

from __future__ import annotations

from typing import Any

import anyio
import pytest
from textual.app import App, ComposeResult
from tui_helpers import wait_for

from inspector.demo.schemas import SCHEDULE_EVENT
from inspector.tui.widgets.item_panel import ItemPanel, item_key
from inspector.tui.widgets.result_view import Outcome, ResultView

pytestmark = pytest.mark.slow  # end to end: see pyproject's markers

TOOL: dict[str, Any] = {
    "name": "schedule_event",
    "description": "Schedule an event",
    "inputSchema": SCHEDULE_EVENT,
}
ADD: dict[str, Any] = {
    "name": "add",
    "inputSchema": {
        "type": "object",
        "properties": {"a": {"type": "number"}, "b": {"type": "number"}},
    },
}


ARGS = {
    "when": {"start": "2026-12-01T10:00:00Z", "end": "2026-12-01T11:00:00Z"},
    "location": {"kind": "in_person", "room": "4.02"},
    "reminders": [15, 60],
}


class PanelApp(App[None]):
    def compose(self) -> ComposeResult:
        panel = ItemPanel(id="work")
        panel.last_arguments[item_key("tools", TOOL)] = ARGS  # a form taller than the pane
        yield panel


def box_height(app: App[Any]) -> int:
    return app.query_one("#item-form-box").size.height


async def test_form_takes_the_pane_until_a_result_takes_its_share() -> None:
    app = PanelApp()
    with anyio.fail_after(30):
        async with app.run_test(size=(100, 50)) as pilot:
            panel = app.query_one(ItemPanel)
            await panel.select("tools", TOOL)
            form = panel.form
            assert form is not None
            result = app.query_one(ResultView)  # the app's view of the result pane
            # no result yet: the form takes all but the hint's rows (it was capped at 60%)
            await wait_for(pilot, lambda: box_height(app) >= 50 - 12)
            assert result.size.height >= 1  # the hint stays readable
            # a long result: it gets 40% of the pane, the form scrolls in the rest
            long = {"content": [{"type": "text", "text": "\n".join(map(str, range(80)))}]}
            result.show(Outcome(title="tool schedule_event", result=long))
            await wait_for(pilot, lambda: result.size.height >= 50 * 2 // 5 - 1)
            assert box_height(app) < 50 - 12
            # a short result (or a status line) gives the rows back to the form
            result.show_text("tool schedule_event: waiting for the server…", "yellow")
            await wait_for(pilot, lambda: box_height(app) >= 50 - 12)
            # selecting a short form: no blank filler, the button sits under the form
            await panel.select("tools", ADD)
            small = panel.form
            assert small is not None and small is not form
            await wait_for(pilot, lambda: 0 < box_height(app) <= 12)
            actions = app.query_one("#item-actions")
            assert actions.region.y == app.query_one("#item-form-box").region.bottom


async def test_the_form_follows_the_pane_height() -> None:
    app = PanelApp()
    with anyio.fail_after(30):
        async with app.run_test(size=(100, 50)) as pilot:
            panel = app.query_one(ItemPanel)
            await panel.select("tools", TOOL)
            await wait_for(pilot, lambda: box_height(app) >= 50 - 12)
            await pilot.resize_terminal(100, 30)
            await wait_for(pilot, lambda: 30 - 12 <= box_height(app) <= 30 - 5)
            await pilot.resize_terminal(100, 80)  # room for all of it: no scrolling
            fields = app.query_one(".form-fields")
            await wait_for(pilot, lambda: box_height(app) > 30 and fields.max_scroll_y == 0)
