"""An agent that cancels a call (``notifications/cancelled``) cancels it at the server too;
the cancelled request gets no answer. Driven over raw JSON-RPC lines, since the ids the
cancellation names are the client's own."""

from __future__ import annotations

import json
import os
from typing import Any

import anyio
import pytest
from paths import PY
from test_bridge import DEMO_LINE

pytestmark = pytest.mark.slow


async def test_a_cancelled_call_is_cancelled_at_the_server() -> None:
    process = await anyio.open_process(
        [PY, "-m", "inspector", "mcp", "--no-record"], env=dict(os.environ)
    )
    assert process.stdin is not None and process.stdout is not None
    buffer = b""

    async def send(message: dict[str, Any]) -> None:
        assert process.stdin is not None
        await process.stdin.send(json.dumps({"jsonrpc": "2.0", **message}).encode() + b"\n")

    async def answer(wanted: int) -> dict[str, Any]:
        nonlocal buffer
        assert process.stdout is not None
        while True:
            while b"\n" in buffer:
                line, buffer = buffer.split(b"\n", 1)
                message = json.loads(line)
                assert message.get("id") != 3, "the cancelled call was answered"
                if message.get("id") == wanted:
                    return dict(message["result"])
            buffer += await process.stdout.receive()

    async def tool(id_: int, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
        await send(
            {"id": id_, "method": "tools/call", "params": {"name": name, "arguments": arguments}}
        )
        return await answer(id_)

    try:
        with anyio.fail_after(30):
            await send(
                {
                    "id": 1,
                    "method": "initialize",
                    "params": {
                        "protocolVersion": "2025-06-18",
                        "capabilities": {},
                        "clientInfo": {"name": "raw", "version": "0"},
                    },
                }
            )
            await answer(1)
            await send({"method": "notifications/initialized"})
            opened = await tool(2, "connect", {"target": DEMO_LINE})
            c = opened["structuredContent"]["connection"]
            await send(
                {
                    "id": 3,
                    "method": "tools/call",
                    "params": {
                        "name": "call",
                        "arguments": {
                            "connection": c,
                            "tool": "slow_count",
                            "arguments": {"seconds": 30},
                        },
                    },
                }
            )
            await anyio.sleep(1)
            await send({"method": "notifications/cancelled", "params": {"requestId": 3}})
            while True:  # the server is told, in the connection's log
                log = await tool(
                    4, "log", {"connection": c, "filter": "method:notifications/cancelled"}
                )
                if log["structuredContent"]["total"]:
                    break
                await anyio.sleep(0.2)
            assert "cancelled by the agent" in log["structuredContent"]["events"][0]["frame"]
            alive = await tool(5, "request", {"connection": c, "method": "ping"})
            assert not alive.get("isError")  # and the connection goes on
    finally:
        await process.aclose()
