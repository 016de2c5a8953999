"""An official-SDK stdio server that prints to stdout (a common bug, which the SDK's stdio
client tolerates): a banner and a blank line before it serves, and a line in a tool."""

import sys

from mcp.server.mcpserver import MCPServer

mcp = MCPServer("banner-server")


@mcp.tool()
def add(a: int, b: int) -> int:
    """Add two integers (and say so on stdout, as a debugging print would)."""
    print(f"adding {a} and {b}", flush=True)
    return a + b


if __name__ == "__main__":
    sys.stdout.write("Banner Server v1.0 ready on stdio\n\n")
    sys.stdout.flush()
    mcp.run()
