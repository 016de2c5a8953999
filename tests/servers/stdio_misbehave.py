"""A stdio server that misbehaves on purpose: ``python stdio_misbehave.py MODE``.

Modes: garbage (non-JSON and invalid UTF-8 lines around a good answer), huge (a 5 MB
result), crash (exit 3 mid-request after a stderr line), hang (never answers),
unknown-id (answers with the wrong id, then the right one), flood (10,000
notifications, then the answer), exit-now (exit 2 at once), spawn-child (starts a
grandchild that would outlive us if the group were not killed; prints its pid),
ignore-stdin-close (keeps running after stdin closes: needs SIGTERM), ignore-term
(ignores SIGTERM too: needs SIGKILL), silent (never answers, not even initialize).
"""

import json
import signal
import subprocess
import sys
import time

MODE = sys.argv[1] if len(sys.argv) > 1 else "garbage"
out = sys.stdout.buffer


def send(msg: object) -> None:
    out.write(json.dumps(msg).encode() + b"\n")
    out.flush()


def log(text: str) -> None:
    sys.stderr.write(text + "\n")
    sys.stderr.flush()


if MODE == "exit-now":
    log("fatal: missing API_KEY environment variable")
    sys.exit(2)
if MODE == "silent":
    for _ in sys.stdin.buffer:
        pass
    sys.exit(0)
if MODE == "ignore-term":
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
if MODE == "spawn-child":
    child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    log(f"child pid {child.pid}")

for line in sys.stdin.buffer:
    msg = json.loads(line)
    if "id" not in msg or "method" not in msg:
        continue
    id_ = msg["id"]
    if msg["method"] == "initialize":
        send(
            {
                "jsonrpc": "2.0",
                "id": id_,
                "result": {
                    "protocolVersion": msg["params"]["protocolVersion"],
                    "capabilities": {"tools": {}},
                    "serverInfo": {"name": f"misbehave-{MODE}", "version": "0"},
                },
            }
        )
        continue
    if MODE == "garbage":
        out.write(b"Server starting... not JSON\n")
        out.write(b"\xff\xfe broken utf-8 \xc3\n")
        out.flush()
        send({"jsonrpc": "2.0", "id": id_, "result": {"ok": True}})
    elif MODE == "huge":
        send(
            {
                "jsonrpc": "2.0",
                "id": id_,
                "result": {"content": [{"type": "text", "text": "x" * 5_000_000}]},
            }
        )
    elif MODE == "crash":
        log("Traceback (most recent call last):\nRuntimeError: boom")
        sys.exit(3)
    elif MODE == "hang":
        continue
    elif MODE == "unknown-id":
        send({"jsonrpc": "2.0", "id": 424242, "result": {}})
        send({"jsonrpc": "2.0", "id": str(id_), "result": {"stringly": True}})
    elif MODE == "flood":
        for i in range(10_000):
            out.write(
                json.dumps(
                    {
                        "jsonrpc": "2.0",
                        "method": "notifications/message",
                        "params": {"level": "info", "data": i},
                    }
                ).encode()
                + b"\n"
            )
        out.flush()
        send({"jsonrpc": "2.0", "id": id_, "result": {"flooded": 10_000}})
    else:
        send({"jsonrpc": "2.0", "id": id_, "result": {}})

if MODE in ("ignore-stdin-close", "ignore-term", "spawn-child"):
    while True:
        time.sleep(0.1)
