"""A server with 300 tools (official MCP Python SDK, stdio): for the catalog's filter.

Names are made of three words of ``WORDS`` and a number (``get-weather-report-17``);
descriptions are 10 to 100 words, and tool 0 (``long-description``) has one much longer
than any catalog row shows.
"""

import random
from typing import Any

from mcp.server.mcpserver import MCPServer

_WORDS = (
    "get set list create delete update read write fetch search query weather user file "
    "resource prompt message sample image audio text stream index cache token session "
    "server client progress task notify subscribe echo sum annotate structured content "
    "schema validate compress archive render report export import sync status"
)
COUNT = 300
LONG = "Reads the whole archive. " * 40 + "The end is here."

mcp = MCPServer("many-tools")


def _tool(n: int) -> Any:
    def tool(text: str = "") -> str:
        return f"tool {n}: {text}"

    return tool


def tool_specs(count: int = COUNT) -> list[dict[str, str]]:
    """name, title and description of each tool (the bench uses them too)."""
    words = _WORDS.split()
    rnd = random.Random(7)
    specs = [{"name": "long-description", "title": "Long Description", "description": LONG}]
    for n in range(1, count):
        picked = rnd.sample(words, 3)
        description = " ".join(rnd.choice(words) for _ in range(rnd.randint(10, 100)))
        specs.append(
            {
                "name": "-".join(picked) + f"-{n}",
                "title": " ".join(w.capitalize() for w in picked),
                "description": description.capitalize() + ".",
            }
        )
    return specs


def register() -> None:
    for n, spec in enumerate(tool_specs()):
        mcp.add_tool(_tool(n), **spec)


register()

if __name__ == "__main__":
    mcp.run()
