"""``mcp-inspect mcp`` driven as an agent drives it: the official SDK's client over stdio.

Real peers only: the demo server, an official-SDK Streamable HTTP server, and
``servers/bridge_peer.py`` (a 13 MB result, a crash mid-call, its own pid).
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest
from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client
from paths import DEMO, PY, SERVERS
from processes import alive
from servers.http_support import sdk_server

pytestmark = pytest.mark.slow

DEMO_LINE = " ".join(DEMO)
PEER_LINE = f"{PY} {SERVERS / 'bridge_peer.py'}"


@asynccontextmanager
async def bridge(*extra: str) -> AsyncIterator[ClientSession]:
    """The bridge started as an agent's config starts it, a session opened on it."""
    params = StdioServerParameters(
        command=PY, args=["-m", "inspector", "mcp", *extra], env=dict(os.environ)
    )
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        yield session


async def call(session: ClientSession, which: str, /, **arguments: Any) -> dict[str, Any]:
    """A tool that must succeed: its structured content."""
    result = await session.call_tool(which, arguments)
    text = "".join(getattr(c, "text", "") for c in result.content)
    assert not result.is_error, text
    assert result.structured_content is not None
    assert json.loads(text) == result.structured_content  # the text says the same
    return result.structured_content


async def fails(session: ClientSession, which: str, /, **arguments: Any) -> str:
    """A tool that must fail as a result (isError), never a protocol error: its message."""
    result = await session.call_tool(which, arguments)
    assert result.is_error
    return "".join(getattr(c, "text", "") for c in result.content)


async def test_demo_connect_list_call_log_and_disconnect(private_state: Path) -> None:
    async with bridge() as agent:
        listed = await agent.list_tools()
        names = {t.name for t in listed.tools}
        assert {"connect", "disconnect", "list", "call", "log", "lint", "diff"} <= names
        assert all(t.output_schema and t.input_schema for t in listed.tools)

        opened = await call(agent, "connect", target=DEMO_LINE)
        c = opened["connection"]
        assert opened["serverInfo"]["name"] == "mcp-inspect-demo"
        assert opened["era"] == "handshake" and opened["protocolVersion"]
        assert opened["counts"]["tools"] > 10 and "tools" in opened["capabilities"]
        recording = Path(opened["recording"])
        assert recording.is_relative_to(private_state)  # the sessions folder, as the TUI's

        tools = await call(agent, "list", connection=c, kind="tools", limit=5)
        assert tools["total"] == opened["counts"]["tools"] and len(tools["items"]) == 5
        assert "inputSchema" not in tools["items"][0] and tools["next_cursor"] == 5
        one = await call(agent, "list", connection=c, name="get_weather")
        assert one["items"][0]["outputSchema"]["type"] == "object"

        good = await call(agent, "call", connection=c, tool="add", arguments={"a": 2, "b": 3})
        assert good["result"]["content"][0]["text"] == "2 + 3 = 5"
        assert good["latency_ms"] >= 0 and "argumentIssues" not in good
        weather = await call(
            agent, "call", connection=c, tool="get_weather", arguments={"city": "Paris"}
        )
        assert weather["outputSchema"]["status"] == "matches"

        # invalid arguments: reported by the inputSchema, sent anyway, the server's answer kept
        bad = await call(agent, "call", connection=c, tool="add", arguments={"a": "two"})
        assert any(i.startswith("a:") or "b" in i for i in bad["argumentIssues"])
        unknown = await fails(agent, "call", connection=c, tool="ad", arguments={})
        assert "no tool 'ad'" in unknown and "add" in unknown

        log = await call(agent, "log", connection=c, filter="method:tools/call dir:in")
        assert log["total"] == 3 and all(e["direction"] == "in" for e in log["events"])
        assert {e["seq"] for e in log["events"]} >= {good["seq"], bad["seq"]}
        errors = await call(agent, "log", connection=c, filter="is:error")
        assert bad["seq"] in {e["seq"] for e in errors["events"]}
        assert "unknown" in await fails(agent, "log", connection=c, filter="color:red")

        closed = await call(agent, "disconnect", connection=c)
        assert closed["closed"] and recording.stat().st_size > 0
        assert "no connection 'c1'" in await fails(agent, "list", connection=c)


async def test_http_sdk_server_and_two_connections_at_once(sdk_sse_base: str) -> None:
    base = sdk_sse_base  # the worker's shared server (conftest)
    async with bridge() as agent:
        web = await call(agent, "connect", target=base + "/mcp")
        demo = await call(agent, "connect", target=DEMO_LINE)
        assert web["connection"] != demo["connection"]
        assert web["serverInfo"]["name"] == "sdk-http-test-server"
        summed = await call(
            agent,
            "call",
            connection=web["connection"],
            tool="add",
            arguments={"a": 20, "b": 22},
        )
        assert "42" in json.dumps(summed["result"])
        echoed = await call(
            agent,
            "call",
            connection=demo["connection"],
            tool="echo",
            arguments={"message": "hi"},
        )
        assert "hi" in json.dumps(echoed["result"])
        http = await call(agent, "log", connection=web["connection"], filter="channel:http")
        assert http["total"] > 0  # HTTP lines and headers are frames too
        diff = await call(agent, "diff", a=web["connection"], b=demo["connection"])
        assert diff["summary"] and diff["worst"] == "breaking"  # add is not in the demo's
        await call(agent, "disconnect", connection=web["connection"])
        again = await call(
            agent, "call", connection=demo["connection"], tool="add", arguments={"a": 1, "b": 1}
        )
        assert again["result"]["content"][0]["text"] == "1 + 1 = 2"


async def test_crash_mid_call_is_an_error_result_and_the_bridge_lives_on() -> None:
    async with bridge() as agent:
        c = (await call(agent, "connect", target=PEER_LINE))["connection"]
        message = await fails(agent, "call", connection=c, tool="crash", arguments={})
        assert "exit code 3" in message and "RuntimeError: boom" in message
        stderr = await call(agent, "log", connection=c, filter="channel:stderr boom")
        assert stderr["total"] >= 1  # the traceback is in the log
        assert "was lost" in await fails(agent, "call", connection=c, tool="pid", arguments={})
        other = await call(agent, "connect", target=DEMO_LINE)  # the bridge still serves
        assert other["counts"]["tools"] > 0
        rows = {r["connection"]: r for r in (await call(agent, "connections"))["connections"]}
        assert not rows[c]["open"] and "exit code 3" in rows[c]["lost"]
        assert rows[other["connection"]]["open"] and rows[other["connection"]]["frames"] > 0


async def test_a_13_mb_result_is_bounded_and_pageable() -> None:
    async with bridge() as agent:
        c = (await call(agent, "connect", target=PEER_LINE))["connection"]
        big = await agent.call_tool(
            "call", {"connection": c, "tool": "big", "arguments": {"megabytes": 13}}
        )
        text = big.content[0].text  # type: ignore[union-attr]
        assert not big.is_error and len(text) < 60_000  # not 13 MB in the agent's context
        out = big.structured_content
        assert out is not None and out["truncated"] and out["size"] > 13_000_000
        assert f"seq: {out['seq']}" in out["whole"]
        page = await call(agent, "log", connection=c, seq=out["seq"], offset=1000, max_chars=5000)
        assert page["size"] > 13_000_000 and len(page["text"]) == 5000
        assert page["next_offset"] == 6000
        rows = await call(agent, "log", connection=c, filter="method:tools/call dir:in")
        assert rows["events"][0]["size"] > 13_000_000 and len(rows["events"][0]["frame"]) == 1000


async def test_disconnect_leaves_no_process() -> None:
    async with bridge() as agent:
        c = (await call(agent, "connect", target=PEER_LINE))["connection"]
        got = await call(agent, "call", connection=c, tool="pid", arguments={})
        pid = int(got["result"]["content"][0]["text"])
        assert alive(pid)
        await call(agent, "disconnect", connection=c)
        deadline = time.monotonic() + 5
        while alive(pid) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert not alive(pid)


async def test_connect_failures_say_what_to_do(tmp_path: Path) -> None:
    async with bridge() as agent:
        message = await fails(agent, "connect", target=f"{PY} -c 'import sys; sys.exit(2)'")
        assert "could not connect" in message and "exit code 2" in message
        assert "connect needs target" in await fails(agent, "connect")
        missing = await fails(agent, "connect", target="x", config=str(tmp_path / "no.json"))
        assert "no.json" in missing


async def test_save_writes_a_file_replay_opens_and_replay_checks_it(tmp_path: Path) -> None:
    async with bridge() as agent:
        c = (await call(agent, "connect", target=DEMO_LINE))["connection"]
        await call(agent, "call", connection=c, tool="add", arguments={"a": 1, "b": 2})
        saved = await call(agent, "save", connection=c, path=str(tmp_path / "s.jsonl"))
        assert saved["open_with"] == f"mcp-inspect replay {tmp_path / 's.jsonl'}"
        first = (tmp_path / "s.jsonl").read_text().splitlines()[0]
        assert json.loads(first)["mcp_inspect_session"] == 1  # a session file header
        report = await call(agent, "replay", recording=saved["path"], connection=c)
        assert not report["differs"] and report["summary"]["same"] > 0


async def test_the_bridges_own_tools_pass_lint() -> None:
    """``lint`` (the bridge's own tool) run on the bridge itself: its schemas are clean."""
    async with bridge() as agent:
        c = await call(agent, "connect", target=f"{PY} -m inspector mcp --no-record")
        checked = await call(agent, "lint", connection=c["connection"])
        assert checked["issues"] == [], checked["issues"]
        assert c["counts"]["tools"] == 13
    import subprocess

    cli = [PY, "-m", "inspector", "lint", "--format", "json", "--no-record", "--"]
    done = subprocess.run(
        [*cli, PY, "-m", "inspector", "mcp", "--no-record"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["issues"] == []


async def test_skill_is_printed() -> None:
    import subprocess

    done = subprocess.run(
        [PY, "-m", "inspector", "mcp", "--skill"], capture_output=True, text=True, timeout=30
    )
    assert done.returncode == 0
    assert "## The debugging workflow" in done.stdout and "log {connection, seq}" in done.stdout


async def test_server_requests_are_declined_by_default_and_answered_by_the_calls_policy() -> None:
    async with bridge() as agent:
        c = (await call(agent, "connect", target=DEMO_LINE))["connection"]
        declined = await call(
            agent, "call", connection=c, tool="ask_llm", arguments={"question": "hi?"}
        )
        assert declined["serverRequests"] == [
            {"method": "sampling/createMessage", "answer": "rejected"}
        ]
        answered = await call(
            agent,
            "call",
            connection=c,
            tool="ask_llm",
            arguments={"question": "hi?"},
            answers={"sampling": "forty-two"},
        )
        assert "forty-two" in json.dumps(answered["result"])
        booked = await call(
            agent,
            "call",
            connection=c,
            tool="book_table",
            arguments={},
            answers={"elicitation": "decline"},
        )
        assert booked["serverRequests"][0]["answer"] == "decline"


async def test_oauth_without_a_stored_token_names_the_command_a_person_runs() -> None:
    with sdk_server("3600", script="oauth_sdk_server.py") as base:
        async with bridge() as agent:
            message = await fails(agent, "connect", target=base + "/mcp")
            assert "needs authorization" in message
            assert f"mcp-inspect --cli --method ping {base}/mcp" in message


async def test_read_get_prompt_request_and_a_diff_against_a_session_file(tmp_path: Path) -> None:
    async with bridge() as agent:
        c = (await call(agent, "connect", target=DEMO_LINE))["connection"]
        prompts = await call(agent, "list", connection=c, kind="prompts")
        templates = await call(agent, "list", connection=c, kind="resource_templates")
        assert {"uriTemplate": "demo://notes/{id}", "name": "note"} in [
            {k: i[k] for k in ("uriTemplate", "name")} for i in templates["items"]
        ]
        resources = await call(agent, "list", connection=c, kind="resources", limit=1)
        uri = resources["items"][0]["uri"]
        read = await call(agent, "read", connection=c, uri=uri)
        assert read["result"]["contents"][0]["uri"] == uri
        name = prompts["items"][0]["name"]
        got = await call(agent, "get_prompt", connection=c, name=name, arguments={})
        assert "messages" in got["result"] or got["findings"]
        pong = await call(agent, "request", connection=c, method="ping")
        assert pong["result"] == {} and pong["latency_ms"] >= 0
        missing = await fails(agent, "request", connection=c, method="no/such")
        assert "-32601" in missing
        saved = await call(agent, "save", connection=c, path=str(tmp_path / "demo.jsonl"))
        same = await call(agent, "diff", a=saved["path"], b=c)
        assert same["differences"] == [] and "worst" not in same


async def test_the_bridge_ending_stops_the_servers_it_started() -> None:
    async with bridge() as agent:
        c = (await call(agent, "connect", target=PEER_LINE))["connection"]
        got = await call(agent, "call", connection=c, tool="pid", arguments={})
        pid = int(got["result"]["content"][0]["text"])
    deadline = time.monotonic() + 10
    while alive(pid) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not alive(pid)


async def test_without_recording_save_still_writes_a_replayable_session(tmp_path: Path) -> None:
    async with bridge("--no-record") as agent:
        opened = await call(agent, "connect", target=DEMO_LINE)
        assert "recording" not in opened
        c = opened["connection"]
        await call(agent, "call", connection=c, tool="echo", arguments={"message": "kept"})
        saved = await call(agent, "save", connection=c, path=str(tmp_path / "n.jsonl"))
        assert saved["events"] > 0 and "kept" in (tmp_path / "n.jsonl").read_text()
        report = await call(agent, "replay", recording=saved["path"], target=DEMO_LINE)
        assert not report["differs"], report
