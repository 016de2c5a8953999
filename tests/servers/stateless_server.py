"""An official-SDK (mcp 2.x MCPServer) server for the 2026-07-28 stateless era.

Usage: python stateless_server.py [stdio|http|http-json]
The SDK serves both eras: a first request carrying the 2026-07-28 ``_meta`` envelope
opens a stateless connection (stdio), and a POST whose ``MCP-Protocol-Version`` header
names 2026-07-28 is served as one self-contained exchange (HTTP). Over HTTP it binds
127.0.0.1 on a free port and prints ``PORT <n>`` once listening.

Tools: ``add``; ``slow``; ``roots`` and ``think`` (MRTR roots/list and sampling);
``where`` (x-mcp-header); ``chatty`` (logs at info); ``greet``, which asks the user's name
through a multi-round-trip elicitation (an ``input_required`` result, then the retry with
``inputResponses``); ``grow`` and ``touch``, which announce a new tool and an updated
``note://greeting`` on ``subscriptions/listen`` streams.
"""

from __future__ import annotations

import asyncio
import socket
import sys
from typing import Annotated

from mcp.server.mcpserver import Context, Elicit, ListRoots, MCPServer, Resolve, Sample
from mcp_types import CreateMessageResult, ListRootsResult, SamplingMessage, TextContent
from pydantic import BaseModel, Field

mcp = MCPServer("sdk-stateless-server", instructions="a stateless test server")
NOTE = {"text": "hello"}


class Name(BaseModel):
    name: str


def ask_name() -> Elicit[Name]:
    return Elicit("What is your name?", Name)


@mcp.tool()
def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


@mcp.tool()
async def slow(seconds: float) -> str:
    """Sleep, then answer (for timeouts and cancellation)."""
    await asyncio.sleep(seconds)
    return "slept"


def ask_roots() -> ListRoots:
    return ListRoots()


@mcp.tool()
def roots(found: Annotated[ListRootsResult, Resolve(ask_roots)]) -> str:
    """The client's roots, asked for through a multi-round-trip roots/list."""
    return ",".join(str(root.uri) for root in found.roots)


def ask_model() -> Sample:
    question = SamplingMessage(role="user", content=TextContent(type="text", text="2+2?"))
    return Sample([question], max_tokens=10)


@mcp.tool()
def think(answer: Annotated[CreateMessageResult, Resolve(ask_model)]) -> str:
    """What the client's model said to 2+2 (a multi-round-trip sampling request)."""
    content = answer.content
    return content.text if isinstance(content, TextContent) else "?"


@mcp.tool()
def greet(who: Annotated[Name, Resolve(ask_name)]) -> str:
    """Greet the user by the name they give when asked."""
    return f"hello, {who.name}"


@mcp.tool()
def where(
    region: Annotated[str, Field(json_schema_extra={"x-mcp-header": "Region"})],
    limit: Annotated[int, Field(json_schema_extra={"x-mcp-header": "Limit"})] = 10,
) -> str:
    """Echo the region (mirrored into the Mcp-Param-Region header over HTTP)."""
    return f"{region} (limit {limit})"


@mcp.tool()
async def chatty(ctx: Context) -> str:  # type: ignore[type-arg]
    """Log one info message, then answer (sent only if the request asks for logs)."""
    await ctx.info("chatty says hi")
    return "said hi"


@mcp.tool()
async def grow(name: str, ctx: Context) -> str:  # type: ignore[type-arg]
    """Add a tool called ``name`` and announce it (on subscriptions/listen streams)."""
    mcp.add_tool(lambda: name, name=name, description="added at run time")
    await ctx.notify_tools_changed()
    return f"added {name}"


@mcp.resource("note://greeting")
def greeting() -> str:
    """A note that ``touch`` rewrites."""
    return NOTE["text"]


@mcp.tool()
async def touch(text: str, ctx: Context) -> str:  # type: ignore[type-arg]
    """Rewrite note://greeting and announce the update to its subscribers."""
    NOTE["text"] = text
    await ctx.notify_resource_updated("note://greeting")
    return "touched"


def main() -> None:
    mode = sys.argv[1] if len(sys.argv) > 1 else "stdio"
    if mode == "stdio":
        mcp.run("stdio")
        return
    import uvicorn

    app = mcp.streamable_http_app(json_response=mode == "http-json")
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    sock.bind(("127.0.0.1", 0))
    sock.listen(128)  # connections queue from now on, before uvicorn takes over
    print(f"PORT {sock.getsockname()[1]}", flush=True)
    config = uvicorn.Config(app, log_level="warning", lifespan="on")
    asyncio.run(uvicorn.Server(config).serve(sockets=[sock]))


if __name__ == "__main__":
    main()
