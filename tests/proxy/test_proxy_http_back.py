"""``mcp-inspect proxy URL``: stdio in front, Streamable HTTP behind (the bridge stdio-only
hosts need for remote servers), with everything on the wire and attachable."""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import pytest
from cli_runner import cli
from mcp import ClientSession, StdioServerParameters
from mcp.client.sse import sse_client
from mcp.client.stdio import stdio_client
from mcp.client.streamable_http import streamable_http_client
from paths import ROOT
from proxy_support import (
    events,
    host_through_proxy,
    inspector_cli,
    inspector_on,
    proxy_argv,
    runtime_folder,
    wait_for_proxy,
)

from inspector.engine.client import McpClient
from inspector.engine.responders import RootsList
from inspector.wire.events import WireEvent

pytestmark = pytest.mark.slow  # end to end: see pyproject's markers

DUMP: dict[str, Any] = {"by_alias": True, "exclude_none": True, "mode": "json"}


# the worker's shared servers (conftest) each test reaches through its own proxy
SHARED = {"sdk": "sdk_sse_base", "everything": "everything_http_base"}


@pytest.fixture
def runtime() -> Iterator[Path]:
    with runtime_folder() as folder:
        yield folder


async def exercise(session: ClientSession, tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
    init = await session.initialize()
    tools = await session.list_tools()
    called = await session.call_tool(tool, arguments)
    return {
        "server": init.server_info.model_dump(**DUMP),
        "tools": tools.model_dump(**DUMP),
        "call": called.model_dump(**DUMP),
    }


async def direct(url: str, tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
    with anyio.fail_after(60):
        async with streamable_http_client(url) as (read, write), ClientSession(read, write) as s:
            return await exercise(s, tool, arguments)


async def bridged(url: str, record: Path, tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
    argv = proxy_argv("--no-attach", "--record", str(record), url)
    params = StdioServerParameters(command=argv[0], args=argv[1:], cwd=str(ROOT))
    with anyio.fail_after(60):
        async with stdio_client(params) as (read, write), ClientSession(read, write) as s:
            return await exercise(s, tool, arguments)


@pytest.mark.parametrize("which", ["sdk", "everything"])
async def test_a_stdio_host_reaches_an_http_server_through_the_proxy(
    which: str, tmp_path: Path, request: pytest.FixtureRequest
) -> None:
    tool = "add" if which == "sdk" else "get-sum"
    arguments = {"a": 2, "b": 40}
    record = tmp_path / "proxy.jsonl"
    base = request.getfixturevalue(SHARED[which])  # the worker's (conftest)
    url = f"{base}/mcp"
    want = await direct(url, tool, arguments)
    got = await bridged(url, record, tool, arguments)
    assert got == want
    recorded = events(record)
    # everything visible: the HTTP exchange, the bodies, the session's end
    assert any(e["ch"] == "http" and e["raw"].startswith("POST ") for e in recorded)
    assert any(e["ch"] == "http" and e["raw"].startswith("DELETE ") for e in recorded)
    bodies = [json.loads(e["raw"]) for e in recorded if e["ch"] == "body" and e["dir"] == "out"]
    assert [b.get("method") for b in bodies][:2] == ["initialize", "notifications/initialized"]


async def test_an_inspector_attached_to_an_http_bridge(
    runtime: Path, tmp_path: Path, sdk_sse_base: str
) -> None:
    host_seen: list[WireEvent] = []
    seen: list[WireEvent] = []
    base = sdk_sse_base  # the worker's shared server (conftest)
    async with host_through_proxy(
        runtime, tmp_path / "p.jsonl", host_seen, name="bridge", server=[f"{base}/mcp"]
    ) as host:
        path = await wait_for_proxy("bridge")
        async with inspector_on(path, seen) as inspector:
            inspector.responders.roots = RootsList(["/srv/inspector"])
            client = McpClient(inspector)
            host_client = McpClient(host)
            got: dict[str, str] = {}

            async def inspector_calls() -> None:
                got["roots"] = json.dumps(await client.call_tool("ask_roots", {}))
                for n in range(3):
                    got[f"mine{n}"] = json.dumps(await client.call_tool("add", {"a": n, "b": 1000}))

            async def host_calls() -> None:
                for n in range(3):
                    got[f"host{n}"] = json.dumps(
                        await host_client.call_tool("add", {"a": n, "b": 100})
                    )

            with anyio.fail_after(60):
                async with anyio.create_task_group() as tg:  # both at once
                    tg.start_soon(inspector_calls)
                    tg.start_soon(host_calls)
            # the server asked for roots while answering the inspector: the inspector answered
            assert "file:///srv/inspector" in got["roots"]
            for n in range(3):
                assert f'"text": "{n + 1000}"' in got[f"mine{n}"], got[f"mine{n}"]
                assert f'"text": "{n + 100}"' in got[f"host{n}"], got[f"host{n}"]
    assert not [e for e in host_seen if e.method == "roots/list"]


@pytest.mark.parametrize("which", ["sdk", "everything"])
def test_the_official_inspector_cli_through_the_bridge(
    which: str, tmp_path: Path, request: pytest.FixtureRequest
) -> None:
    """The official Inspector's CLI runs the bridge as its stdio server: the same answers
    as when it posts to the HTTP server itself."""
    tool = "add" if which == "sdk" else "get-sum"
    call = ["--method", "tools/call", "--tool-name", tool, "--tool-arg", "a=2"]
    call += ["--tool-arg", "b=40"]
    record = tmp_path / "proxy.jsonl"
    base = request.getfixturevalue(SHARED[which])  # the worker's (conftest)
    url = f"{base}/mcp"
    direct = inspector_cli(tmp_path, *call, "--transport", "http", url)
    bridge = proxy_argv("--no-attach", "--record", str(record), url)
    through = inspector_cli(tmp_path, *call, "--", *bridge)
    listing = ["--method", "tools/list"]
    assert inspector_cli(tmp_path, *listing, "--", *bridge) == inspector_cli(
        tmp_path, *listing, "--transport", "http", url
    )
    assert through == direct
    assert "42" in json.dumps(through)
    assert any(e["ch"] == "http" and e["raw"].startswith("POST ") for e in events(record))


async def test_a_stdio_host_reaches_a_legacy_sse_server_through_the_proxy(
    tmp_path: Path, sdk_legacy_base: str
) -> None:
    """The 2024-11-05 HTTP+SSE transport behind (``/sse``): the same answers as the SDK's
    own SSE client gets, and the stream and posts on the proxy's wire."""
    record = tmp_path / "proxy.jsonl"
    base = sdk_legacy_base  # the worker's shared server (conftest)
    url = f"{base}/sse"
    with anyio.fail_after(60):
        async with sse_client(url) as (read, write), ClientSession(read, write) as s:
            want = await exercise(s, "add", {"a": 2, "b": 40})
    got = await bridged(url, record, "add", {"a": 2, "b": 40})
    assert got == want
    recorded = events(record)
    assert any(e["ch"] == "http" and e["raw"].startswith("GET ") for e in recorded)
    assert any(e["ch"] == "sse" and e["dir"] == "in" for e in recorded)


@pytest.mark.parametrize("mode", ["json", "legacy"])
def test_a_host_that_probes_the_era_first_reaches_an_older_http_server(
    mode: str, tmp_path: Path, request: pytest.FixtureRequest
) -> None:
    """A 2026-07-28 host (mcp-inspect itself, knowing nothing of this server yet) opens
    with ``server/discover``; an older server refuses it with a 4xx. The refusal goes back
    to the host, which then initializes; the proxy must not take the probe's refusal for
    "no Streamable HTTP here" (it did, and the legacy GET that followed ended the session).
    A legacy HTTP+SSE server is still found, by the status of the initialize."""
    record = tmp_path / "proxy.jsonl"
    env = {**os.environ, "XDG_STATE_HOME": str(tmp_path / "state")}  # no era remembered
    base = request.getfixturevalue(f"sdk_{mode}_base")  # the worker's (conftest)
    url = f"{base}/sse" if mode == "legacy" else f"{base}/mcp"
    done = cli(
        "--cli",
        *("--method", "tools/call", "--tool-name", "add"),
        *("--tool-arg", "a=2", "--tool-arg", "b=40"),
        "--",
        *proxy_argv("--no-attach", "--record", str(record), url),
        env=env,
    )
    assert done.returncode == 0, done.stdout + done.stderr[-2000:]
    assert json.loads(done.stdout)["content"][0]["text"] == "42"
    sent = [
        json.loads(e["raw"]).get("method")
        for e in events(record)
        if e["ch"] in ("body", "sse") and e["dir"] == "out"
    ]
    assert sent[:2] == ["server/discover", "initialize"]
    notes = [e["raw"] for e in events(record) if e["ch"] == "system"]
    falling_back = [n for n in notes if "falling back to legacy HTTP+SSE" in n]
    assert len(falling_back) == (1 if mode == "legacy" else 0)
