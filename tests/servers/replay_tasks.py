"""A raw stdio server whose ids change on every run: ``start`` hands out a fresh task id,
``status`` knows only ids it handed out, ``slow`` never answers (until cancelled).
Replay must map the recorded task id to the live one to get the same answers."""

import json
import sys
import uuid

tasks: set[str] = set()


def reply(id_: object, result: object = None, error: object = None) -> None:
    msg = {"jsonrpc": "2.0", "id": id_}
    msg.update({"error": error} if error is not None else {"result": result})
    sys.stdout.write(json.dumps(msg) + "\n")
    sys.stdout.flush()


for line in sys.stdin:
    msg = json.loads(line)
    if "id" not in msg or "method" not in msg:
        continue
    method, params = msg["method"], msg.get("params") or {}
    if method == "initialize":
        reply(
            msg["id"],
            {
                "protocolVersion": params.get("protocolVersion"),
                "capabilities": {"tools": {}},
                "serverInfo": {"name": "tasks", "version": "1"},
            },
        )
    elif method == "tools/call" and params.get("name") == "start":
        task = uuid.uuid4().hex
        tasks.add(task)
        reply(msg["id"], {"content": [], "taskId": task})
    elif method == "tools/call" and params.get("name") == "status":
        task = params.get("arguments", {}).get("taskId")
        if task in tasks:
            reply(msg["id"], {"content": [{"type": "text", "text": "running"}]})
        else:
            reply(msg["id"], error={"code": -32602, "message": f"unknown task {task}"})
    elif method == "tools/call" and params.get("name") == "slow":
        pass  # never answered
    else:
        reply(msg["id"], error={"code": -32601, "message": method})
