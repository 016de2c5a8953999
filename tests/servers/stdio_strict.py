"""A strict handshake-era stdio server that ends on a method it does not know:
``python stdio_strict.py [exit|close] [COUNT_FILE]``.

``exit`` (the default) writes a line on stderr and exits with code 3 when a request
names a method other than initialize, ping, tools/list and tools/call (the era probe,
``server/discover``, is one); ``close`` closes its stdout instead and lingers, as a
server whose reader thread died does. With COUNT_FILE each start appends a line there, so a
test can count how many times it was started. Tool: ``add(a, b)``.
"""

from __future__ import annotations

import json
import os
import sys
import time

MODE = sys.argv[1] if len(sys.argv) > 1 else "exit"
if len(sys.argv) > 2:
    with open(sys.argv[2], "a") as starts:
        starts.write("started\n")

TOOL = {
    "name": "add",
    "description": "Add two integers.",
    "inputSchema": {
        "type": "object",
        "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}},
        "required": ["a", "b"],
    },
}


def send(message: dict[str, object]) -> None:
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


def answer(msg: dict[str, object]) -> dict[str, object]:
    method = msg["method"]
    if method == "initialize":
        params = msg.get("params") or {}
        version = params.get("protocolVersion") if isinstance(params, dict) else None
        return {
            "protocolVersion": version or "2025-11-25",
            "capabilities": {"tools": {}},
            "serverInfo": {"name": "strict", "version": "1.0"},
        }
    if method == "ping":
        return {}
    if method == "tools/list":
        return {"tools": [TOOL]}
    args = (msg.get("params") or {}).get("arguments") or {}  # type: ignore[union-attr]
    total = int(args.get("a", 0)) + int(args.get("b", 0))
    return {"content": [{"type": "text", "text": str(total)}]}


for line in sys.stdin:
    msg = json.loads(line)
    if "method" not in msg or "id" not in msg:
        continue  # notifications and responses
    if msg["method"] not in ("initialize", "ping", "tools/list", "tools/call"):
        sys.stderr.write(f"strict: unknown method {msg['method']}: quitting\n")
        sys.stderr.flush()
        if MODE == "close":
            os.close(1)
            time.sleep(30)
        sys.exit(3)
    send({"jsonrpc": "2.0", "id": msg["id"], "result": answer(msg)})
