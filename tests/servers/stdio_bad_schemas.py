"""A stdio server that lists tools whose schemas are not object schemas (the official
SDK refuses to serve them): ``scalar_input`` (inputSchema type string) and
``list_output`` (outputSchema type array). Anything else is method not found."""

import json
import sys

TOOLS = [
    {"name": "scalar_input", "description": "Takes a string.", "inputSchema": {"type": "string"}},
    {
        "name": "list_output",
        "description": "Returns a list.",
        "inputSchema": {"type": "object", "properties": {}},
        "outputSchema": {"type": "array", "items": {"type": "string"}},
    },
]

for line in sys.stdin:
    msg = json.loads(line)
    if "id" not in msg:
        continue
    if msg.get("method") == "initialize":
        result = {
            "protocolVersion": msg["params"]["protocolVersion"],
            "capabilities": {"tools": {}},
            "serverInfo": {"name": "bad-schemas", "version": "0"},
        }
    elif msg.get("method") == "tools/list":
        result = {"tools": TOOLS}
    else:  # server/discover too: a 2025 server
        error = {"code": -32601, "message": "Method not found"}
        sys.stdout.write(json.dumps({"jsonrpc": "2.0", "id": msg["id"], "error": error}) + "\n")
        sys.stdout.flush()
        continue
    sys.stdout.write(json.dumps({"jsonrpc": "2.0", "id": msg["id"], "result": result}) + "\n")
    sys.stdout.flush()
