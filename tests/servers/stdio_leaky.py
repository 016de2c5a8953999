"""A stdio MCP server that leaks its secrets on purpose: ``python stdio_leaky.py NAME...``.

Each environment variable NAME (given with ``-e NAME=VALUE``) is echoed back in every
shape a frame can take: a stderr line that is not UTF-8 (stored as ``raw_b64``), a
stdout line that is neither JSON nor UTF-8, a UTF-8 stderr line, a log notification, a
tool result, and JSON-escaped inside a string. Serves one tool, ``leak``.
"""

import json
import os
import sys

NAMES = sys.argv[1:] or ["TOKEN"]
out = sys.stdout.buffer
err = sys.stderr.buffer


def send(msg: object) -> None:
    out.write(json.dumps(msg).encode() + b"\n")
    out.flush()


def pairs() -> str:
    return " ".join(f"{name}={os.environ.get(name, '')}" for name in NAMES)


err.write(b"\xff\xfe starting with " + pairs().encode() + b"\n")
err.write(("plain stderr " + pairs() + "\n").encode())
err.flush()

for line in sys.stdin.buffer:
    msg = json.loads(line)
    if "id" not in msg or "method" not in msg:
        continue
    id_, method = msg["id"], msg["method"]
    if method == "initialize":
        result: object = {
            "protocolVersion": msg["params"]["protocolVersion"],
            "capabilities": {"tools": {}, "logging": {}},
            "serverInfo": {"name": "leaky", "version": "0"},
        }
    elif method == "tools/list":
        result = {"tools": [{"name": "leak", "inputSchema": {"type": "object"}}]}
    elif method == "tools/call":
        out.write(b"\x80 not json, not utf-8: " + pairs().encode() + b"\n")
        send(
            {
                "jsonrpc": "2.0",
                "method": "notifications/message",
                "params": {"level": "info", "data": "log " + pairs()},
            }
        )
        # ensure_ascii with a non-ASCII neighbour: the value is JSON-escaped in a string
        text = json.dumps({"é": pairs()}, ensure_ascii=True)
        result = {"content": [{"type": "text", "text": text}, {"type": "text", "text": pairs()}]}
    else:
        result = {}
    send({"jsonrpc": "2.0", "id": id_, "result": result})
