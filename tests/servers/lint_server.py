"""A server (official MCP SDK, low-level ``Server``, stdio) whose catalog breaks each lint
rule once: one tool (or list) per rule, named after it, and a clean tool.

``unstructured`` declares an outputSchema and answers without structuredContent; the
prompts list fails. The SDK refuses to serve a schema that is not an object schema:
``stdio_bad_schemas.py`` does; the protocol rule is exercised by
``stdio_misbehave.py unknown-id``.
"""

from __future__ import annotations

import asyncio
from typing import Any

import mcp_types as types
from mcp.server.context import ServerRequestContext
from mcp.server.lowlevel.server import Server
from mcp.server.stdio import stdio_server
from mcp.shared.exceptions import MCPError

EMPTY: dict[str, Any] = {"type": "object", "properties": {}}
OBJECT_OUT: dict[str, Any] = {"type": "object", "properties": {"n": {"type": "integer"}}}


def tool(name: str, description: str | None = "Does one thing.", **fields: Any) -> dict[str, Any]:
    return {"name": name, "description": description, "inputSchema": EMPTY, **fields}


# rule id -> the tool that breaks it (the test reads this table)
TOOLS: dict[str, list[dict[str, Any]]] = {
    "clean": [
        tool(
            "clean",
            inputSchema={
                "type": "object",
                "properties": {"q": {"type": "string"}, "mode": {"anyOf": [{"type": "string"}]}},
                "required": ["q"],
            },
            outputSchema=OBJECT_OUT,
        )
    ],
    "name-characters": [tool("bad name/with spaces")],
    "name-length": [tool("n" * 129)],
    "name-long": [tool("l" * 70)],
    "description-missing": [tool("undocumented", description=None)],
    "description-huge": [tool("verbose", description="Explains at length. " * 80)],
    "duplicate-name": [tool("twin"), tool("twin")],
    "ref-unresolved": [
        tool(
            "dangling",
            inputSchema={"type": "object", "properties": {"x": {"$ref": "#/$defs/Missing"}}},
        )
    ],
    "keyword-dropped": [
        tool(
            "conditional",
            inputSchema={
                "type": "object",
                "properties": {"x": {"allOf": [{"type": "string"}, {"minLength": 2}]}},
            },
        )
    ],
    "ref-used": [
        tool(
            "referenced",
            inputSchema={
                "type": "object",
                "$defs": {"Unit": {"type": "string", "enum": ["m", "ft"]}},
                "properties": {"unit": {"$ref": "#/$defs/Unit"}},
            },
        )
    ],
    "required-unknown": [
        tool("loose", inputSchema={"type": "object", "properties": {}, "required": ["ghost"]})
    ],
    "output-without-structured": [tool("unstructured", outputSchema=OBJECT_OUT)],
}


async def list_tools(
    ctx: ServerRequestContext[Any], params: types.PaginatedRequestParams | None
) -> types.ListToolsResult:
    return types.ListToolsResult(tools=[types.Tool(**t) for ts in TOOLS.values() for t in ts])


async def call_tool(
    ctx: ServerRequestContext[Any], params: types.CallToolRequestParams
) -> types.CallToolResult:
    text = types.TextContent(type="text", text="7")
    if params.name == "clean":
        return types.CallToolResult(content=[text], structuredContent={"n": 7})
    return types.CallToolResult(content=[text])


async def list_prompts(
    ctx: ServerRequestContext[Any], params: types.PaginatedRequestParams | None
) -> types.ListPromptsResult:
    raise MCPError(-32603, "prompts are down")  # list-failed


server = Server(
    "lint-test-server",
    version="1.0.0",
    on_list_tools=list_tools,
    on_call_tool=call_tool,
    on_list_prompts=list_prompts,
)


async def main() -> None:
    async with stdio_server() as (read, write):
        await server.run(read, write, server.create_initialization_options())


if __name__ == "__main__":
    asyncio.run(main())
