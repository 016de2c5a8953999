"""A server of one era only, for the era-detection tests.

Usage: python era_server.py ERA-TRANSPORT, with ERA one of
``handshake`` (initialize only: ``server/discover`` is -32601 on stdio, and over HTTP a
POST naming 2026-07-28 is ``400 Unsupported protocol version``, as the conformance
suite's servers answer), ``stateless`` (2026-07-28 only: ``initialize`` is refused with
-32022 naming it), ``silent`` (handshake, but ``server/discover`` gets no answer at all),
``mute`` (answers nothing);
TRANSPORT ``stdio`` or ``http`` (binds 127.0.0.1, prints ``PORT <n>``). With no
argument the mode is read from ``ERA_SERVER_MODE``: one command line (one remembered
target) whose era changes between runs.
Tool: ``add(a, b)``. Stateless, ``tools/list`` is cacheable for a minute (``ttlMs``) and
``resources/list`` for 1 ms; over HTTP the first ``prompts/list``'s response stream ends
before its response. The stateless era also serves the Tasks extension
(``io.modelcontextprotocol/tasks``): ``report`` answers with a task (done after two
``tasks/get``), ``confirm`` with a task that needs an elicitation answered through
``tasks/update``, ``forever`` with one that ends only when cancelled; a client that does
not declare the extension gets -32003.
"""

from __future__ import annotations

import json
import os
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

STATELESS = "2026-07-28"
HANDSHAKE = "2025-11-25"
TOOL = {
    "name": "add",
    "description": "Add two integers.",
    "inputSchema": {
        "type": "object",
        "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}},
        "required": ["a", "b"],
    },
}


EXTENSION = "io.modelcontextprotocol/tasks"
TASK_TOOLS = {
    name: {
        "name": name,
        "description": f"A task tool ({name}).",
        "inputSchema": {"type": "object"},
        "execution": {"taskSupport": "required"},
    }
    for name in ("report", "confirm", "forever")
}
TASKS: dict[str, dict[str, Any]] = {}
BROKEN: list[Any] = []  # stateless HTTP: the first prompts/list's stream breaks
LOCK = threading.Lock()
STAMP = "2026-07-28T00:00:00Z"


def task_view(task_id: str) -> dict[str, Any]:
    """The DetailedTask a tasks/get answers with (one poll further on)."""
    task = TASKS[task_id]
    task["polls"] += 1
    view: dict[str, Any] = {
        "taskId": task_id,
        "createdAt": STAMP,
        "lastUpdatedAt": STAMP,
        "ttlMs": 60000,
        "pollIntervalMs": 50,
    }
    if task["cancelled"]:
        return {**view, "status": "cancelled", "statusMessage": "cancelled on request"}
    if task["tool"] == "confirm" and task["answer"] is None:
        ask = {
            "method": "elicitation/create",
            "params": {
                "message": "Go ahead?",
                "requestedSchema": {"type": "object", "properties": {"ok": {"type": "boolean"}}},
            },
        }
        return {**view, "status": "input_required", "inputRequests": {"go": ask}}
    if task["tool"] == "forever" or task["polls"] < 2:
        return {**view, "status": "working", "statusMessage": f"poll {task['polls']}"}
    text = "report done" if task["tool"] == "report" else f"answered {task['answer']}"
    result = {"content": [{"type": "text", "text": text}]}
    return {**view, "status": "completed", "result": result}


def task_call(id_: Any, name: str, params: dict[str, Any]) -> dict[str, Any]:
    meta = params.get("_meta") or {}
    caps = meta.get("io.modelcontextprotocol/clientCapabilities") or {}
    if EXTENSION not in (caps.get("extensions") or {}):
        required = {"extensions": {EXTENSION: {}}}
        return error(
            id_, -32003, "Missing required client capability", {"requiredCapabilities": required}
        )
    with LOCK:
        task_id = f"task-{len(TASKS) + 1}"
        TASKS[task_id] = {"tool": name, "polls": 0, "cancelled": False, "answer": None}
    created = {
        "resultType": "task",
        "taskId": task_id,
        "status": "working",
        "createdAt": STAMP,
        "lastUpdatedAt": STAMP,
        "ttlMs": 60000,
        "pollIntervalMs": 50,
    }
    return {"jsonrpc": "2.0", "id": id_, "result": created}


def task_method(id_: Any, method: str, params: dict[str, Any]) -> dict[str, Any]:
    task_id = params.get("taskId")
    with LOCK:
        if task_id not in TASKS:
            return error(id_, -32602, f"unknown task {task_id!r}")
        if method == "tasks/get":
            return {"jsonrpc": "2.0", "id": id_, "result": task_view(str(task_id))}
        if method == "tasks/cancel":
            TASKS[task_id]["cancelled"] = True
        elif method == "tasks/update":
            answer = (params.get("inputResponses") or {}).get("go")
            TASKS[task_id]["answer"] = json.dumps(answer, sort_keys=True)
    return {"jsonrpc": "2.0", "id": id_, "result": {}}


def error(id_: Any, code: int, message: str, data: Any = None) -> dict[str, Any]:
    err: dict[str, Any] = {"code": code, "message": message}
    if data is not None:
        err["data"] = data
    return {"jsonrpc": "2.0", "id": id_, "error": err}


def answer(era: str, message: dict[str, Any]) -> dict[str, Any] | None:
    """The response to one message (None: none is sent)."""
    if "id" not in message or "method" not in message or era == "mute":
        return None  # a notification or a response; a mute server answers nothing
    id_, method = message["id"], message["method"]
    params = message.get("params") or {}
    if method == "server/discover":
        if era == "silent":
            return None
        if era == "handshake":
            return error(id_, -32601, f"Method not found: {method}")
        return {
            "jsonrpc": "2.0",
            "id": id_,
            "result": {
                "supportedVersions": [STATELESS],
                "capabilities": {"tools": {}, "extensions": {EXTENSION: {}}},
                "_meta": {"io.modelcontextprotocol/serverInfo": {"name": f"era-{era}"}},
            },
        }
    if method == "initialize":
        if era == "stateless":
            return error(
                id_,
                -32022,
                "Unsupported protocol version",
                {"supported": [STATELESS], "requested": params.get("protocolVersion")},
            )
        return {
            "jsonrpc": "2.0",
            "id": id_,
            "result": {
                "protocolVersion": HANDSHAKE,
                "capabilities": {"tools": {}},
                "serverInfo": {"name": f"era-{era}", "version": "1"},
            },
        }
    if method == "tools/list":
        if era != "stateless":
            return {"jsonrpc": "2.0", "id": id_, "result": {"tools": [TOOL]}}
        # cacheable for a minute: a client may reuse it meanwhile
        listed = {"tools": [TOOL, *TASK_TOOLS.values()], "ttlMs": 60000, "cacheScope": "public"}
        return {"jsonrpc": "2.0", "id": id_, "result": listed}
    if method == "prompts/list" and era == "stateless":
        return {"jsonrpc": "2.0", "id": id_, "result": {"prompts": []}}
    if method == "resources/list" and era == "stateless":  # fresh for 1 ms only
        listed = {"resources": [], "ttlMs": 1, "cacheScope": "private"}
        return {"jsonrpc": "2.0", "id": id_, "result": listed}
    if era == "stateless" and method == "tools/call" and params.get("name") in TASK_TOOLS:
        return task_call(id_, str(params["name"]), params)
    if era == "stateless" and method in ("tasks/get", "tasks/update", "tasks/cancel"):
        return task_method(id_, method, params)
    if method == "tools/call":
        args = params.get("arguments") or {}
        total = int(args.get("a", 0)) + int(args.get("b", 0))
        content = [{"type": "text", "text": str(total)}]
        return {"jsonrpc": "2.0", "id": id_, "result": {"content": content}}
    if method == "ping":
        return {"jsonrpc": "2.0", "id": id_, "result": {}}
    return error(id_, -32601, f"Method not found: {method}")


def serve_stdio(era: str) -> None:
    for line in sys.stdin:
        if not line.strip():
            continue
        reply = answer(era, json.loads(line))
        if reply is not None:
            sys.stdout.write(json.dumps(reply) + "\n")
            sys.stdout.flush()


def serve_http(era: str) -> None:
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, format: str, *args: Any) -> None:
            pass

        def do_POST(self) -> None:
            body = self.rfile.read(int(self.headers.get("content-length") or 0))
            version = self.headers.get("mcp-protocol-version")
            if era != "stateless" and version == STATELESS:
                self._send(
                    400, b"Unsupported protocol version: " + STATELESS.encode(), "text/plain"
                )
                return
            message = json.loads(body)
            if era == "stateless" and message.get("method") == "prompts/list" and not BROKEN:
                BROKEN.append(message.get("id"))
                self._broken_stream()
                return
            reply = answer(era, message)
            if reply is None:
                self._send(202, b"", None)
            else:
                self._send(200, json.dumps(reply).encode(), "application/json")

        def _broken_stream(self) -> None:
            """An SSE response stream that ends before its response (once)."""
            self.send_response(200)
            self.send_header("content-type", "text/event-stream")
            self.end_headers()
            note = {"jsonrpc": "2.0", "method": "notifications/message"}
            note["params"] = {"level": "info", "data": "about to break"}
            self.wfile.write(f"event: message\ndata: {json.dumps(note)}\n\n".encode())
            self.wfile.flush()
            self.close_connection = True

        def do_GET(self) -> None:
            self._send(405, b"", None)

        def do_DELETE(self) -> None:
            self._send(200, b"", None)

        def _send(self, status: int, body: bytes, ctype: str | None) -> None:
            self.send_response(status)
            if ctype:
                self.send_header("content-type", ctype)
            if era != "stateless" and status == 200:
                self.send_header("mcp-session-id", "s1")
            self.send_header("content-length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    print(f"PORT {server.server_address[1]}", flush=True)
    server.serve_forever()


if __name__ == "__main__":
    mode = sys.argv[1] if len(sys.argv) > 1 else os.environ["ERA_SERVER_MODE"]
    era, _, transport = mode.partition("-")
    if transport == "http":
        serve_http(era)
    else:
        serve_stdio(era)
