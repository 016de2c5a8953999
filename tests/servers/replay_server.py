"""An official-SDK server for replay tests; ``--variant changed`` changes some answers."""

import sys

from mcp.server.mcpserver import Context, MCPServer
from pydantic import BaseModel

CHANGED = "--variant" in sys.argv and sys.argv[sys.argv.index("--variant") + 1] == "changed"

mcp = MCPServer("replay-test-server")


@mcp.tool()
def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b + (1 if CHANGED else 0)


@mcp.tool()
def echo(text: str) -> str:
    """Echo the text back."""
    return text


@mcp.tool()
async def steps(count: int, ctx: Context) -> str:  # type: ignore[type-arg]
    """Report progress for each step."""
    for i in range(count):
        await ctx.report_progress(i + 1, count)
    return f"did {count} steps"


class Name(BaseModel):
    name: str = "world"


@mcp.tool()
async def ask(ctx: Context) -> str:  # type: ignore[type-arg]
    """Ask the client for a name (an elicitation request)."""
    prompt = "Your name, please?" if CHANGED else "What is your name?"
    answer = await ctx.elicit(prompt, Name)
    if answer.action == "accept":
        return f"hi {answer.data.name}"
    return f"no name ({answer.action})"


if not CHANGED:

    @mcp.tool()
    def only_in_default() -> str:
        """A tool the changed variant does not have."""
        return "here"


@mcp.resource("replay://greeting")
def greeting() -> str:
    return "hello, changed" if CHANGED else "hello"


@mcp.prompt()
def review(code: str) -> str:
    return f"Please review: {code}"


if __name__ == "__main__":
    mcp.run()
