"""Hosts that are not ours, through the proxy: their results are those of direct runs.

The official ``mcp`` SDK client and the official Inspector's CLI run the proxy as their
stdio server, in front of an SDK server and of server-everything; what they get through
the proxy must equal what they get talking to the server directly.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client
from paths import PY, ROOT, SERVERS
from proxy_support import events, inspector_cli, proxy_argv

from tests.everything import everything_command

pytestmark = pytest.mark.slow  # end to end: see pyproject's markers


def server(which: str) -> list[str]:
    if which == "sdk":
        return [PY, str(SERVERS / "sdk_stdio_server.py")]
    command, args = everything_command()
    return [command, *args]


CALLS = {"sdk": ("add", {"a": 2, "b": 40}), "everything": ("get-sum", {"a": 2, "b": 40})}


def proxied(which: str, record: Path) -> list[str]:
    return proxy_argv("--no-attach", "--record", str(record), "--", *server(which))


async def sdk_run(command: list[str]) -> dict[str, Any]:
    """What the official SDK client gets: tools, one call, resources, prompts."""
    tool, arguments = CALLS["sdk" if "sdk_stdio_server.py" in " ".join(command) else "everything"]
    params = StdioServerParameters(command=command[0], args=command[1:], cwd=str(ROOT))
    with anyio.fail_after(60):
        async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
            init = await session.initialize()
            tools = await session.list_tools()
            called = await session.call_tool(tool, arguments)
            resources = await session.list_resources()
            prompts = await session.list_prompts()
    dump = {"by_alias": True, "exclude_none": True, "mode": "json"}
    return {
        "server": init.server_info.model_dump(**dump),
        "capabilities": init.capabilities.model_dump(**dump),
        "tools": tools.model_dump(**dump),
        "call": called.model_dump(**dump),
        "resources": resources.model_dump(**dump),
        "prompts": prompts.model_dump(**dump),
    }


@pytest.mark.parametrize("which", ["sdk", "everything"])
async def test_the_sdk_client_gets_through_the_proxy_what_it_gets_directly(
    which: str, tmp_path: Path
) -> None:
    direct = await sdk_run(server(which))
    record = tmp_path / "proxy.jsonl"
    through = await sdk_run(proxied(which, record))
    assert through == direct
    methods = {json.loads(e["raw"]).get("method") for e in events(record) if e["dir"] == "out"}
    assert {"initialize", "tools/list", "tools/call", "resources/list"} <= methods


@pytest.mark.parametrize("which", ["sdk", "everything"])
def test_the_official_inspector_cli_through_the_proxy(which: str, tmp_path: Path) -> None:
    tool, arguments = CALLS[which]
    call = ["--method", "tools/call", "--tool-name", tool]
    for key, value in arguments.items():
        call += ["--tool-arg", f"{key}={value}"]
    record = tmp_path / "proxy.jsonl"
    direct = inspector_cli(tmp_path, *call, "--", *server(which))
    through = inspector_cli(tmp_path, *call, "--", *proxied(which, record))
    assert through == direct
    assert "42" in json.dumps(through)
    if which == "sdk":
        listing = ["--method", "tools/list"]
        assert inspector_cli(tmp_path, *listing, "--", *proxied(which, record)) == inspector_cli(
            tmp_path, *listing, "--", *server(which)
        )
    assert any(e.get("meta", {}).get("side") == "host" for e in events(record))
    assert os.path.exists(record)
