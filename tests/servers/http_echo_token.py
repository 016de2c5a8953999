"""An MCP server over HTTP whose tools echo the request's ``Authorization`` header back in
their results, as a careless debugging tool does: ``python http_echo_token.py``.

It listens on 127.0.0.1 (a free port, printed on stdout as ``PORT n``) and answers with
JSON (Streamable HTTP), handshake era only. Tools: ``whoami`` ("you sent
Authorization: <the header>", answered on an SSE stream after a log message saying the
same) and ``whoami_long`` (the header after 129 dots: a one-line
summary cut at 160 characters cuts the token in the middle). The header is echoed
elsewhere as well, where a server builds text per request: the instructions and
``serverInfo``'s title and description (initialize), ``whoami``'s description and
``whoami_refused``'s field description (tools/list), the progress message of
``whoami_wait`` (which then waits for its cancel), the message of ``whoami_ask``'s
``elicitation/create`` and of ``whoami_sample``'s ``sampling/createMessage`` (answered
before the result), the error of ``whoami_refused``,
``logging/setLevel``'s refusal, and the status message and result of ``whoami_task`` (a
task: tasks/get says it completed, tasks/result answers). Whatever prints these (the
log's rows, the event detail, a saved or copied frame, the other panes) must not print
the secret.
"""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

NAMES = (
    "whoami",
    "whoami_long",
    "whoami_wait",
    "whoami_refused",
    "whoami_task",
    "whoami_ask",
    "whoami_sample",
)
# what a waiting tool waits for: whoami_wait's request id -> its cancel, whoami_ask's
# elicitation id -> the client's answer
CAME: dict[object, threading.Event] = {}


def tools(authorization: str) -> list[dict[str, Any]]:
    """The tools; ``whoami``'s description names the header this list was asked with."""
    said = {"whoami": f"Say what Authorization header came (this list came with {authorization})."}
    note = {"type": "string", "description": f"why {authorization} should pass"}
    fields = {"whoami_refused": {"note": note}}
    return [
        {
            "name": name,
            "description": said.get(name, "Say what Authorization header came."),
            "inputSchema": {"type": "object", "properties": fields.get(name, {})},
            **({"execution": {"taskSupport": "required"}} if name == "whoami_task" else {}),
        }
        for name in NAMES
    ]


def answer(message: dict[str, Any], authorization: str) -> dict[str, Any] | None:
    """The response to one message (None for a notification)."""
    if "id" not in message or "method" not in message:
        return None
    id_, method = message["id"], message["method"]
    if method == "initialize":
        result: dict[str, Any] = {
            "protocolVersion": "2025-11-25",
            "capabilities": {
                "tools": {},
                "logging": {},
                "tasks": {"requests": {"tools": {"call": {}}}},
            },
            "serverInfo": {
                "name": "echo-token",
                "title": f"echo-token for {authorization}",
                "version": "1",
                "description": f"signed in with {authorization}",
            },
            "instructions": f"You are signed in with {authorization}.",
        }
    elif method == "tools/list":
        result = {"tools": tools(authorization)}
    elif method == "logging/setLevel":
        error = {"code": -32602, "message": f"no log level for {authorization}"}
        return {"jsonrpc": "2.0", "id": id_, "error": error}
    elif method in ("tasks/get", "tasks/result") or (
        method == "tools/call" and (message.get("params") or {}).get("name") == "whoami_task"
    ):
        task = {
            "taskId": "t1",
            "status": "working" if method == "tools/call" else "completed",
            "statusMessage": f"checking {authorization}",
            "createdAt": "2026-01-01T00:00:00Z",
            "ttl": 60000,
            "pollInterval": 100,
        }
        text = f"task saw {authorization}"
        results = {"tools/call": {"task": task}, "tasks/get": task}
        result = results.get(method) or {"content": [{"type": "text", "text": text}]}
    elif method == "tools/call":
        name = (message.get("params") or {}).get("name")
        if name == "whoami_refused":
            error = {"code": -32602, "message": f"not allowed with {authorization}"}
            return {"jsonrpc": "2.0", "id": id_, "error": error}
        said = f"Authorization: {authorization}"
        text = f"you sent {said}" if name == "whoami" else "." * 129 + said
        result = {"content": [{"type": "text", "text": text}]}
    elif method == "ping":
        result = {}
    else:
        error = {"code": -32601, "message": f"Method not found: {method}"}
        return {"jsonrpc": "2.0", "id": id_, "error": error}
    return {"jsonrpc": "2.0", "id": id_, "result": result}


class Echo(BaseHTTPRequestHandler):
    def do_POST(self) -> None:
        body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        if self.headers.get("MCP-Protocol-Version") == "2026-07-28":  # the era probe
            self._send(400, b"Unsupported protocol version: 2026-07-28", "text/plain")
            return
        message = json.loads(body)
        authorization = str(self.headers.get("Authorization"))
        params = message.get("params") or {}
        if message.get("method") == "notifications/cancelled":
            CAME.setdefault(params.get("requestId"), threading.Event()).set()
        elif "method" not in message:  # the client's answer to the server's request
            CAME.setdefault(message.get("id"), threading.Event()).set()
        reply = answer(message, authorization)
        if params.get("name") == "whoami_wait":
            token = (params.get("_meta") or {}).get("progressToken")
            said = {"progressToken": token, "progress": 1, "message": f"checking {authorization}"}
            note = {"jsonrpc": "2.0", "method": "notifications/progress", "params": said}
            self._wait(note, message.get("id"), None)  # until cancelled, then no answer
        elif params.get("name") == "whoami_ask":
            schema = {"type": "object", "properties": {"note": {"type": "string"}}}
            said = {"message": f"Go on as {authorization}?", "requestedSchema": schema}
            ask = {"jsonrpc": "2.0", "id": "ask-1", "method": "elicitation/create", "params": said}
            self._wait(ask, "ask-1", reply)  # until answered, then the tool's result
        elif params.get("name") == "whoami_sample":
            text = {"type": "text", "text": f"Summarise {authorization}."}
            said = {"messages": [{"role": "user", "content": text}], "maxTokens": 10}
            ask = {"jsonrpc": "2.0", "id": "ask-2", "method": "sampling/createMessage"}
            self._wait({**ask, "params": said}, "ask-2", reply)
        elif reply is None:
            self._send(202, b"", None)
        elif (message.get("params") or {}).get("name") == "whoami":
            self._stream(reply, authorization)
        else:
            self._send(200, json.dumps(reply).encode(), "application/json")

    def _stream(self, reply: dict[str, Any], authorization: str) -> None:
        """``reply`` on an SSE stream, after a log message that quotes the header."""
        said = f"request came with Authorization: {authorization}"
        params = {"level": "info", "logger": "echo", "data": said}
        note = {"jsonrpc": "2.0", "method": "notifications/message", "params": params}
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Mcp-Session-Id", "s1")
        self.end_headers()
        for item in (note, reply):
            self.wfile.write(f"event: message\ndata: {json.dumps(item)}\n\n".encode())
        self.wfile.flush()
        self.close_connection = True

    def _wait(self, first: dict[str, Any], key: object, then: dict[str, Any] | None) -> None:
        """An SSE stream: ``first``, then (once ``key`` came, at most 60 s) ``then``."""
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Mcp-Session-Id", "s1")
        self.end_headers()
        self.wfile.write(f"event: message\ndata: {json.dumps(first)}\n\n".encode())
        self.wfile.flush()
        CAME.setdefault(key, threading.Event()).wait(60)
        if then is not None:
            self.wfile.write(f"event: message\ndata: {json.dumps(then)}\n\n".encode())
            self.wfile.flush()
        self.close_connection = True

    def do_GET(self) -> None:
        self._send(405, b"", None)

    def do_DELETE(self) -> None:
        self._send(200, b"", None)

    def _send(self, status: int, body: bytes, ctype: str | None) -> None:
        self.send_response(status)
        if ctype:
            self.send_header("Content-Type", ctype)
        if status == 200:
            self.send_header("Mcp-Session-Id", "s1")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: object) -> None:
        pass  # stderr stays quiet


server = ThreadingHTTPServer(("127.0.0.1", 0), Echo)
print(f"PORT {server.server_address[1]}", flush=True)
server.serve_forever()
