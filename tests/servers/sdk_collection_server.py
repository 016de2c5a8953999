"""An official-SDK server (MCPServer, mcp 2.x, stdio) for collections: structured output,
a tool that samples, a tool that elicits, a resource and a prompt."""

import warnings

import mcp_types as types
from mcp.server.mcpserver import Context, MCPServer
from pydantic import BaseModel

warnings.simplefilter("ignore")  # sampling is deprecated in a later spec: not our concern

mcp = MCPServer("sdk-collection-server")


class Sum(BaseModel):
    total: int


class Seat(BaseModel):
    seats: int = 2
    window: bool = False


@mcp.tool()
def add(a: int, b: int) -> Sum:
    """Add two integers (structured output)."""
    return Sum(total=a + b)


@mcp.tool()
async def ask(question: str, ctx: Context) -> str:  # type: ignore[type-arg]
    """Ask the client's model."""
    message = types.SamplingMessage(
        role="user", content=types.TextContent(type="text", text=question)
    )
    reply = await ctx.request_context.session.create_message([message], max_tokens=50)
    content = reply.content
    return f"model said: {getattr(content, 'text', content)}"


@mcp.tool()
async def reserve(ctx: Context) -> str:  # type: ignore[type-arg]
    """Ask the user for seats (elicitation)."""
    answer = await ctx.elicit("How many seats?", Seat)
    if answer.action != "accept":
        return f"no reservation ({answer.action})"
    return f"reserved {answer.data.seats} seats, window={answer.data.window}"


@mcp.resource("sdk://greeting")
def greeting() -> str:
    return "hello from the SDK"


@mcp.prompt()
def review(code: str) -> str:
    return f"Please review: {code}"


if __name__ == "__main__":
    mcp.run()
