"""An official-SDK server (mcp 2.x, stdio) that samples with tools: a tiny agent loop.

``weather_agent``: createMessage with a ``get_weather`` tool (toolChoice from the call);
if the reply uses the tool, the server runs it and sends a second createMessage carrying
the history (the tool_use and its tool_result, with toolChoice "none"), then returns
both replies as JSON. The SDK itself refuses to send tools unless the client declared
``sampling.tools``: that error is returned as the tool's text.
"""

import json
import warnings
from typing import Any

import mcp_types as types
from mcp.server.mcpserver import Context, MCPServer

warnings.simplefilter("ignore")  # sampling is deprecated in a later spec: not our concern

mcp = MCPServer("sdk-sampling-tools")

WEATHER = types.Tool(
    name="get_weather",
    description="Current weather for a city",
    input_schema={
        "type": "object",
        "properties": {"city": {"type": "string"}, "days": {"type": "integer", "minimum": 1}},
        "required": ["city"],
    },
)


def _dump(result: Any) -> dict[str, Any]:
    dumped: dict[str, Any] = result.model_dump(by_alias=True, exclude_none=True, mode="json")
    return dumped


@mcp.tool()
async def weather_agent(question: str, ctx: Context, choice: str = "auto") -> str:  # type: ignore[type-arg]
    """Ask the client's model, offering get_weather; run it if used and ask again."""
    session = ctx.request_context.session
    first_msg = types.SamplingMessage(
        role="user", content=types.TextContent(type="text", text=question)
    )
    try:
        first = await session.create_message(
            [first_msg], max_tokens=200, tools=[WEATHER], tool_choice=types.ToolChoice(mode=choice)
        )  # type: ignore[arg-type]
    except Exception as exc:
        return json.dumps({"refused": str(exc)})
    blocks = first.content if isinstance(first.content, list) else [first.content]
    uses = [b for b in blocks if isinstance(b, types.ToolUseContent)]
    if not uses:
        return json.dumps({"first": _dump(first)})
    results = [
        types.ToolResultContent(
            type="tool_result",
            tool_use_id=use.id,
            content=[
                types.TextContent(
                    type="text",
                    text=f"Weather in {use.input.get('city')}: 18°C [bold]sunny[/bold]\x1b[31m",
                )
            ],
        )
        for use in uses
    ]
    second = await session.create_message(
        [
            first_msg,
            types.SamplingMessage(role="assistant", content=list(uses)),
            types.SamplingMessage(role="user", content=list(results)),
        ],
        max_tokens=200,
        tools=[WEATHER],
        tool_choice=types.ToolChoice(mode="none"),
    )
    return json.dumps({"first": _dump(first), "second": _dump(second)})


if __name__ == "__main__":
    mcp.run()
