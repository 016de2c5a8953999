"""An official-SDK (mcp 2.x MCPServer) server over HTTP, for the HTTP transport tests.

Usage: python http_sdk_server.py MODE
MODE: sse (stateful Streamable HTTP, SSE responses), json (JSON responses),
stateless (stateless_http), resumable (SSE with an event store and retry), legacy
(the 2024-11-05 HTTP+SSE transport at /sse). It binds 127.0.0.1 on a free port and
prints ``PORT <n>`` on stdout once listening.
"""

from __future__ import annotations

import asyncio
import itertools
import socket
import sys

import uvicorn
from mcp.server.mcpserver import Context, MCPServer
from mcp.server.streamable_http import EventCallback, EventMessage, EventStore

mcp = MCPServer("sdk-http-test-server")


@mcp.tool()
def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


@mcp.tool()
async def progress_steps(steps: int, ctx: Context) -> str:  # type: ignore[type-arg]
    """Log, then report progress for each step (messages before the response)."""
    await ctx.info(f"starting {steps} steps")
    for i in range(steps):
        await ctx.report_progress(i + 1, steps)
    return f"did {steps} steps"


@mcp.tool()
async def ask_roots(ctx: Context) -> str:  # type: ignore[type-arg]
    """Ask the client for its roots (a server request on the response stream)."""
    result = await ctx.session.list_roots()
    return ",".join(str(r.uri) for r in result.roots)


@mcp.tool()
async def announce(ctx: Context) -> str:  # type: ignore[type-arg]
    """Send tools/list_changed unrelated to the request (it goes to the GET stream)."""
    await ctx.session.send_tool_list_changed()
    return "announced"


@mcp.tool()
async def interrupted(ctx: Context) -> str:  # type: ignore[type-arg]
    """Close this request's SSE stream midway; the rest arrives on resumption."""
    await ctx.info("before the break")
    await ctx.close_sse_stream()
    await asyncio.sleep(0.3)
    await ctx.info("after the break")
    return "resumed fine"


class MemoryEventStore(EventStore):
    """Keeps every event; replays those after an id on the same stream."""

    def __init__(self) -> None:
        self.events: list[tuple[str, str, object]] = []
        self._ids = itertools.count(1)

    async def store_event(self, stream_id, message):  # type: ignore[no-untyped-def]
        event_id = f"{stream_id}-{next(self._ids)}"
        self.events.append((event_id, stream_id, message))
        return event_id

    async def replay_events_after(
        self, last_event_id: str, send_callback: EventCallback
    ) -> str | None:
        index = next((i for i, e in enumerate(self.events) if e[0] == last_event_id), None)
        if index is None:
            return None
        stream_id = self.events[index][1]
        for event_id, sid, message in self.events[index + 1 :]:
            if sid == stream_id and message is not None:
                await send_callback(EventMessage(message, event_id))  # type: ignore[arg-type]
        return stream_id


def main() -> None:
    mode = sys.argv[1] if len(sys.argv) > 1 else "sse"
    if mode == "legacy":
        app = mcp.sse_app()
    elif mode == "json":
        app = mcp.streamable_http_app(json_response=True)
    elif mode == "stateless":
        app = mcp.streamable_http_app(stateless_http=True)
    elif mode == "resumable":
        app = mcp.streamable_http_app(event_store=MemoryEventStore(), retry_interval=200)
    else:
        app = mcp.streamable_http_app()
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    # accepted sockets inherit it: no Nagle stall between the SSE headers and first event
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    sock.bind(("127.0.0.1", 0))
    sock.listen(128)  # connections queue from now on, before uvicorn takes over
    print(f"PORT {sock.getsockname()[1]}", flush=True)
    config = uvicorn.Config(app, log_level="warning", lifespan="on")
    asyncio.run(uvicorn.Server(config).serve(sockets=[sock]))


if __name__ == "__main__":
    main()
