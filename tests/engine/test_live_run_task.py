"""A tool run as a task through the headless state alone (no widget, no Textual worker):
``LiveState.run_task`` creates it on the demo server and follows it in the session's
background until its outcome reaches ``take_changes``."""

from __future__ import annotations

import anyio

from inspector.engine.tasks import TaskState
from inspector.live.state import LiveState
from tests.everything import demo_session


async def test_a_task_run_by_the_state_is_followed_to_its_outcome() -> None:
    state = LiveState()
    async with demo_session() as session:
        state.attach(session)
        created = await state.run_task("slow_count", {"seconds": 0.2, "steps": 2})
        assert created.tool == "slow_count" and not created.terminal
        finished: list[TaskState] = []
        with anyio.fail_after(15):
            while not finished:
                await anyio.sleep(0.05)
                finished += state.take_changes().finished_tasks
    assert [s.task_id for s in finished] == [created.task_id]
    assert finished[0].status == "completed" and finished[0].result is not None
    assert "Counted to 2" in str(finished[0].result)


async def test_a_task_needs_a_session() -> None:
    try:
        await LiveState().run_task("slow_count")
    except RuntimeError as exc:
        assert "no session" in str(exc)
    else:
        raise AssertionError("run_task without a session did not raise")
