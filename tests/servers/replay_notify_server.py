"""An official-SDK server whose tools log, report progress and sample, for replay tests of
notifications and server requests. ``--variant changed``: ``work`` reports other progress
numbers (values only), ``chatty`` logs one message fewer (a different method sequence),
``draft`` asks with other words."""

import sys
import time
import warnings

import anyio
from mcp.server.mcpserver import Context, MCPServer
from mcp.types import SamplingMessage, TextContent

# the SDK warns that logging is deprecated on newer protocols; stderr stays quiet
warnings.filterwarnings("ignore")

CHANGED = "--variant" in sys.argv and sys.argv[sys.argv.index("--variant") + 1] == "changed"

mcp = MCPServer("replay-notify-server")


@mcp.tool()
async def work(count: int, ctx: Context) -> str:  # type: ignore[type-arg]
    """Log a start, report progress per step, log the end with a timestamp."""
    await ctx.info("work starting")
    for i in range(count):
        await ctx.report_progress((i + 1) * (10 if CHANGED else 1), count)
    await ctx.info({"done": True, "at": time.time()})
    return f"worked {count}"


@mcp.tool()
async def chatty(ctx: Context) -> str:  # type: ignore[type-arg]
    """Two log messages, or one in the changed variant."""
    await ctx.info("first")
    if not CHANGED:
        await ctx.warning("second")
    return "talked"


@mcp.tool()
async def draft(topic: str, ctx: Context) -> str:  # type: ignore[type-arg]
    """Ask the client's model for a line about the topic (sampling/createMessage)."""
    words = f"Write one line about {topic}." if not CHANGED else f"One line on {topic}?"
    answer = await ctx.session.create_message(
        [SamplingMessage(role="user", content=TextContent(type="text", text=words))], max_tokens=50
    )
    content = answer.content
    text = content.text if isinstance(content, TextContent) else str(content)
    return f"draft: {text}"


@mcp.tool()
async def pause(seconds: float, label: str) -> str:
    """Sleep, then answer with the label (concurrent calls finish out of order)."""
    await anyio.sleep(seconds)
    return f"{label} after {seconds}"


if __name__ == "__main__":
    mcp.run()
