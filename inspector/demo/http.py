"""``python -m inspector.demo --http PORT``: the demo over Streamable HTTP, on loopback.

Both eras on one endpoint, ``/mcp``: a POST whose ``MCP-Protocol-Version`` header (or
``_meta`` envelope) names 2026-07-28 is one self-contained exchange with no session; an
``initialize`` POST opens a handshake-era session (``Mcp-Session-Id``), which later POSTs
name and DELETE ends. A request is answered on an SSE stream carrying what the server
sends while handling it (progress, log messages, its requests to the client), then its
response. There is no GET stream (405): messages sent outside a request are dropped.
Every error is a JSON-RPC error body.
"""

from __future__ import annotations

import contextlib
import json
import queue
import secrets
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from inspector.demo.server import DemoServer
from inspector.demo.stateless import HEADER_MISMATCH, STATELESS, refusal, requested_version
from inspector.wire.jsonrpc import INVALID_REQUEST, PARSE_ERROR, RpcError, error_response

PATH = "/mcp"
NAMED = {"tools/call": "name", "prompts/get": "name", "resources/read": "uri"}  # Mcp-Name
LOOPBACK = ("127.0.0.1", "localhost", "::1")
STREAM_WAIT = 600.0  # seconds a request's stream waits for its response at most


class Outbox:
    """A DemoServer's stdout: each message goes to the stream of the request it answers,
    the rest to the newest open stream (``None``: no stream, dropped)."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.streams: dict[Any, queue.Queue[dict[str, Any]]] = {}  # request id -> its stream

    def open(self, request_id: Any) -> queue.Queue[dict[str, Any]]:
        stream: queue.Queue[dict[str, Any]] = queue.Queue()
        with self.lock:
            self.streams[json.dumps(request_id)] = stream
        return stream

    def close(self, request_id: Any) -> None:
        with self.lock:
            self.streams.pop(json.dumps(request_id), None)

    def write(self, data: bytes) -> int:
        for line in data.splitlines():
            with contextlib.suppress(ValueError):
                self._route(json.loads(line))
        return len(data)

    def flush(self) -> None:
        pass

    def _route(self, message: Any) -> None:
        answers = isinstance(message, dict) and "method" not in message and "id" in message
        with self.lock:
            stream = self.streams.get(json.dumps(message.get("id"))) if answers else None
            if stream is None and not answers and self.streams:
                stream = list(self.streams.values())[-1]
        if stream is not None:
            stream.put(message)


class Endpoint:
    """The sessions of the handshake era, and the one server of stateless requests."""

    def __init__(self, variant: str, tick: float) -> None:
        self.variant, self.tick = variant, tick
        self.lock = threading.Lock()
        self.sessions: dict[str, tuple[DemoServer, Outbox]] = {}
        self.stateless = self._server()

    def _server(self) -> tuple[DemoServer, Outbox]:
        outbox = Outbox()
        server = DemoServer(outbox, variant=self.variant, tick=self.tick, eras="all")  # type: ignore[arg-type]
        return server, outbox

    def new_session(self) -> tuple[str, DemoServer, Outbox]:
        session_id = secrets.token_hex(16)
        server, outbox = self._server()
        with self.lock:
            self.sessions[session_id] = (server, outbox)
        return session_id, server, outbox

    def end(self, session_id: str) -> bool:
        with self.lock:
            found = self.sessions.pop(session_id, None)
        if found is not None:
            found[0].close()
        return found is not None


class Handler(BaseHTTPRequestHandler):
    server: DemoHttpServer
    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: Any) -> None:
        sys.stderr.write(f"[demo http] {format % args}\n")

    def _json(self, status: int, body: Any, headers: dict[str, str] | None = None) -> None:
        data = json.dumps(body).encode("utf-8")
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        for key, value in (headers or {}).items():
            self.send_header(key, value)
        self.end_headers()
        self.wfile.write(data)

    def _error(self, status: int, code: int, message: str, id_: Any = None) -> None:
        self._json(status, error_response(id_, code, message))

    def _foreign(self) -> bool:
        """DNS rebinding: a Host or Origin that is not this loopback server is refused
        (403, with a JSON-RPC error body)."""
        host = (self.headers.get("Host") or "").rsplit(":", 1)[0].strip("[]")
        origin = self.headers.get("Origin")
        origin_host = origin.split("://", 1)[-1].split("/")[0].rsplit(":", 1)[0] if origin else ""
        if host in LOOPBACK and (origin is None or origin_host.strip("[]") in LOOPBACK):
            return False
        self._error(403, INVALID_REQUEST, f"Forbidden: Host {host!r} / Origin {origin!r}")
        return True

    def do_GET(self) -> None:
        if self._foreign():
            return
        self._error(405, INVALID_REQUEST, "no server-initiated stream here: use POST")

    def do_DELETE(self) -> None:
        if self._foreign():
            return
        session_id = self.headers.get("Mcp-Session-Id") or ""
        if self.server.endpoint.end(session_id):
            self.send_response(200)
            self.send_header("Content-Length", "0")
            self.end_headers()
        else:
            self._error(404, INVALID_REQUEST, "no such session")

    def do_POST(self) -> None:
        # the body is read first: an answer before it would leave it to be taken as the
        # next request on this connection
        raw = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        if self._foreign():
            return
        if self.path.split("?")[0] != PATH:
            self._error(404, INVALID_REQUEST, f"not found: the endpoint is {PATH}")
            return
        try:
            message = json.loads(raw)
        except ValueError as exc:
            self._error(400, PARSE_ERROR, f"Parse error: {exc}")
            return
        if not isinstance(message, dict):
            self._error(400, INVALID_REQUEST, "Invalid Request: one JSON-RPC object per POST")
            return
        found = self._server_for(message)
        if found is None:
            return
        server, outbox, headers = found
        if "method" not in message or "id" not in message:  # a notification or a response
            server.handle_line(raw)
            self.send_response(202)
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        self._answer(server, outbox, message, raw, headers)

    def _server_for(
        self, message: dict[str, Any]
    ) -> tuple[DemoServer, Outbox, dict[str, str]] | None:
        """The server this POST goes to; ``None`` when its error was sent."""
        params = message.get("params") if isinstance(message.get("params"), dict) else {}
        header = self.headers.get("MCP-Protocol-Version")
        if header == STATELESS or requested_version(params or {}) is not None:
            refused = refusal(str(message.get("method")), params or {}, header)
            refused = refused or self._header_mismatch(message, params or {})
            if refused is not None and "id" in message:
                status = 404 if refused.code == -32601 else 400
                self._json(
                    status,
                    error_response(message["id"], refused.code, refused.message, refused.data),
                )
                return None
            server, outbox = self.server.endpoint.stateless
            return server, outbox, {}
        session_id = self.headers.get("Mcp-Session-Id")
        if message.get("method") == "initialize" and not session_id:
            new_id, server, outbox = self.server.endpoint.new_session()
            return server, outbox, {"Mcp-Session-Id": new_id}
        if not session_id:
            self._error(400, INVALID_REQUEST, "Bad Request: no Mcp-Session-Id", message.get("id"))
            return None
        with self.server.endpoint.lock:
            found = self.server.endpoint.sessions.get(session_id)
        if found is None:
            self._error(404, INVALID_REQUEST, "Session not found", message.get("id"))
            return None
        return found[0], found[1], {"Mcp-Session-Id": session_id}

    def _header_mismatch(self, message: dict[str, Any], params: dict[str, Any]) -> RpcError | None:
        """SEP-2243: ``Mcp-Method`` (and ``Mcp-Name`` for a call, a prompt, a read) must be
        sent and say what the body says (values trimmed, as HTTP does)."""
        method = message.get("method")
        header = self.headers.get("Mcp-Method")
        if header is None or header.strip() != method:
            return RpcError(HEADER_MISMATCH, f"Mcp-Method {header!r} does not match {method!r}")
        if method not in NAMED:
            return None
        named = params.get(NAMED[str(method)])
        name = self.headers.get("Mcp-Name")
        if name is None or name.strip() != named:
            return RpcError(HEADER_MISMATCH, f"Mcp-Name {name!r} does not match {named!r}")
        return None

    def _answer(
        self,
        server: DemoServer,
        outbox: Outbox,
        message: dict[str, Any],
        raw: bytes,
        headers: dict[str, str],
    ) -> None:
        """The request's stream: what the server sends while handling it, then its answer."""
        stream = outbox.open(message["id"])
        try:
            server.handle_line(raw)
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            self.send_header("Cache-Control", "no-cache")
            self.send_header("Connection", "close")
            for key, value in headers.items():
                self.send_header(key, value)
            self.end_headers()
            self.close_connection = True
            while True:
                try:
                    sent = stream.get(timeout=STREAM_WAIT)
                except queue.Empty:
                    return
                self.wfile.write(b"event: message\ndata: " + json.dumps(sent).encode() + b"\n\n")
                self.wfile.flush()
                if "method" not in sent and sent.get("id") == message["id"]:
                    return
        except OSError:  # the client went away
            return
        finally:
            outbox.close(message["id"])


class DemoHttpServer(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, port: int, variant: str, tick: float) -> None:
        super().__init__(("127.0.0.1", port), Handler)  # loopback only
        self.endpoint = Endpoint(variant, tick)


def serve(port: int, variant: str, tick: float) -> None:
    httpd = DemoHttpServer(port, variant, tick)
    host, bound = httpd.server_address[:2]
    sys.stderr.write(f"[demo] listening on http://{host!s}:{bound}{PATH}\n")
    sys.stderr.flush()
    with contextlib.suppress(KeyboardInterrupt):
        httpd.serve_forever()
    httpd.server_close()
