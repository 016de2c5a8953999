"""A small stdio MCP server for the bridge's tests: ``python bridge_peer.py``.

Tools: ``big`` (a text result of ``megabytes`` MB), ``crash`` (a stderr line, then exit 3
mid-call), ``pid`` (its process id, to check it is gone after disconnect).
"""

import json
import os
import sys

out = sys.stdout.buffer
TOOLS = [
    {
        "name": name,
        "description": description,
        "inputSchema": {"type": "object", "properties": properties},
    }
    for name, description, properties in (
        ("big", "A huge text result.", {"megabytes": {"type": "integer"}}),
        ("crash", "Exit mid-call.", {}),
        ("pid", "This server's process id.", {}),
    )
]


def send(msg: object) -> None:
    out.write(json.dumps(msg).encode() + b"\n")
    out.flush()


def result(id_: object, text: str) -> None:
    send({"jsonrpc": "2.0", "id": id_, "result": {"content": [{"type": "text", "text": text}]}})


for line in sys.stdin.buffer:
    msg = json.loads(line)
    if "id" not in msg or "method" not in msg:
        continue
    id_, method, params = msg["id"], msg["method"], msg.get("params") or {}
    if method == "initialize":
        send(
            {
                "jsonrpc": "2.0",
                "id": id_,
                "result": {
                    "protocolVersion": params["protocolVersion"],
                    "capabilities": {"tools": {}},
                    "serverInfo": {"name": "bridge-peer", "version": "0"},
                },
            }
        )
    elif method == "tools/list":
        send({"jsonrpc": "2.0", "id": id_, "result": {"tools": TOOLS}})
    elif method == "tools/call" and params.get("name") == "big":
        megabytes = int(params.get("arguments", {}).get("megabytes", 13))
        result(id_, "x" * (megabytes * 1_000_000))
    elif method == "tools/call" and params.get("name") == "crash":
        sys.stderr.write("Traceback (most recent call last):\nRuntimeError: boom\n")
        sys.stderr.flush()
        sys.exit(3)
    elif method == "tools/call" and params.get("name") == "pid":
        result(id_, str(os.getpid()))
    else:
        send({"jsonrpc": "2.0", "id": id_, "error": {"code": -32601, "message": method}})
