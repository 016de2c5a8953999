"""A small HTTP/1.1 server side on asyncio protocols: what the proxy's Streamable HTTP
front needs.

Requests with a body of known length or chunked, keep-alive, responses with a body or
streamed in chunks (server-sent events). A connection is a ``StreamProtocol``: the relay
writes a server's answer to the host's socket from the task that received it, with no
hop through a queue and a waiting task. The standard library's ``http.server`` blocks a
thread per connection and cannot stream from an event loop; a web framework would be a
new dependency for four methods on one path.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass, field
from http import HTTPStatus

from inspector.errors import InspectorError
from inspector.transports.aioconn import LimitExceeded, StreamProtocol

MAX_HEAD = 64 << 10
MAX_BODY = 64 << 20
IDLE_TIMEOUT = 300.0  # a keep-alive connection with no request for this long is closed


class HttpError(InspectorError):
    """The request cannot be read; answer ``status`` and close."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.message = message


@dataclass
class Request:
    method: str
    target: str
    version: str
    headers: dict[str, str] = field(default_factory=dict)  # names in lower case
    body: bytes = b""

    @property
    def path(self) -> str:
        return self.target.split("?", 1)[0]

    @property
    def keep_alive(self) -> bool:
        connection = self.headers.get("connection", "").lower()
        if self.version == "HTTP/1.0":
            return connection == "keep-alive"
        return connection != "close"


class FrontConnection(StreamProtocol):
    """One host connection to the front: requests read from it, answers written to it."""

    eof_closes = False  # a host that ends its side after a request still gets the answer

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        super().__init__(loop)
        self.on_lost: list[Callable[[], None]] = []  # called once when the host is gone
        self.on_eof: list[Callable[[], None]] = []  # ... or has ended its side
        self.refused = False  # accepted while the front is stopping: closed at once

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        super().connection_made(transport)
        if self.refused:
            self.close()

    def eof_received(self) -> bool:
        keep_open = super().eof_received()
        self._call(self.on_eof)
        return keep_open

    def connection_lost(self, exc: Exception | None) -> None:
        super().connection_lost(exc)
        self._call(self.on_eof)
        self._call(self.on_lost)

    @staticmethod
    def _call(callbacks: list[Callable[[], None]]) -> None:
        pending = list(callbacks)
        callbacks.clear()
        for callback in pending:
            callback()

    async def send(self, data: bytes) -> None:
        """Write, and wait while the host is behind in reading."""
        await self.write(data, None)


async def read_request(conn: FrontConnection) -> Request | None:
    """The next request on a connection; None when the host closed it (or went quiet for
    ``IDLE_TIMEOUT``) between requests."""
    try:
        head = await conn.read_until(b"\r\n\r\n", MAX_HEAD, IDLE_TIMEOUT)
    except (EOFError, TimeoutError, OSError):
        return None
    except LimitExceeded:
        raise HttpError(431, "request head too large") from None
    lines = head[:-4].decode("latin-1").split("\r\n")
    parts = lines[0].split(" ")
    if len(parts) != 3 or not parts[2].startswith("HTTP/1."):
        raise HttpError(400, f"not an HTTP/1.x request line: {lines[0][:80]!r}")
    request = Request(parts[0], parts[1], parts[2])
    for line in lines[1:]:
        name, sep, value = line.partition(":")
        if not sep:
            raise HttpError(400, f"malformed header line: {line[:80]!r}")
        request.headers[name.strip().lower()] = value.strip()
    request.body = await _read_body(conn, request.headers)
    return request


async def _read_body(conn: FrontConnection, headers: dict[str, str]) -> bytes:
    try:
        if "chunked" in headers.get("transfer-encoding", "").lower():
            body = bytearray()
            while True:
                size_line = await conn.read_until(b"\r\n", 1024, IDLE_TIMEOUT)
                size = int(size_line.split(b";", 1)[0].strip() or b"0", 16)
                if size == 0:
                    await conn.read_until(b"\r\n\r\n", MAX_HEAD, IDLE_TIMEOUT)  # the trailer
                    return bytes(body)
                if len(body) + size > MAX_BODY:
                    raise HttpError(413, "request body too large")
                body += await conn.read_exactly(size, IDLE_TIMEOUT)
                await conn.read_exactly(2, IDLE_TIMEOUT)
        length = int(headers.get("content-length") or 0)
        if length > MAX_BODY:
            raise HttpError(413, "request body too large")
        return await conn.read_exactly(length, IDLE_TIMEOUT) if length else b""
    except ValueError:  # LimitExceeded too: a chunk-size line without its end
        raise HttpError(400, "bad Content-Length or chunk size") from None
    except (EOFError, TimeoutError, OSError):
        raise HttpError(400, "the request body ended early") from None


def _head(status: int, headers: dict[str, str]) -> bytes:
    reason = HTTPStatus(status).phrase if status in HTTPStatus._value2member_map_ else ""
    lines = [f"HTTP/1.1 {status} {reason}"]
    lines += [f"{name}: {value}" for name, value in headers.items()]
    return ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1")


def response_bytes(
    status: int,
    body: bytes = b"",
    content_type: str | None = "application/json",
    headers: dict[str, str] | None = None,
) -> bytes:
    """A whole response, head and body."""
    all_headers = dict(headers or {})
    if body and content_type:
        all_headers["Content-Type"] = content_type
    all_headers["Content-Length"] = str(len(body))
    return _head(status, all_headers) + body


async def respond(
    stream: FrontConnection,
    status: int,
    body: bytes = b"",
    content_type: str | None = "application/json",
    headers: dict[str, str] | None = None,
) -> None:
    """A whole response, written (waiting while the host is behind)."""
    await stream.send(response_bytes(status, body, content_type, headers))


class ChunkedResponse:
    """A streamed response (``Transfer-Encoding: chunked``): the head, chunks, the end;
    each as bytes, so a caller can write several in one go."""

    END = b"0\r\n\r\n"

    @staticmethod
    def head(status: int, headers: dict[str, str]) -> bytes:
        return _head(status, {**headers, "Transfer-Encoding": "chunked"})

    @staticmethod
    def chunk(data: bytes) -> bytes:
        return b"%x\r\n%b\r\n" % (len(data), data) if data else b""


def sse_event(raw: bytes) -> bytes:
    """One server-sent event carrying a message; its lines each in a ``data:`` field, so the
    client joins them back (a message of several lines arrives as it was sent)."""
    lines = raw.strip().splitlines() or [b""]
    return b"event: message\n" + b"".join(b"data: " + line + b"\n" for line in lines) + b"\n"
