"""Tasks (2025-11-25) against the bundled demo server over stdio: headless."""

from __future__ import annotations

from typing import Any

import anyio
import pytest

from inspector.engine.client import McpClient
from inspector.engine.responders import Responders, elicitation_policy
from inspector.engine.tasks import (
    TaskManager,
    TaskState,
    can_run_as_task,
    must_run_as_task,
    server_accepts_tool_tasks,
    task_support,
)
from inspector.wire.jsonrpc import RpcError
from tests.everything import demo_session, everything_session


def _text(result: dict[str, Any] | None) -> str:
    assert result is not None
    return "\n".join(b.get("text", "") for b in result.get("content", []))


def test_task_support_rules() -> None:
    caps = {"tasks": {"requests": {"tools": {"call": {}}}}}
    optional = {"name": "a", "execution": {"taskSupport": "optional"}}
    required = {"name": "b", "execution": {"taskSupport": "required"}}
    plain = {"name": "c"}
    assert task_support(plain) == "forbidden"
    assert task_support({"execution": {"taskSupport": "bogus"}}) == "forbidden"
    assert server_accepts_tool_tasks(caps)
    assert not server_accepts_tool_tasks({"tasks": {"list": {}}})
    assert can_run_as_task(caps, optional) and can_run_as_task(caps, required)
    assert not can_run_as_task(caps, plain)
    assert not can_run_as_task({}, required)  # no capability: MUST NOT, whatever the tool says
    assert must_run_as_task(caps, required) and not must_run_as_task(caps, optional)


async def test_demo_tools_declare_task_support() -> None:
    with anyio.fail_after(20):
        async with demo_session() as session:
            tools = {t["name"]: t for t in await McpClient(session).list_tools()}
            manager = TaskManager(session)
    assert manager.can_list and manager.can_cancel
    assert manager.can_run(tools["slow_count"])
    assert must_run_as_task(session.server_capabilities, tools["generate_report"])
    assert not manager.can_run(tools["echo"])


async def test_call_as_task_polls_and_fetches_the_result() -> None:
    seen: list[str] = []
    progress: list[float] = []
    with anyio.fail_after(30):
        async with demo_session() as session:
            manager = TaskManager(session)
            manager.add_listener(lambda s: seen.append(s.status))
            created = await manager.call_tool(
                "slow_count",
                {"seconds": 1, "steps": 4},
                ttl=60_000,
                on_progress=lambda p, t, m: progress.append(p),
            )
            assert created.status == "working"
            assert created.poll_interval == pytest.approx(0.5)  # the demo's 500 ms
            assert created.tool == "slow_count"
            state = await manager.follow(created.task_id)
    assert state.status == "completed"
    assert state.fetched and state.error is None
    assert "Counted to 4" in _text(state.result)
    assert state.result is not None
    assert (
        state.result["_meta"]["io.modelcontextprotocol/related-task"]["taskId"] == created.task_id
    )
    assert "working" in seen and "completed" in seen
    assert progress and progress[-1] == 4.0  # task progress reached us after CreateTaskResult


async def test_required_task_tool_and_polling_uses_tasks_get() -> None:
    methods: list[str] = []
    with anyio.fail_after(30):
        async with demo_session() as session:
            session.add_observer(
                lambda e: methods.append(
                    str((e.message or {}).get("method"))
                    if isinstance(e.message, dict) and e.direction.name == "OUT"
                    else ""
                )
            )
            client = McpClient(session)
            with pytest.raises(RpcError) as refused:
                await client.call_tool("generate_report", {"seconds": 0.2})
            manager = TaskManager(session)
            created = await manager.call_tool("generate_report", {"topic": "tests", "seconds": 1.2})
            state = await manager.follow(created.task_id)
    assert refused.value.code == -32601
    assert state.status == "completed"
    assert state.result is not None and state.result["structuredContent"]["topic"] == "tests"
    assert "tasks/get" in methods and "tasks/result" in methods


async def test_cancel_and_list() -> None:
    with anyio.fail_after(30):
        async with demo_session() as session:
            manager = TaskManager(session)
            slow = await manager.call_tool("slow_count", {"seconds": 30, "steps": 30})
            quick = await manager.call_tool("slow_count", {"seconds": 0.1, "steps": 1})
            listed = await manager.list()
            cancelled = await manager.cancel(slow.task_id)
            with pytest.raises(RpcError) as again:
                await manager.cancel(slow.task_id)  # already terminal: -32602
            after = await manager.follow(slow.task_id)
            done = await manager.follow(quick.task_id)
            with pytest.raises(RpcError) as unknown:
                await manager.get("no-such-task")
    assert {s.task_id for s in listed} >= {slow.task_id, quick.task_id}
    assert cancelled.status == "cancelled"
    assert again.value.code == -32602
    assert after.status == "cancelled" and after.error is not None  # tasks/result says so
    assert done.status == "completed"
    assert unknown.value.code == -32602


async def test_status_notifications_update_states_without_polling() -> None:
    with anyio.fail_after(30):
        async with demo_session() as session:
            manager = TaskManager(session)
            finished = anyio.Event()

            def on_change(state: TaskState) -> None:
                if state.terminal:
                    finished.set()

            manager.add_listener(on_change)
            created = await manager.call_tool("slow_count", {"seconds": 0.3, "steps": 2})
            await finished.wait()  # notifications/tasks/status from the demo, no tasks/get
            state = manager.tasks[created.task_id]
            assert state.status == "completed" and not state.fetched
            await manager.result(created.task_id)
    assert "Counted to 2" in _text(state.result)


async def test_follow_gives_up_after_max_wait() -> None:
    with anyio.fail_after(30):
        async with demo_session() as session:
            manager = TaskManager(session)
            created = await manager.call_tool("slow_count", {"seconds": 30, "steps": 2})
            state = await manager.follow(created.task_id, max_wait=0.6)
            assert state.status == "working" and not state.fetched
            await manager.cancel(created.task_id)


@pytest.mark.slow
async def test_everything_input_required_is_answered_through_tasks_result() -> None:
    """server-everything queues its elicitation until tasks/result: follow() must call it
    early on input_required, answer, and then see the task complete."""
    asked: list[dict[str, Any]] = []
    policy = elicitation_policy("accept-defaults")

    async def elicit(params: dict[str, Any]) -> dict[str, Any]:
        asked.append(params)
        return await policy(params)

    statuses: list[str] = []
    with anyio.fail_after(40):
        async with everything_session(Responders(elicitation=elicit)) as session:
            client = McpClient(session)
            while "simulate-research-query" not in {t["name"] for t in await client.list_tools()}:
                await anyio.sleep(0.1)
            manager = TaskManager(session)
            manager.add_listener(lambda s: statuses.append(s.status))
            created = await manager.call_tool(
                "simulate-research-query", {"topic": "python", "ambiguous": True}
            )
            state = await manager.follow(created.task_id)
    assert "input_required" in statuses
    assert (
        asked
        and asked[0]["_meta"]["io.modelcontextprotocol/related-task"]["taskId"] == created.task_id
    )
    assert state.status == "completed"
    assert "Clarification" in _text(state.result)
