"""Record sessions against tests/servers/replay_notify_server.py and the demo server
(Session + Recorder), for the replay tests of notifications and server requests."""

from __future__ import annotations

import sys
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import anyio

from inspector.engine.client import McpClient
from inspector.engine.responders import Responders, fixed_sampling
from inspector.engine.session import Session
from inspector.record.format import SessionHeader
from inspector.record.recorder import Recorder
from inspector.transports.stdio import StdioTransport

NOTIFY = str(Path(__file__).with_name("replay_notify_server.py"))
DEMO = ["-m", "inspector.demo"]
SAMPLED = "a recorded line"  # the client's recorded answer to the server's sampling request


def _progress(*_: Any) -> None:
    return None


async def _record(
    path: Path,
    args: list[str],
    script: Callable[[Session], Awaitable[None]],
    responders: Responders | None = None,
) -> None:
    recorder = Recorder(path, SessionHeader(target={"command": sys.executable, "args": args}))
    try:
        with anyio.fail_after(30):
            async with Session(
                StdioTransport(sys.executable, args),
                recorder=recorder,
                responders=responders,
                timeout=20,
            ) as session:
                await session.initialize()
                await script(session)
    finally:
        recorder.close()


async def record_notify(path: Path) -> None:
    """work (logs + progress), chatty (two logs), a plain list."""

    async def script(session: Session) -> None:
        client = McpClient(session)
        await client.call_tool("work", {"count": 3}, on_progress=_progress)
        await client.call_tool("chatty", {})
        await client.list_tools()

    await _record(path, [NOTIFY], script)


async def record_sampling(path: Path) -> None:
    """draft: the server samples while the call is answered; the client answers SAMPLED.
    (tools/list first: the SDK client lists tools to check a call's output.)"""

    async def script(session: Session) -> None:
        client = McpClient(session)
        await client.list_tools()
        await client.call_tool("draft", {"topic": "tea"})

    await _record(path, [NOTIFY], script, Responders(sampling=fixed_sampling(SAMPLED)))


async def record_concurrent(path: Path) -> None:
    """Two pauses in flight at once (the slower sent first), then a list."""

    async def script(session: Session) -> None:
        client = McpClient(session)
        async with anyio.create_task_group() as tg:
            tg.start_soon(client.call_tool, "pause", {"seconds": 0.6, "label": "slow"})
            await anyio.sleep(0.05)
            tg.start_soon(client.call_tool, "pause", {"seconds": 0.05, "label": "quick"})
        await client.list_tools()

    await _record(path, [NOTIFY], script)


async def record_demo(path: Path) -> None:
    """The bundled demo: log_burst (notifications/message) and slow_count with progress."""

    async def script(session: Session) -> None:
        client = McpClient(session)
        await client.call_tool("log_burst", {"message": "hi"})
        await client.call_tool("slow_count", {"seconds": 0.3, "steps": 3}, on_progress=_progress)

    await _record(path, DEMO, script)
