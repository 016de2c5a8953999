"""The tasks view against the demo server over stdio (Pilot)."""

from __future__ import annotations

import os
from typing import Any

import anyio
from textual.widgets import DataTable, Static
from tui_helpers import WAIT, wait_for

from inspector.engine.tasks import TaskState
from inspector.live.state import LiveState
from inspector.tui import messages
from inspector.tui.widgets.tasks_view import TasksView, outcome_text
from tests.everything import LiveHost, demo_session, shown_text

SHOTS = os.environ.get("INSPECT_SHOTS")


class TasksHost(LiveHost):
    def __init__(self, view: TasksView) -> None:
        super().__init__(view.state, view)
        self.finished: list[TaskState] = []
        self.created: list[TaskState] = []

    def on_task_finished(self, message: messages.TaskFinished) -> None:
        self.finished.append(message.state)

    def on_tasks_view_created(self, message: TasksView.Created) -> None:
        self.created.append(message.state)


def _rows(view: TasksView) -> list[list[str]]:
    table = view.query_one("#tasks-table", DataTable)
    return [[str(c) for c in table.get_row_at(i)] for i in range(table.row_count)]


async def test_run_as_task_follow_cancel_list_and_fetch() -> None:
    view = TasksView(LiveState())
    app = TasksHost(view)
    async with app.run_test(size=(130, 24)) as pilot, demo_session() as session:
        view.state.attach(session)
        manager = view.manager
        assert manager is not None
        # 1. a required-task tool, followed to the end: Finished carries the result
        report = await view.run_tool("generate_report", {"topic": "[b]ops[/b]", "seconds": 1.2})
        await wait_for(pilot, lambda: app.created == [report])
        await wait_for(
            pilot, lambda: any("generate_report" in r[1] and "working" in r[2] for r in _rows(view))
        )
        await wait_for(pilot, lambda: bool(app.finished), timeout=15)
        assert app.finished[0].task_id == report.task_id
        assert "Report on [b]ops[/b]" in outcome_text(app.finished[0]).plain
        detail = shown_text(view.query_one("#task-detail", Static))
        assert "completed" in detail and "Report on [b]ops[/b]" in detail
        if SHOTS:
            app.save_screenshot(filename="tasks.svg", path=SHOTS)
        # 2. a long one, cancelled with "c"
        slow = await view.run_tool("slow_count", {"seconds": 60, "steps": 60})
        await wait_for(pilot, lambda: len(_rows(view)) == 2)
        table = view.query_one("#tasks-table", DataTable)
        table.focus()
        table.move_cursor(row=table.get_row_index(slow.task_id))
        await pilot.press("c")
        await wait_for(pilot, lambda: manager.tasks[slow.task_id].status == "cancelled")
        await wait_for(pilot, lambda: len(app.finished) == 2)  # tasks/result: cancelled
        assert app.finished[1].error is not None
        # 3. a task made elsewhere shows up after "r" (tasks/list); enter fetches its result
        other = await session.request(
            "tools/call",
            {"name": "slow_count", "arguments": {"seconds": 0.1, "steps": 1}, "task": {}},
        )
        other_id = other["task"]["taskId"]
        # finished on the server before "r" lists it, as the steps below expect: on a loaded
        # machine its 0.1 s of work can outlast the keys pressed before the list
        with anyio.fail_after(WAIT):
            while (await session.request("tasks/get", {"taskId": other_id}))["status"] == "working":
                await anyio.sleep(0.05)
        await pilot.press("r")
        await wait_for(pilot, lambda: other_id in manager.tasks)
        await wait_for(pilot, lambda: manager.tasks[other_id].terminal)
        table.move_cursor(row=table.get_row_index(other_id))
        await pilot.press("enter")
        await wait_for(pilot, lambda: manager.tasks[other_id].fetched)
        await wait_for(
            pilot, lambda: "Counted to 1" in shown_text(view.query_one("#task-detail", Static))
        )
        statuses = {r[0]: r[2] for r in _rows(view)}
    assert statuses[report.task_id[:12]].startswith("completed")
    assert statuses[slow.task_id[:12]].startswith("cancelled")


async def test_cancel_of_a_finished_task_is_reported_not_raised() -> None:
    view = TasksView(LiveState())
    app = TasksHost(view)
    notes: list[Any] = []
    async with app.run_test(size=(130, 24)) as pilot, demo_session() as session:
        view.state.attach(session)
        app.notify = lambda message, **kw: notes.append(message)  # type: ignore[method-assign]
        state = await view.run_tool("slow_count", {"seconds": 0.1, "steps": 1})
        await wait_for(pilot, lambda: bool(app.finished))
        table = view.query_one("#tasks-table", DataTable)
        table.focus()
        table.move_cursor(row=table.get_row_index(state.task_id))
        await pilot.press("c")
        await wait_for(pilot, lambda: bool(notes))
    assert "tasks/cancel failed" in notes[0] and "-32602" in notes[0]
