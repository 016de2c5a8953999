"""A host for the ``attach`` screenshot: runs the demo server through ``mcp-inspect proxy``
(as a host's config would); says ``ready``, makes a few calls on each line it reads and
says ``done``; stays until its stdin closes.

    python screenshots/attach_host.py   (MCP_INSPECT_RUNTIME_DIR says where the socket goes)
"""

from __future__ import annotations

import sys
from pathlib import Path

import anyio

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from inspector.engine.client import McpClient
from inspector.engine.session import Session
from inspector.transports.stdio import StdioTransport

PROXY = ["-m", "inspector", "proxy", "--name", "demo", "--no-record", "--"]


async def main() -> None:
    transport = StdioTransport(sys.executable, [*PROXY, sys.executable, "-m", "inspector.demo"])
    async with Session(transport) as session:
        await session.initialize()
        client = McpClient(session)
        await client.list_tools()
        print("ready", flush=True)
        while await anyio.to_thread.run_sync(sys.stdin.readline):  # until the shot is taken
            await client.call_tool("get_weather", {"city": "Lisbon", "units": "metric"})
            await client.call_tool("add", {"a": 40, "b": 2})
            print("done", flush=True)


anyio.run(main)
