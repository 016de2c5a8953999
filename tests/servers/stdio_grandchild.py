"""A stdio MCP server that leaves a child behind: ``python stdio_grandchild.py PIDFILE [MODE]``.

At start it runs ``sleep 3017`` in the background with its own stdout (so the pipe stays
open after the server itself exits) and writes ``SERVER_PID GRANDCHILD_PID`` to PIDFILE.
It answers initialize, tools/list (one tool, ``hang``) and ping; ``hang`` is never
answered. On stdin's end it exits at once, as a well-behaved server does: the
grandchild is what is left to clean up.

MODE ``exit-after-init``: exits right after answering initialize (stdout stays open in
the grandchild). MODE ``ignore-term``: ignores SIGTERM as well (needs SIGKILL).
"""

import json
import os
import signal
import subprocess
import sys

PIDFILE = sys.argv[1]
MODE = sys.argv[2] if len(sys.argv) > 2 else ""
if MODE == "ignore-term":
    signal.signal(signal.SIGTERM, signal.SIG_IGN)

child = subprocess.Popen(["sleep", "3017"])  # inherits stdout: the pipe stays open
with open(PIDFILE + ".tmp", "w") as f:
    f.write(f"{os.getpid()} {child.pid}\n")
os.replace(PIDFILE + ".tmp", PIDFILE)
sys.stderr.write(f"grandchild pid {child.pid}\n")
sys.stderr.flush()
out = sys.stdout.buffer


def send(msg: object) -> None:
    out.write(json.dumps(msg).encode() + b"\n")
    out.flush()


for line in sys.stdin.buffer:
    msg = json.loads(line)
    if "id" not in msg or "method" not in msg:
        continue
    method = msg["method"]
    if method == "initialize":
        result: object = {
            "protocolVersion": msg["params"]["protocolVersion"],
            "capabilities": {"tools": {}},
            "serverInfo": {"name": "grandchild", "version": "0"},
        }
    elif method == "tools/list":
        result = {"tools": [{"name": "hang", "inputSchema": {"type": "object"}}]}
    elif method == "tools/call":
        continue  # never answered
    else:
        result = {}
    send({"jsonrpc": "2.0", "id": msg["id"], "result": result})
    if method == "initialize" and MODE == "exit-after-init":
        os._exit(0)
os._exit(0)
