"""A server written with the official MCP Python SDK (MCPServer, mcp 2.x), over stdio."""

from mcp.server.mcpserver import Context, MCPServer

mcp = MCPServer("sdk-test-server")


@mcp.tool()
def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


@mcp.tool()
async def progress_steps(steps: int, ctx: Context) -> str:  # type: ignore[type-arg]
    """Report progress for each step."""
    for i in range(steps):
        await ctx.report_progress(i + 1, steps)
    return f"did {steps} steps"


@mcp.resource("sdk://greeting")
def greeting() -> str:
    return "hello from the SDK"


@mcp.prompt()
def review(code: str) -> str:
    return f"Please review: {code}"


if __name__ == "__main__":
    mcp.run()
