"""Two versions of one server (official MCP SDK, low-level ``Server``) for ``diff`` and
``replay --against``: NEW differs from OLD by one case of each classification rule.

Usage: python diff_server.py old|new [http]
stdio by default; ``http`` serves Streamable HTTP on 127.0.0.1, a free port, printed as
``PORT <n>``. Lists are paginated two items a page (cursors are offsets), so a tool
removed on page 1 shifts every later page.
"""

from __future__ import annotations

import asyncio
import copy
import socket
import sys
from typing import Any

import mcp_types as types
from mcp.server.context import ServerRequestContext
from mcp.server.lowlevel.server import Server
from mcp.shared.exceptions import MCPError

PAGE = 2


def _obj(properties: dict[str, Any], required: list[str]) -> dict[str, Any]:
    return {"type": "object", "properties": properties, "required": required}


OLD_TOOLS: list[dict[str, Any]] = [
    {
        "name": "search",
        "description": "Search the notes.",
        "inputSchema": _obj(
            {
                "q": {"type": "string", "minLength": 1},
                "mode": {"type": "string", "enum": ["fast", "exact", "fuzzy"]},
            },
            ["q"],
        ),
    },
    {"name": "legacy", "description": "The old way.", "inputSchema": _obj({}, [])},
    {
        "name": "fetch",
        "description": "Fetch a URL.",
        "inputSchema": _obj(
            {
                "url": {"type": "string"},
                "timeout": {"type": "number"},
                "retries": {"type": "integer"},
            },
            ["url"],
        ),
    },
    {
        "name": "convert",
        "description": "Convert a length.",
        "inputSchema": _obj(
            {"value": {"type": "number"}, "unit": {"type": "string", "enum": ["m", "ft"]}},
            ["value", "unit"],
        ),
    },
    {
        "name": "report",
        "description": "A report with structured content.",
        "inputSchema": _obj({}, []),
        "outputSchema": _obj(
            {
                "total": {"type": "integer"},
                "items": {"type": "array", "items": {"type": "string"}},
                "note": {"type": "string"},
            },
            ["total", "items", "note"],
        ),
    },
    {"name": "ping", "description": "Ping.", "inputSchema": _obj({}, [])},
]


def new_tools() -> list[dict[str, Any]]:
    """OLD with one change of each kind (the comment names the rule)."""
    tools = {t["name"]: copy.deepcopy(t) for t in OLD_TOOLS}
    del tools["legacy"]  # item-removed
    search = tools["search"]["inputSchema"]
    search["properties"]["lang"] = {"type": "string"}  # required-added
    search["required"].append("lang")
    search["properties"]["offset"] = {"type": "integer"}  # optional-added
    search["properties"]["mode"]["enum"].remove("fuzzy")  # enum-removed
    search["properties"]["q"]["maxLength"] = 200  # schema-changed
    fetch = tools["fetch"]["inputSchema"]
    del fetch["properties"]["timeout"]  # property-removed
    fetch["properties"]["retries"]["type"] = "number"  # type-widened
    convert = tools["convert"]["inputSchema"]
    convert["properties"]["value"]["type"] = "integer"  # type-narrowed
    convert["required"].remove("unit")  # required-dropped
    convert["properties"]["unit"]["enum"].append("km")  # enum-added
    output = tools["report"]["outputSchema"]
    del output["properties"]["note"]  # output-removed
    output["required"].remove("note")
    output["properties"]["total"]["type"] = "string"  # output-retyped
    output["required"].remove("items")  # output-optional
    output["properties"]["pages"] = {"type": "integer"}  # output-added
    tools["ping"]["description"] = "Ping the server."  # text-changed
    tools["summarize"] = {  # item-added
        "name": "summarize",
        "description": "Summarize a note.",
        "inputSchema": _obj({"id": {"type": "string"}}, ["id"]),
    }
    return list(tools.values())


OLD_RESOURCES = [
    {"uri": "notes://all", "name": "all", "description": "Every note", "mimeType": "text/plain"},
]
NEW_RESOURCES = [{**OLD_RESOURCES[0], "mimeType": "text/markdown"}]  # field-changed
TEMPLATES = [{"uriTemplate": "notes://{id}", "name": "note", "mimeType": "text/plain"}]
OLD_PROMPTS = [
    {"name": "greet", "description": "Greet someone.", "arguments": [{"name": "who"}]},
    {"name": "review", "description": "Review a text.", "arguments": []},
]
NEW_PROMPTS = list(reversed(OLD_PROMPTS))  # order-changed


def _page(
    items: list[dict[str, Any]], params: types.PaginatedRequestParams | None
) -> tuple[list[dict[str, Any]], str | None]:
    start = int(params.cursor) if params is not None and params.cursor else 0
    end = start + PAGE
    return items[start:end], (str(end) if end < len(items) else None)


def build(variant: str) -> Server[Any]:
    new = variant == "new"
    tools = new_tools() if new else OLD_TOOLS
    resources = NEW_RESOURCES if new else OLD_RESOURCES
    prompts = NEW_PROMPTS if new else OLD_PROMPTS

    async def list_tools(
        ctx: ServerRequestContext[Any], params: types.PaginatedRequestParams | None
    ) -> types.ListToolsResult:
        page, cursor = _page(tools, params)
        return types.ListToolsResult(tools=[types.Tool(**t) for t in page], nextCursor=cursor)

    async def call_tool(
        ctx: ServerRequestContext[Any], params: types.CallToolRequestParams
    ) -> types.CallToolResult:
        return types.CallToolResult(content=[types.TextContent(type="text", text=params.name)])

    async def list_resources(
        ctx: ServerRequestContext[Any], params: types.PaginatedRequestParams | None
    ) -> types.ListResourcesResult:
        return types.ListResourcesResult(resources=[types.Resource(**r) for r in resources])

    async def list_templates(
        ctx: ServerRequestContext[Any], params: types.PaginatedRequestParams | None
    ) -> types.ListResourceTemplatesResult:
        if new:  # list-failed
            raise MCPError(-32603, "templates are down")
        return types.ListResourceTemplatesResult(
            resourceTemplates=[types.ResourceTemplate(**t) for t in TEMPLATES]
        )

    async def list_prompts(
        ctx: ServerRequestContext[Any], params: types.PaginatedRequestParams | None
    ) -> types.ListPromptsResult:
        page, cursor = _page(prompts, params)
        return types.ListPromptsResult(prompts=[types.Prompt(**p) for p in page], nextCursor=cursor)

    async def set_level(
        ctx: ServerRequestContext[Any], params: types.SetLevelRequestParams
    ) -> types.EmptyResult:
        return types.EmptyResult()

    async def complete(
        ctx: ServerRequestContext[Any], params: types.CompleteRequestParams
    ) -> types.CompleteResult:
        return types.CompleteResult(completion=types.Completion(values=[]))

    handlers: dict[str, Any] = {
        "on_list_tools": list_tools,
        "on_call_tool": call_tool,
        "on_list_resources": list_resources,
        "on_list_resource_templates": list_templates,
        "on_list_prompts": list_prompts,
    }
    if new:
        handlers["on_completion"] = complete  # capability-added
    else:
        handlers["on_set_logging_level"] = set_level  # capability-dropped in NEW
    # server-info-changed: the version
    return Server("diff-test-server", version="2.0.0" if new else "1.0.0", **handlers)


async def serve_stdio(server: Server[Any]) -> None:
    from mcp.server.stdio import stdio_server

    async with stdio_server() as (read, write):
        await server.run(read, write, server.create_initialization_options())


def serve_http(server: Server[Any]) -> None:
    import uvicorn

    app = server.streamable_http_app()
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", 0))
    sock.listen(128)
    print(f"PORT {sock.getsockname()[1]}", flush=True)
    config = uvicorn.Config(app, log_level="warning", lifespan="on")
    asyncio.run(uvicorn.Server(config).serve(sockets=[sock]))


if __name__ == "__main__":
    variant, *rest = (sys.argv[1:] or ["old"])[0].split(":") + sys.argv[2:]
    if rest and rest[0] == "http":
        serve_http(build(variant))
    else:
        asyncio.run(serve_stdio(build(variant)))
