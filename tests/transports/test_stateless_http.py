"""The 2026-07-28 stateless era over Streamable HTTP and stdio, against the official SDK
(``servers/stateless_server.py`` under uvicorn): routing headers on every POST, no
session id, no GET stream, no DELETE, MRTR retries, cancel by closing the stream, and
``--cli --protocol-version 2026-07-28`` run for real (in the test process, and once as a
child process)."""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from typing import Any

import anyio
import pytest
from cli_inprocess import cli_inprocess_async
from paths import ROOT, SERVERS
from servers.http_scripted import Conn, Request, ScriptedServer

from inspector.engine.client import McpClient
from inspector.engine.lint import tool_headers
from inspector.engine.responders import Responders
from inspector.engine.session import RequestTimeoutError, Session
from inspector.transports.detect import connect_http
from inspector.wire.events import Channel, Direction, WireEvent
from inspector.wire.jsonrpc import RpcError

SERVER = SERVERS / "stateless_server.py"
STATELESS = "2026-07-28"


@pytest.fixture(params=["http", "http-json"])
def url(request: pytest.FixtureRequest, stateless_url: Callable[[str], str]) -> str:
    return stateless_url(request.param)  # the worker's shared server (conftest)


def http_out(events: list[WireEvent]) -> list[dict[str, Any]]:
    return [e.meta for e in events if e.channel is Channel.HTTP and e.direction is Direction.OUT]


def codes(events: list[WireEvent]) -> set[str]:
    return {f.code for e in events for f in e.findings}


@pytest.mark.slow
async def test_requests_carry_routing_headers_and_no_session(url: str) -> None:
    async def answer(params: dict[str, Any]) -> dict[str, Any]:
        return {"action": "accept", "content": {"name": "Grace"}}

    events: list[WireEvent] = []
    with anyio.fail_after(30):
        async with Session(
            connect_http(url),
            protocol_version=STATELESS,
            timeout=20,
            responders=Responders(elicitation=answer),
        ) as session:
            session.add_observer(events.append)
            await session.initialize()
            client = McpClient(session)
            tools = await client.list_tools()
            added = await client.call_tool("add", {"a": 1, "b": 2})
            greeted = await client.call_tool("greet")
    assert {"add", "slow", "greet"} <= {t["name"] for t in tools}
    assert added["structuredContent"] == {"result": 3}
    assert greeted["structuredContent"] == {"result": "hello, Grace"}
    assert session.server_info["name"] == "sdk-stateless-server"
    out = http_out(events)
    assert [m["method"] for m in out] == ["POST"] * 5  # no GET stream, no DELETE
    posted = [(m["headers"]["Mcp-Method"], m["headers"].get("Mcp-Name")) for m in out]
    assert posted == [
        ("server/discover", None),
        ("tools/list", None),
        ("tools/call", "add"),
        ("tools/call", "greet"),
        ("tools/call", "greet"),
    ]
    for meta in out:
        assert meta["headers"]["MCP-Protocol-Version"] == STATELESS
        assert "MCP-Session-Id" not in meta["headers"]
    statuses = [
        e.meta.get("status")
        for e in events
        if e.channel is Channel.HTTP and e.direction is Direction.IN
    ]
    assert statuses == [200] * 5
    assert not codes(events), codes(events)


@pytest.mark.slow
async def test_tool_arguments_are_mirrored_into_mcp_param_headers(url: str) -> None:
    events: list[WireEvent] = []
    with anyio.fail_after(30):
        async with Session(connect_http(url), protocol_version=STATELESS, timeout=20) as session:
            session.add_observer(events.append)
            await session.initialize()
            client = McpClient(session)
            # not listed yet: the server answers HeaderMismatch, the client re-lists, retries
            first = await client.call_tool("where", {"region": "us-west1"})
            second = await client.call_tool("where", {"region": " Zürich", "limit": 3})
    assert first["structuredContent"] == {"result": "us-west1 (limit 10)"}
    assert second["structuredContent"] == {"result": " Zürich (limit 3)"}
    calls = [m["headers"] for m in http_out(events) if m["headers"].get("Mcp-Name") == "where"]
    assert len(calls) == 3  # refused, retried after tools/list, second call
    assert not any(k.startswith("Mcp-Param-") for k in calls[0])
    assert calls[1]["Mcp-Param-Region"] == "us-west1" and "Mcp-Param-Limit" not in calls[1]
    assert calls[2]["Mcp-Param-Region"] == "=?base64?IFrDvHJpY2g=?="  # edge space, non-ASCII
    assert calls[2]["Mcp-Param-Limit"] == "3"


def test_invalid_x_mcp_header_annotations_reject_the_tool() -> None:
    good = {
        "name": "good",
        "inputSchema": {
            "type": "object",
            "properties": {"r": {"type": "string", "x-mcp-header": "R"}},
        },
    }
    bad = {
        "name": "bad",
        "inputSchema": {
            "type": "object",
            "properties": {
                "n": {"type": "number", "x-mcp-header": "N"},
                "xs": {"type": "array", "items": {"type": "string", "x-mcp-header": "X"}},
                "a": {"type": "string", "x-mcp-header": "Dup"},
                "b": {"type": "string", "x-mcp-header": "dup"},
                "c": {"type": "string", "x-mcp-header": "bad name"},
            },
        },
    }
    headers, rejected = tool_headers([good, bad])  # what the engine hands HTTP, what it drops
    assert headers == {"good": {("r",): "R"}}
    assert set(rejected) == {"bad"}
    assert len(rejected["bad"]) == 4, rejected


async def test_a_timed_out_request_closes_its_stream_instead_of_posting_a_cancel(url: str) -> None:
    events: list[WireEvent] = []
    with anyio.fail_after(30):
        async with Session(connect_http(url), protocol_version=STATELESS, timeout=20) as session:
            session.add_observer(events.append)
            await session.initialize()
            with pytest.raises(RequestTimeoutError):
                await session.request(
                    "tools/call", {"name": "slow", "arguments": {"seconds": 5}}, timeout=0.5
                )
            assert (await McpClient(session).call_tool("add", {"a": 2, "b": 2}))[
                "structuredContent"
            ] == {"result": 4}  # the session goes on
    bodies = [
        e.message for e in events if e.channel is Channel.BODY and e.direction is Direction.OUT
    ]
    assert not any(m.get("method") == "notifications/cancelled" for m in bodies)
    assert any(b"closing the response stream" in e.raw for e in events)


@pytest.mark.slow
async def test_cli_over_http(url: str) -> None:
    result = await cli(
        "--cli",
        "--protocol-version",
        STATELESS,
        "--method",
        "tools/call",
        "--tool-name",
        "add",
        "--tool-arg",
        "a=40",
        "--tool-arg",
        "b=2",
        url,
    )
    assert result["structuredContent"] == {"result": 42}
    listed = await cli("--cli", "--protocol-version", STATELESS, "--method", "tools/list", url)
    assert {"add", "slow", "greet"} <= {t["name"] for t in listed["tools"]}
    greeted = await cli(
        "--cli",
        "--protocol-version",
        STATELESS,
        "--on-elicit",
        "accept-defaults",
        "--method",
        "tools/call",
        "--tool-name",
        "greet",
        url,
    )
    assert greeted["isError"] is False
    thought = await cli(
        "--cli",
        "--protocol-version",
        STATELESS,
        "--on-sample",
        "four",
        "--method",
        "tools/call",
        "--tool-name",
        "think",
        url,
    )
    assert thought["structuredContent"] == {"result": "four"}  # MRTR sampling


@pytest.mark.slow
async def test_cli_over_stdio() -> None:
    target = ["--", sys.executable, str(SERVER), "stdio"]
    result = await cli(
        "--cli",
        "--protocol-version",
        STATELESS,
        "--method",
        "tools/call",
        "--tool-name",
        "add",
        "--tool-arg",
        "a=40",
        "--tool-arg",
        "b=2",
        *target,
    )
    assert result["structuredContent"] == {"result": 42}
    listed = await cli("--cli", "--protocol-version", STATELESS, "--method", "tools/list", *target)
    assert {"add", "slow", "greet"} <= {t["name"] for t in listed["tools"]}
    found = await cli("--cli", "--protocol-version", STATELESS, "--method", "initialize", *target)
    assert found["supportedVersions"] == [STATELESS]  # server/discover stands in
    pinged = await cli("--cli", "--protocol-version", STATELESS, "--method", "ping", *target)
    assert pinged["supportedVersions"] == [STATELESS]  # ping is gone: server/discover


async def test_a_refused_stateless_post_does_not_fall_back_to_legacy_sse() -> None:
    async def handler(req: Request, conn: Conn) -> None:
        await conn.respond(404, "no such endpoint")

    async with ScriptedServer(handler) as server:
        with anyio.fail_after(30):
            done = await anyio.run_process(
                [
                    sys.executable,
                    "-m",
                    "inspector",
                    "--cli",
                    "--protocol-version",
                    STATELESS,
                    "--method",
                    "tools/list",
                    server.url,
                ],
                check=False,
                cwd=ROOT,
            )
    assert done.returncode != 0
    assert not server.gets()  # a legacy HTTP+SSE fallback would GET the endpoint
    assert [r.headers["mcp-method"] for r in server.posts()] == ["server/discover"]
    assert "404" in done.stderr.decode()


async def test_a_cut_response_stream_is_not_resumed() -> None:
    discover = {
        "resultType": "complete",
        "supportedVersions": [STATELESS],
        "ttlMs": 0,
        "cacheScope": "private",
        "capabilities": {"tools": {}},
    }

    async def handler(req: Request, conn: Conn) -> None:
        message = req.json()
        if req.rpc_method == "server/discover":
            await conn.respond(200, {"jsonrpc": "2.0", "id": message["id"], "result": discover})
        else:  # one event with an id, then the stream ends without the response
            await conn.start_sse()
            await conn.event(
                {
                    "jsonrpc": "2.0",
                    "method": "notifications/progress",
                    "params": {"progressToken": "p", "progress": 1},
                },
                id="e1",
            )

    events: list[WireEvent] = []
    async with ScriptedServer(handler) as server:
        with anyio.fail_after(30):
            async with Session(
                connect_http(server.url), protocol_version=STATELESS, timeout=20
            ) as session:
                session.add_observer(events.append)
                await session.initialize()
                with pytest.raises(RpcError) as err:
                    await session.request("tools/list")
        assert not server.gets()  # no GET with Last-Event-ID
    assert "cannot be resumed" in err.value.message


async def cli(*args: str) -> Any:
    """The CLI's printed result, run in the test process (the refused POST above runs it
    as a child process, end to end)."""
    done = await cli_inprocess_async(*args)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)
