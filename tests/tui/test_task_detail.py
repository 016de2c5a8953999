"""The task detail says "… is running as a task" (the server's immediate response) only
while the task runs: not once it completed or was cancelled (the app, demo server)."""

from __future__ import annotations

from typing import Any

import pytest
from textual.widgets import Button, DataTable, Static
from tui_helpers import focus, select_item, wait_connected, wait_for

from inspector.target import demo_target
from inspector.tui.app import InspectorApp
from inspector.tui.widgets.item_panel import ItemPanel
from inspector.tui.widgets.tasks_view import TasksView
from tests.everything import shown_text

SIZE = (140, 40)


async def call_as_task(pilot: Any, app: InspectorApp, tool: str, arguments: dict[str, Any]) -> None:
    """Fill the tool's form and press its "Call as task" button from the keyboard."""
    await select_item(pilot, "tools", tool)
    form = app.query_one(ItemPanel).form
    assert form is not None
    form.set_arguments(arguments)
    await focus(pilot, app.query_one("#run-task", Button))
    await pilot.press("enter")


@pytest.mark.slow
async def test_the_immediate_response_is_shown_only_while_the_task_runs() -> None:
    app = InspectorApp(demo_target())
    async with app.run_test(size=SIZE) as pilot:
        await wait_connected(pilot)
        tasks = app.query_one(TasksView)
        table = tasks.query_one("#tasks-table", DataTable)

        def detail() -> str:
            return " ".join(shown_text(tasks.query_one("#task-detail", Static)).split())

        # a long one: running, the server's words are shown; cancelled, they are not
        await call_as_task(pilot, app, "slow_count", {"seconds": 60, "steps": 60})
        await wait_for(pilot, lambda: "slow_count is running as a task" in detail())
        await wait_for(pilot, lambda: table.has_focus)  # the app opened the Tasks tab
        await pilot.press("c")
        await wait_for(pilot, lambda: "cancelled" in detail())
        assert "running as a task" not in detail()
        # a short one, followed to its end and highlighted: completed, not "running"
        await call_as_task(pilot, app, "generate_report", {"topic": "ops", "seconds": 0.2})
        await wait_for(pilot, lambda: table.row_count == 2 and table.has_focus)
        await pilot.press("down")
        await wait_for(pilot, lambda: "completed" in detail() and "Report on ops" in detail())
        shown = detail()
    assert "running as a task" not in shown
