"""The server the official Inspector CLI's documented examples talk to, written with the
official SDK (MCPServer): its tools are the ones those examples call.

    python sdk_cli_examples.py [ANY FLAGS]   stdio (the flags are kept: the ``argv`` tool)
    python sdk_cli_examples.py http|sse      Streamable HTTP at /mcp (http) or legacy
                                             HTTP+SSE at /sse (sse) on 127.0.0.1;
                                             prints ``PORT <n>`` once listening

Every HTTP request's ``X-API-Key`` header is remembered: the ``seen_api_key`` tool says it.
"""

from __future__ import annotations

import asyncio
import json
import socket
import sys
from typing import Any

from mcp.server.mcpserver import Context, MCPServer
from pydantic import BaseModel

mcp = MCPServer("cli-examples")
SEEN: dict[str, str] = {}


class Temperature(BaseModel):
    city: str
    unit: str
    temp: float


@mcp.tool()
def mytool(key: str = "", another: str = "", options: dict[str, Any] | None = None) -> str:
    """Echo the arguments back as JSON."""
    return json.dumps({"key": key, "another": another, "options": options}, sort_keys=True)


@mcp.tool()
def remotetool(param: str) -> str:
    """Echo one parameter."""
    return f"param={param}"


@mcp.tool()
def get_temp(city: str, units: str) -> Temperature:
    """A made-up temperature, as structured content."""
    return Temperature(city=city, unit=units, temp=21.0 if units == "C" else 70.0)


@mcp.tool()
def argv() -> list[str]:
    """The flags this server was started with."""
    return sys.argv[1:]


@mcp.tool()
def seen_api_key(ctx: Context) -> str:  # type: ignore[type-arg]
    """The X-API-Key header of the last HTTP request (empty over stdio)."""
    return SEEN.get("x-api-key", "")


@mcp.resource("examples://readme")
def readme() -> str:
    return "the examples server"


@mcp.prompt()
def greet(name: str) -> str:
    return f"Hello, {name}!"


def serve_http(mode: str) -> None:
    import uvicorn

    inner = mcp.sse_app() if mode == "sse" else mcp.streamable_http_app()

    async def app(scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] == "http":
            for name, value in scope.get("headers", []):
                if name == b"x-api-key":
                    SEEN["x-api-key"] = value.decode()
        await inner(scope, receive, send)

    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", 0))
    sock.listen(128)
    print(f"PORT {sock.getsockname()[1]}", flush=True)
    config = uvicorn.Config(app, log_level="warning", lifespan="on")
    asyncio.run(uvicorn.Server(config).serve(sockets=[sock]))


if __name__ == "__main__":
    if sys.argv[1:2] in (["http"], ["sse"]):
        serve_http(sys.argv[1])
    else:
        mcp.run()
