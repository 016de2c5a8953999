"""Record a session against tests/servers/replay_server.py (Session + Recorder)."""

from __future__ import annotations

import contextlib
import sys
from pathlib import Path

import anyio

from inspector.engine.client import McpClient
from inspector.engine.responders import Responders, elicitation_policy
from inspector.engine.session import Session
from inspector.record.format import SessionHeader
from inspector.record.recorder import Recorder
from inspector.transports.stdio import StdioTransport
from inspector.wire.jsonrpc import RpcError

SERVER = str(Path(__file__).with_name("replay_server.py"))


async def record(path: Path, *args: str) -> None:
    """A session with lists, calls (one with progress), a read, a prompt, an error and
    an elicitation answered with defaults."""
    recorder = Recorder(
        path, SessionHeader(target={"command": sys.executable, "args": [SERVER, *args]})
    )
    transport = StdioTransport(sys.executable, [SERVER, *args])
    responders = Responders(elicitation=elicitation_policy("accept-defaults"))
    try:
        with anyio.fail_after(30):
            async with Session(
                transport, responders=responders, recorder=recorder, timeout=20
            ) as session:
                client = McpClient(session)
                await session.initialize()
                await client.list_tools()
                await client.call_tool("add", {"a": 1, "b": 2})
                await client.call_tool("echo", {"text": "same words"})
                await client.call_tool("steps", {"count": 3}, on_progress=lambda *a: None)
                await client.read_resource("replay://greeting")
                await client.get_prompt("review", {"code": "x = 1"})
                with contextlib.suppress(RpcError):
                    await client.read_resource("replay://nothing-here")
                await client.call_tool("ask", {})
    finally:
        recorder.close()


if __name__ == "__main__":
    anyio.run(record, Path(sys.argv[1]), *sys.argv[2:])


TASKS = str(Path(__file__).with_name("replay_tasks.py"))


async def record_tasks(path: Path) -> None:
    """start -> status(task id from start) -> slow, cancelled by the user after 0.3 s."""
    recorder = Recorder(path, SessionHeader(target={"command": sys.executable, "args": [TASKS]}))
    try:
        with anyio.fail_after(30):
            async with Session(
                StdioTransport(sys.executable, [TASKS]), recorder=recorder, timeout=20
            ) as session:
                client = McpClient(session)
                await session.initialize()
                started = await client.call_tool("start", {})
                await client.call_tool("status", {"taskId": started["taskId"]})
                rid = session.next_id()
                async with anyio.create_task_group() as tg:

                    async def slow() -> None:
                        with contextlib.suppress(RpcError):
                            await session.request("tools/call", {"name": "slow"}, request_id=rid)

                    tg.start_soon(slow)
                    await anyio.sleep(0.3)
                    await session.cancel(rid, "the user gave up")
    finally:
        recorder.close()
