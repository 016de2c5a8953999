"""A stdio server that floods its client with log notifications:
``python stdio_log_flood.py RATE SECONDS``.

A handshake-era server (``server/discover`` is -32601) with the logging capability and
one tool, ``flood``: calling it starts RATE ``notifications/message`` a second for
SECONDS in a thread (written in 10 ms bursts; a last one from logger ``flood-end`` gives
the count sent) and answers at once. ``ping`` and
``tools/list`` are answered all the while; a client must stay responsive meanwhile.
"""

from __future__ import annotations

import json
import sys
import threading
import time

RATE = int(sys.argv[1]) if len(sys.argv) > 1 else 50_000
SECONDS = float(sys.argv[2]) if len(sys.argv) > 2 else 10.0
out = sys.stdout.buffer
lock = threading.Lock()
TOOL = {"name": "flood", "description": "Start the flood.", "inputSchema": {"type": "object"}}


def write(data: bytes) -> None:
    with lock:
        out.write(data)
        out.flush()


def send(message: dict[str, object]) -> None:
    write(json.dumps(message).encode() + b"\n")


def flood() -> None:
    tick = 0.01
    per_tick = max(1, int(RATE * tick))
    sent = 0
    start = time.monotonic()
    while time.monotonic() - start < SECONDS:
        lines = []
        for _ in range(per_tick):
            sent += 1
            params = {"level": "info", "logger": "flood", "data": f"line {sent} of the flood"}
            message = {"jsonrpc": "2.0", "method": "notifications/message", "params": params}
            lines.append(json.dumps(message).encode())
        write(b"\n".join(lines) + b"\n")
        time.sleep(max(0.0, start + (sent / per_tick) * tick - time.monotonic()))
    # the last one says how many came before it (a client that fell behind sees fewer
    # sent than asked: a full pipe slowed the writes down)
    params = {"level": "notice", "logger": "flood-end", "data": {"sent": sent}}
    send({"jsonrpc": "2.0", "method": "notifications/message", "params": params})


for line in sys.stdin.buffer:
    msg = json.loads(line)
    method, id_ = msg.get("method"), msg.get("id")
    if id_ is None or method is None:
        continue
    if method == "initialize":
        result: dict[str, object] = {
            "protocolVersion": msg["params"]["protocolVersion"],
            "capabilities": {"tools": {}, "logging": {}},
            "serverInfo": {"name": "log-flood", "version": "1"},
        }
    elif method == "tools/list":
        result = {"tools": [TOOL]}
    elif method == "tools/call":
        threading.Thread(target=flood, daemon=True).start()
        result = {"content": [{"type": "text", "text": f"flooding {RATE}/s for {SECONDS} s"}]}
    elif method in ("ping", "logging/setLevel"):
        result = {}
    else:
        send({"jsonrpc": "2.0", "id": id_, "error": {"code": -32601, "message": "no such method"}})
        continue
    send({"jsonrpc": "2.0", "id": id_, "result": result})
