"""A tiny scripted HTTP/1.1 server for transport tests, run in the test's own event loop.

Each test gives a handler ``async def handler(req, conn)``; the server parses one
request per connection, calls it, and closes the connection when it returns, so a
streamed body (SSE) ends exactly when the handler says. Every request is kept in
``server.requests`` for assertions. Misbehaviour is the point: the handler can send
anything, cut a stream mid-event, or never answer.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any, ClassVar

REASONS = {
    200: "OK",
    202: "Accepted",
    204: "No Content",
    307: "Temporary Redirect",
    400: "Bad Request",
    401: "Unauthorized",
    403: "Forbidden",
    404: "Not Found",
    405: "Method Not Allowed",
    406: "Not Acceptable",
    409: "Conflict",
    415: "Unsupported Media Type",
    500: "Internal Server Error",
    502: "Bad Gateway",
}


@dataclass
class Request:
    method: str
    path: str
    headers: dict[str, str]  # lower-case names
    body: bytes
    time: float = field(default_factory=time.monotonic)

    def json(self) -> Any:
        return json.loads(self.body) if self.body else None

    @property
    def rpc_method(self) -> str | None:
        msg = self.json() if self.method == "POST" else None
        return msg.get("method") if isinstance(msg, dict) else None


class Conn:
    """The response side of one connection."""

    def __init__(self, writer: asyncio.StreamWriter) -> None:
        self.writer = writer
        self.started = False

    async def respond(
        self, status: int, body: bytes | str | Any = b"", headers: dict[str, str] | None = None
    ) -> None:
        """A complete response; a dict or list body is sent as application/json."""
        hdrs = dict(headers or {})
        if isinstance(body, dict | list):
            body = json.dumps(body).encode()
            hdrs.setdefault("Content-Type", "application/json")
        elif isinstance(body, str):
            body = body.encode()
        hdrs["Content-Length"] = str(len(body))
        await self.start(status, hdrs)
        await self.write(body)

    async def start(self, status: int, headers: dict[str, str] | None = None) -> None:
        """The status line and headers; the body follows with ``write`` until close."""
        lines = [f"HTTP/1.1 {status} {REASONS.get(status, 'Status')}"]
        hdrs = {"Connection": "close", **(headers or {})}
        lines += [f"{k}: {v}" for k, v in hdrs.items()]
        self.writer.write(("\r\n".join(lines) + "\r\n\r\n").encode())
        self.started = True
        await self.writer.drain()

    async def start_sse(self, headers: dict[str, str] | None = None) -> None:
        await self.start(
            200,
            {"Content-Type": "text/event-stream", "Cache-Control": "no-cache", **(headers or {})},
        )

    async def write(self, data: bytes | str) -> None:
        self.writer.write(data.encode() if isinstance(data, str) else data)
        await self.writer.drain()

    async def event(
        self,
        message: Any = None,
        *,
        id: str | None = None,
        retry: int | None = None,
        event: str | None = None,
    ) -> None:
        """One SSE event; ``message`` is JSON-encoded unless it is bytes/str."""
        out = ""
        if event is not None:
            out += f"event: {event}\n"
        if id is not None:
            out += f"id: {id}\n"
        if retry is not None:
            out += f"retry: {retry}\n"
        if message is None:
            out += "data:\n"
        else:
            data = message if isinstance(message, str) else json.dumps(message)
            out += "".join(f"data: {line}\n" for line in data.split("\n"))
        await self.write(out + "\n")

    async def hang(self) -> None:
        """Never answer (until the server is stopped)."""
        await asyncio.Event().wait()


Handler = Callable[[Request, Conn], Awaitable[None]]


class ScriptedServer:
    """``async with ScriptedServer(handler) as server:`` -> ``server.url``."""

    def __init__(self, handler: Handler, path: str = "/mcp") -> None:
        self.handler = handler
        self.path = path
        self.requests: list[Request] = []
        self._server: asyncio.Server | None = None
        self._tasks: set[asyncio.Task[None]] = set()
        self.port = 0

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def url(self) -> str:
        return self.base + self.path

    async def __aenter__(self) -> ScriptedServer:
        self._server = await asyncio.start_server(self._serve, "127.0.0.1", 0)
        self.port = self._server.sockets[0].getsockname()[1]
        return self

    async def __aexit__(self, *exc: object) -> None:
        assert self._server is not None
        self._server.close()
        for task in list(self._tasks):
            task.cancel()
        for task in list(self._tasks):
            with contextlib.suppress(BaseException):
                await task
        with contextlib.suppress(BaseException):
            await asyncio.wait_for(self._server.wait_closed(), 2)

    def posts(self, rpc_method: str | None = None) -> list[Request]:
        return [
            r
            for r in self.requests
            if r.method == "POST" and (rpc_method is None or r.rpc_method == rpc_method)
        ]

    def gets(self) -> list[Request]:
        return [r for r in self.requests if r.method == "GET"]

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        task = asyncio.current_task()
        assert task is not None
        self._tasks.add(task)  # type: ignore[arg-type]
        try:
            head = await reader.readuntil(b"\r\n\r\n")
            lines = head.decode("latin-1").split("\r\n")
            method, path, _ = lines[0].split(" ", 2)
            headers: dict[str, str] = {}
            for line in lines[1:]:
                if ":" in line:
                    name, value = line.split(":", 1)
                    headers[name.strip().lower()] = value.strip()
            body = await reader.readexactly(int(headers.get("content-length", "0")))
            request = Request(method, path, headers, body)
            self.requests.append(request)
            await self.handler(request, Conn(writer))
        except (asyncio.IncompleteReadError, ConnectionError):
            pass
        except asyncio.CancelledError:
            pass  # the server is stopping; ending quietly keeps asyncio from logging it
        finally:
            self._tasks.discard(task)  # type: ignore[arg-type]
            writer.close()
            with contextlib.suppress(BaseException):
                await writer.wait_closed()


def init_result(version: str = "2025-11-25") -> dict[str, Any]:
    return {
        "protocolVersion": version,
        "capabilities": {"tools": {}},
        "serverInfo": {"name": "scripted", "version": "0"},
    }


def ok(request: Request, result: Any) -> dict[str, Any]:
    """A JSON-RPC result for the request in ``request``'s body."""
    return {"jsonrpc": "2.0", "id": request.json()["id"], "result": result}


async def answer_basics(req: Request, conn: Conn, session_id: str | None = "sess-1") -> bool:
    """Handle initialize (JSON, with a session id), notifications (202), GET (405) and
    DELETE (200); return False for anything else (the test handles it)."""
    headers = {"MCP-Session-Id": session_id} if session_id else {}
    if req.method == "GET":
        await conn.respond(405)
        return True
    if req.method == "DELETE":
        await conn.respond(200)
        return True
    msg = req.json()
    if msg.get("method") == "initialize":
        await conn.respond(200, ok(req, init_result()), headers)
        return True
    if "id" not in msg or "method" not in msg:  # notification or response
        await conn.respond(202)
        return True
    return False


class ExpiringSessions:
    """A handler whose first ``expire`` sessions end after ``after`` POSTs carrying the
    session id: the next one (and all later ones with that id) is answered 404, as a
    server that restarted or timed the session out would. Serves one ``echo`` tool."""

    TOOL: ClassVar[dict[str, Any]] = {
        "name": "echo",
        "description": "Echo the text back.",
        "inputSchema": {
            "type": "object",
            "properties": {"text": {"type": "string"}},
            "required": ["text"],
        },
    }

    def __init__(self, after: int, expire: int = 1) -> None:
        self.after = after
        self.expire = expire
        self.sessions = 0
        self.counts: dict[str, int] = {}
        self.expired: list[str] = []

    async def __call__(self, req: Request, conn: Conn) -> None:
        sid = req.headers.get("mcp-session-id")
        if req.method == "GET":
            await conn.respond(405)
            return
        if req.method == "DELETE":
            await conn.respond(200)
            return
        msg = req.json()
        if msg.get("method") == "initialize":
            self.sessions += 1
            new = f"sess-{self.sessions}"
            self.counts[new] = 0
            await conn.respond(200, ok(req, init_result()), {"MCP-Session-Id": new})
            return
        if sid not in self.counts:
            await conn.respond(
                400,
                {
                    "jsonrpc": "2.0",
                    "id": None,
                    "error": {"code": -32600, "message": "Bad Request: unknown session"},
                },
            )
            return
        self.counts[sid] += 1
        number = int(sid.split("-")[1])
        if number <= self.expire and self.counts[sid] > self.after:
            if sid not in self.expired:
                self.expired.append(sid)
            await conn.respond(404, "session not found")
            return
        if "id" not in msg or "method" not in msg:
            await conn.respond(202)
        elif msg["method"] == "tools/list":
            await conn.respond(200, ok(req, {"tools": [self.TOOL]}))
        elif msg["method"] == "tools/call":
            text = str((msg.get("params") or {}).get("arguments", {}).get("text", ""))
            await conn.respond(
                200, ok(req, {"content": [{"type": "text", "text": f"{sid}: {text}"}]})
            )
        elif msg["method"] == "ping":
            await conn.respond(200, ok(req, {}))
        else:
            await conn.respond(
                200,
                {
                    "jsonrpc": "2.0",
                    "id": msg["id"],
                    "error": {"code": -32601, "message": f"method not found: {msg['method']}"},
                },
            )
