"""The peer for bench/oneshot_call.py: the official MCP SDK client doing one tools/call.

Usage: python sdk_oneshot_client.py TOOL JSON_ARGS -- SERVER_COMMAND...
Start the server, initialize, call the tool, print the result, exit cleanly.
"""

import json
import sys

import anyio
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client


async def main() -> None:
    tool, args_json = sys.argv[1], sys.argv[2]
    command = sys.argv[sys.argv.index("--") + 1 :]
    params = StdioServerParameters(command=command[0], args=command[1:])
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        result = await session.call_tool(tool, json.loads(args_json))
        print(result.model_dump_json(by_alias=True, exclude_none=True))


anyio.run(main)
