"""A stdio server whose tools break their own ``outputSchema``: ``python stdio_bad_output.py``.

Tools (each declares ``{"temp": number}`` as its outputSchema): ``mismatch`` returns
``{"temp": "hot"}``, ``missing`` returns no structuredContent, ``good`` returns
``{"temp": 21}``, ``failing`` returns ``isError: true`` (no structuredContent, not checked).
Every request is logged on stderr with a terminal colour sequence (for ``--stderr``).
A hand-written server: the official SDK's servers check their own output and never
send such results.
"""

import json
import sys

OUT = {"type": "object", "properties": {"temp": {"type": "number"}}, "required": ["temp"]}
RESULTS = {
    "mismatch": {
        "content": [{"type": "text", "text": "hot"}],
        "structuredContent": {"temp": "hot"},
    },
    "missing": {"content": [{"type": "text", "text": "21"}]},
    "good": {"content": [{"type": "text", "text": "21"}], "structuredContent": {"temp": 21}},
    "failing": {"content": [{"type": "text", "text": "no sensor"}], "isError": True},
}
TOOLS = [
    {
        "name": name,
        "inputSchema": {"type": "object", "properties": {}},
        "outputSchema": OUT,
    }
    for name in RESULTS
]


def send(msg: object) -> None:
    sys.stdout.write(json.dumps(msg) + "\n")
    sys.stdout.flush()


for line in sys.stdin:
    msg = json.loads(line)
    if "id" not in msg or "method" not in msg:
        continue
    method = msg["method"]
    sys.stderr.write(f"\x1b[31mbad-output\x1b[0m got {method}\n")
    sys.stderr.flush()
    if method == "initialize":
        result: dict[str, object] = {
            "protocolVersion": msg["params"]["protocolVersion"],
            "capabilities": {"tools": {}},
            "serverInfo": {"name": "bad-output", "version": "0"},
        }
    elif method == "tools/list":
        result = {"tools": TOOLS}
    elif method == "tools/call":
        result = RESULTS[msg["params"]["name"]]
    else:
        send({"jsonrpc": "2.0", "id": msg["id"], "error": {"code": -32601, "message": method}})
        continue
    send({"jsonrpc": "2.0", "id": msg["id"], "result": result})
