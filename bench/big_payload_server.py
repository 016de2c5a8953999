"""A stdio MCP server that answers with a payload of a given size (for bench/big_result.py).

Plain JSON-RPC over stdin/stdout, no SDK, so the server's own cost stays small and the
same for the TUI and ``--cli``. Tools:

- ``text`` ``{"bytes": N}``: one text block of numbered lorem lines (~N characters);
- ``structured`` ``{"bytes": N}``: ``structuredContent`` of ~N characters (rows of small
  objects) checked against an ``outputSchema``, and a one-line text block.
"""

from __future__ import annotations

import json
import sys
from typing import Any

LOREM = (
    "Lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do eiusmod tempor "
    "incididunt ut labore et dolore magna aliqua."
)
ROW_SCHEMA = {
    "type": "object",
    "properties": {
        "id": {"type": "integer"},
        "name": {"type": "string"},
        "ok": {"type": "boolean"},
        "score": {"type": "number"},
    },
    "required": ["id", "name", "ok"],
}
SIZE_SCHEMA = {
    "type": "object",
    "properties": {"bytes": {"type": "integer", "minimum": 1}},
    "required": ["bytes"],
}
TOOLS = [
    {"name": "text", "description": "A text block of about N bytes.", "inputSchema": SIZE_SCHEMA},
    {
        "name": "structured",
        "description": "structuredContent of about N bytes.",
        "inputSchema": SIZE_SCHEMA,
        "outputSchema": {
            "type": "object",
            "properties": {"rows": {"type": "array", "items": ROW_SCHEMA}},
            "required": ["rows"],
        },
    },
]


def lorem_text(size: int) -> str:
    lines, total, n = [], 0, 0
    while total < size:
        n += 1
        line = f"{n:7d}  {LOREM}"
        lines.append(line)
        total += len(line) + 1
    return "\n".join(lines)


def rows(size: int) -> dict[str, Any]:
    out, total, n = [], 0, 0
    while total < size:
        row = {"id": n, "name": f"row {n} {LOREM[: n % 40]}", "ok": n % 3 != 0, "score": n / 7}
        out.append(row)
        total += len(json.dumps(row)) + 2
        n += 1
    return {"rows": out}


def call(name: str, args: dict[str, Any]) -> dict[str, Any]:
    size = int(args.get("bytes", 1000))
    if name == "text":
        return {"content": [{"type": "text", "text": lorem_text(size)}]}
    data = rows(size)
    text = f"{len(data['rows'])} rows"
    return {"content": [{"type": "text", "text": text}], "structuredContent": data}


def answer(message: dict[str, Any]) -> dict[str, Any] | None:
    method, id_ = message.get("method"), message.get("id")
    if id_ is None:
        return None
    params = message.get("params") or {}
    if method == "initialize":
        result: dict[str, Any] = {
            "protocolVersion": params.get("protocolVersion", "2025-06-18"),
            "capabilities": {"tools": {}},
            "serverInfo": {"name": "big-payload", "version": "1"},
        }
    elif method == "tools/list":
        result = {"tools": TOOLS}
    elif method == "tools/call":
        result = call(str(params.get("name")), params.get("arguments") or {})
    elif method == "ping":
        result = {}
    else:
        return {"jsonrpc": "2.0", "id": id_, "error": {"code": -32601, "message": "no method"}}
    return {"jsonrpc": "2.0", "id": id_, "result": result}


def main() -> None:
    out = sys.stdout.buffer
    for line in sys.stdin.buffer:
        if not line.strip():
            continue
        reply = answer(json.loads(line))
        if reply is not None:
            out.write(json.dumps(reply, separators=(",", ":")).encode() + b"\n")
            out.flush()


if __name__ == "__main__":
    main()
