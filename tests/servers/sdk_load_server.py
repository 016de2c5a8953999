"""An official-SDK (mcp 2.x MCPServer) server for the load tests: known latencies, a tool
that fails one call in ten, one that never answers.

Usage: python sdk_load_server.py [http | TAG]: stdio by default (any other word is a tag
that only marks the process, for a test that looks for it); ``http`` binds 127.0.0.1 on a
free port (Streamable HTTP at /mcp) and prints ``PORT <n>`` once listening.
"""

from __future__ import annotations

import asyncio
import itertools
import socket
import sys

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError

mcp = MCPServer("sdk-load-test-server")
_calls = itertools.count(1)


@mcp.tool()
async def sleep_ms(ms: int) -> str:
    """Answer after ``ms`` milliseconds."""
    await asyncio.sleep(ms / 1000)
    return f"slept {ms} ms"


@mcp.tool()
def flaky() -> str:
    """Fail every tenth call (a tool error), answer the others."""
    if next(_calls) % 10 == 0:
        raise ToolError("every tenth call fails")
    return "fine"


@mcp.tool()
async def hang() -> str:
    """Never answer."""
    await asyncio.sleep(3600)
    return "never"


def main() -> None:
    if sys.argv[1:2] != ["http"]:
        mcp.run()
        return
    import uvicorn

    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", 0))
    sock.listen(128)
    print(f"PORT {sock.getsockname()[1]}", flush=True)
    config = uvicorn.Config(mcp.streamable_http_app(), log_level="warning", lifespan="on")
    asyncio.run(uvicorn.Server(config).serve(sockets=[sock]))


if __name__ == "__main__":
    main()
