"""The 2026-07-28 Tasks extension (``io.modelcontextprotocol/tasks``) in the engine and the
CLI, against ``servers/era_server.py``'s stateless mode over stdio and HTTP: declared on
every request, a task the server makes followed to its end (tasks/get), its input
requests answered with tasks/update, tasks/cancel; and cacheable (``ttlMs``) list results
reused while fresh."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import anyio
import pytest
from paths import SERVERS

from inspector.engine.client import McpClient
from inspector.engine.era import META_CLIENT_CAPABILITIES, TASKS
from inspector.engine.responders import Responders
from inspector.engine.session import Session
from inspector.engine.tasks import TaskManager
from inspector.transports.stdio import StdioTransport
from inspector.wire.events import Direction, WireEvent
from tests.servers.http_support import sdk_server

ERA_SERVER = SERVERS / "era_server.py"


def session(responders: Responders | None = None) -> Session:
    return Session(
        StdioTransport(sys.executable, [str(ERA_SERVER), "stateless-stdio"]),
        responders=responders,
        protocol_version="2026-07-28",
        timeout=30,
    )


def sent(events: list[WireEvent]) -> list[dict[str, Any]]:
    return [
        e.message
        for e in events
        if e.direction is Direction.OUT and isinstance(e.message, dict) and "method" in e.message
    ]


async def test_a_task_the_server_makes_is_followed_to_its_result() -> None:
    events: list[WireEvent] = []
    with anyio.fail_after(30):
        async with session() as s:
            s.add_observer(events.append)
            await s.initialize()
            result = await McpClient(s).call_tool("report")
    assert result["content"][0]["text"] == "report done"
    methods = [m["method"] for m in sent(events)]
    assert methods[:2] == ["server/discover", "tools/call"]
    assert methods[2:] == ["tasks/get"] * (len(methods) - 2) and len(methods) >= 4
    call = sent(events)[1]
    assert "task" not in call["params"]  # server-directed: the capability is the whole ask
    assert call["params"]["_meta"][META_CLIENT_CAPABILITIES]["extensions"] == {TASKS: {}}
    assert any(b"the server answered with task task-1" in e.raw for e in events)


async def test_input_requests_are_answered_with_tasks_update() -> None:
    asked: list[dict[str, Any]] = []

    async def elicit(params: dict[str, Any]) -> dict[str, Any]:
        asked.append(params)
        return {"action": "accept", "content": {"ok": True}}

    events: list[WireEvent] = []
    with anyio.fail_after(30):
        async with session(Responders(elicitation=elicit)) as s:
            s.add_observer(events.append)
            await s.initialize()
            result = await McpClient(s).call_tool("confirm")
    assert [a["message"] for a in asked] == ["Go ahead?"]  # once, though polled again
    updates = [m for m in sent(events) if m["method"] == "tasks/update"]
    assert len(updates) == 1
    assert updates[0]["params"]["inputResponses"] == {
        "go": {"action": "accept", "content": {"ok": True}}
    }
    assert "accept" in result["content"][0]["text"]


async def test_cancel_acknowledged_then_the_task_shows_cancelled() -> None:
    with anyio.fail_after(30):
        async with session() as s:
            await s.initialize()
            tasks = TaskManager(s)
            assert tasks.extension and tasks.can_cancel and not tasks.can_list
            state = await tasks.call_tool("forever")
            assert state.status == "working" and state.poll_interval == 0.05
            state = await tasks.cancel(state.task_id)
            assert state.status == "cancelled" and state.terminal
            followed = await tasks.follow(state.task_id)
    assert followed.status == "cancelled" and followed.result is None


async def test_a_call_answered_at_once_is_a_finished_state() -> None:
    with anyio.fail_after(30):
        async with session() as s:
            await s.initialize()
            state = await TaskManager(s).call_tool("add", {"a": 1, "b": 2})
    assert state.terminal and state.fetched
    assert state.result is not None and state.result["content"][0]["text"] == "3"


@pytest.mark.slow
def test_cli_over_http_calls_a_task_required_tool(tmp_path: Path) -> None:
    with sdk_server("stateless-http", script="era_server.py") as base:
        done = subprocess.run(
            [
                sys.executable,
                "-m",
                "inspector",
                "--cli",
                "--method",
                "tools/call",
                "--tool-name",
                "report",
                f"{base}/mcp",
            ],
            capture_output=True,
            text=True,
            timeout=60,
        )
    assert done.returncode == 0, done.stderr
    assert "must be called as a task" in done.stderr and ": completed" in done.stderr
    assert json.loads(done.stdout)["content"][0]["text"] == "report done"


async def test_cacheable_lists_are_reused_while_fresh_and_said_so() -> None:
    events: list[WireEvent] = []
    with anyio.fail_after(30):
        async with session() as s:
            s.add_observer(events.append)
            await s.initialize()
            client = McpClient(s)
            first = await client.list_tools()
            again = await client.list_tools()
            await client.list_resources()
            await anyio.sleep(0.05)
            await client.list_resources()  # its 1 ms are over: asked again
    assert first == again
    methods = [m["method"] for m in sent(events)]
    assert methods.count("tools/list") == 1 and methods.count("resources/list") == 2
    cached = [e for e in events if "cached" in e.meta]
    assert len(cached) == 1 and cached[0].message is None  # a note, not a wire frame
    assert cached[0].meta["cached"]["method"] == "tools/list"
    assert cached[0].meta["cached"]["ttl_ms"] == 60000
    assert 0 <= cached[0].meta["cached"]["age_ms"] < 60000
    assert b"cached result reused" in cached[0].raw and b"ms old" in cached[0].raw


async def test_a_read_only_request_whose_stream_broke_is_sent_again() -> None:
    from inspector.transports.detect import connect_http

    events: list[WireEvent] = []
    with sdk_server("stateless-http", script="era_server.py") as base:
        transport = connect_http(f"{base}/mcp")
        with anyio.fail_after(30):
            async with Session(transport, protocol_version="2026-07-28", timeout=20) as s:
                s.add_observer(events.append)
                await s.initialize()
                prompts = await McpClient(s).list_prompts()
    assert prompts == []
    lists = [m for m in sent(events) if m["method"] == "prompts/list"]
    assert len(lists) == 2 and lists[0]["id"] != lists[1]["id"]
    (note,) = [e for e in events if "resend_of" in e.meta]
    assert note.meta["resend_of"] == lists[0]["id"] and note.meta["resent_as"] == lists[1]["id"]
    assert b"ended before its response; sent again" in note.raw
