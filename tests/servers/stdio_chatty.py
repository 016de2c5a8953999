"""A stdio MCP server that talks when nobody listens: once initialized, it sends ``COUNT``
log notifications of ``SIZE`` kB each (``python stdio_chatty.py COUNT SIZE``), numbered,
before any request asks it anything."""

import json
import sys

COUNT = int(sys.argv[1]) if len(sys.argv) > 1 else 20
SIZE = int(sys.argv[2]) if len(sys.argv) > 2 else 1024
out = sys.stdout.buffer


def send(msg: object) -> None:
    out.write(json.dumps(msg).encode() + b"\n")
    out.flush()


for line in sys.stdin.buffer:
    msg = json.loads(line)
    method = msg.get("method")
    if method == "notifications/initialized":
        for number in range(COUNT):
            data = {"n": number, "pad": "x" * (SIZE * 1024)}
            params = {"level": "info", "data": data}
            send({"jsonrpc": "2.0", "method": "notifications/message", "params": params})
    if "id" not in msg or method is None:
        continue
    if method == "initialize":
        result: object = {
            "protocolVersion": msg["params"]["protocolVersion"],
            "capabilities": {"logging": {}},
            "serverInfo": {"name": "chatty", "version": "0"},
        }
    else:
        result = {}
    send({"jsonrpc": "2.0", "id": msg["id"], "result": result})
