"""An MCP server over HTTP whose tools echo the request's ``Authorization`` header back in
their results, as a careless debugging tool does: ``python http_echo_token.py``.

It listens on 127.0.0.1 (a free port, printed on stdout as ``PORT n``) and answers with
JSON (Streamable HTTP), handshake era only. Tools: ``whoami`` ("you sent
Authorization: <the header>", answered on an SSE stream after a log message saying the
same) and ``whoami_long`` (the header after 129 dots: a one-line
summary cut at 160 characters cuts the token in the middle). Whatever prints these
results (the log's rows, the event detail, a saved or copied frame) must not print the
secret.
"""

from __future__ import annotations

import json
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

TOOLS = [
    {"name": name, "description": "Say what Authorization header came.", "inputSchema": schema}
    for name, schema in (
        ("whoami", {"type": "object", "properties": {}}),
        ("whoami_long", {"type": "object", "properties": {}}),
    )
]


def answer(message: dict[str, Any], authorization: str) -> dict[str, Any] | None:
    """The response to one message (None for a notification)."""
    if "id" not in message or "method" not in message:
        return None
    id_, method = message["id"], message["method"]
    if method == "initialize":
        result: dict[str, Any] = {
            "protocolVersion": "2025-11-25",
            "capabilities": {"tools": {}},
            "serverInfo": {"name": "echo-token", "version": "1"},
        }
    elif method == "tools/list":
        result = {"tools": TOOLS}
    elif method == "tools/call":
        name = (message.get("params") or {}).get("name")
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
        reply = answer(message, authorization)
        if reply is None:
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
