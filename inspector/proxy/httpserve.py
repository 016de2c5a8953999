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
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from http import HTTPStatus

from inspector.errors import InspectorError
from inspector.transports.aioconn import LimitExceeded, StreamProtocol

MAX_HEAD = 64 << 10
MAX_BODY = 64 << 20
IDLE_TIMEOUT = 300.0  # a keep-alive connection with no request for this long is closed
HEAD_TIMEOUT = 10.0  # a request head must arrive whole within this, from its first byte
BODY_TIMEOUT = 60.0  # a body that stops arriving for this long is given up
# a header line: its name a token (RFC 9110 5.6.2), no space before the colon
_FIELDS = re.compile(r"[!#$%&'*+.^_`|~0-9A-Za-z-]+:.*(?:\r\n[!#$%&'*+.^_`|~0-9A-Za-z-]+:.*)*")
_HEX = re.compile(rb"[0-9A-Fa-f]{1,16}")
RETRY_AFTER = 1  # seconds a host is asked to wait past a cap
FAREWELL_LINGER = 2.0  # seconds a connection refused at a cap lingers after its answer


class HttpError(InspectorError):
    """The request cannot be read; answer ``status`` (with ``headers``) and close."""

    def __init__(self, status: int, message: str, headers: dict[str, str] | None = None) -> None:
        super().__init__(message)
        self.status = status
        self.message = message
        self.headers = headers or {}


def busy(what: str, retry_after: int = RETRY_AFTER) -> HttpError:
    """503: the front is at one of its caps; the host may try again a moment later."""
    return HttpError(503, f"{what}; try again shortly", {"Retry-After": str(retry_after)})


@dataclass
class FrontLimits:
    """What the HTTP front lets hosts take (flags of ``proxy --listen``); past a cap, 503
    with ``Retry-After``."""

    max_connections: int = 64  # open connections at once
    max_sessions: int = 16  # host sessions at once (each has its server)
    max_buffer: int = 64 << 20  # bytes of request bodies held at once, all connections
    head_timeout: float = HEAD_TIMEOUT  # a request head arrives whole within this
    fresh_timeout: float = 60.0  # a session with no request after initialize ends then


class Budget:
    """Bytes of request bodies that all connections may hold at once."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.used = 0

    def take(self, size: int) -> None:
        if size > self.limit:
            raise HttpError(413, f"a body of {size} bytes is more than --max-buffer allows")
        if self.used + size > self.limit:
            raise busy(f"the proxy holds {self.used} bytes of request bodies (--max-buffer)")
        self.used += size

    def give(self, size: int) -> None:
        self.used = max(0, self.used - size)


@dataclass
class Request:
    method: str
    target: str
    version: str
    headers: dict[str, str] = field(default_factory=dict)  # names in lower case
    body: bytes = b""
    held: int = 0  # bytes of the buffer budget this request's body holds

    @property
    def chunked(self) -> bool:
        return "transfer-encoding" in self.headers

    @property
    def length(self) -> int:
        return int(self.headers.get("content-length") or 0)

    @property
    def has_body(self) -> bool:
        """A body follows the head (left unread, the connection cannot go on)."""
        return self.chunked or self.length > 0

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
        self.farewell = b""  # ... or past a cap: this answer first

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        super().connection_made(transport)
        if not self.refused:
            return
        if not self.farewell:
            self.close()
            return
        # answered without reading the request; the host's bytes are read and dropped for
        # a moment so that closing does not reset the connection before it reads this
        self.write_now(self.farewell)
        try:
            transport.write_eof()  # type: ignore[attr-defined]
        except (OSError, RuntimeError):  # the host has gone already
            self.close()
            return
        self.loop.call_later(FAREWELL_LINGER, self.close)

    def data_received(self, data: bytes) -> None:
        if not self.refused:
            super().data_received(data)

    def eof_received(self) -> bool:
        if self.refused:
            self.close()
            return False
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


async def read_head(
    conn: FrontConnection, head_timeout: float = HEAD_TIMEOUT, first: bool = False
) -> Request | None:
    """The next request's head on a connection (its body still unread); None when the host
    closed it (or went quiet for ``IDLE_TIMEOUT``) between requests. A head must arrive
    whole within ``head_timeout`` seconds of its first byte (and a new connection's
    ``first`` head begin within it): a client that connects and says nothing, or sends a
    byte every few minutes, does not hold a connection."""
    try:
        wait = head_timeout if first else IDLE_TIMEOUT
        if not conn.buffer and not await conn.fill(wait):
            return None
        deadline = conn.loop.time() + head_timeout
        head = await _until(conn, b"\r\n\r\n", MAX_HEAD, deadline)
    except TimeoutError:  # before OSError, of which it is one
        if conn.buffer:
            late = f"the request head did not arrive within {head_timeout:g} s"
            raise HttpError(408, late) from None
        return None
    except (EOFError, OSError):
        return None
    except LimitExceeded:
        raise HttpError(431, "request head too large") from None
    return parse_head(head[:-4])


async def _until(conn: FrontConnection, delimiter: bytes, limit: int, deadline: float) -> bytes:
    """``read_until`` with one deadline for the whole, not a timeout a read."""
    start = 0
    while True:
        found = conn.buffer.find(delimiter, start)
        if found >= 0:
            return conn.take(found + len(delimiter))
        if len(conn.buffer) > limit:
            raise LimitExceeded(f"no {delimiter!r} within {limit} bytes")
        start = max(0, len(conn.buffer) - len(delimiter) + 1)
        left = deadline - conn.loop.time()
        if left <= 0:
            raise TimeoutError
        if not await conn.fill(left):
            raise EOFError


def parse_head(head: bytes) -> Request:
    """A request head, strictly (RFC 9112): CRLF line ends only, no folded lines, one
    framing (a length or chunked, never both, never two lengths that differ); what two
    parsers could read differently (request smuggling) is refused."""
    crlf = head.count(b"\r\n")
    if head.count(b"\r") != crlf or head.count(b"\n") != crlf or b"\0" in head:
        raise HttpError(400, "a bare CR or LF (or NUL) in the request head")
    line, _, block = head.decode("latin-1").partition("\r\n")
    parts = line.split(" ")
    if len(parts) != 3 or parts[2] not in ("HTTP/1.1", "HTTP/1.0") or not parts[1]:
        raise HttpError(400, f"not an HTTP/1.x request line: {line[:80]!r}")
    if block and not _FIELDS.fullmatch(block):  # one pass in C; the line that fails is named
        bad = next(f for f in block.split("\r\n") if not _FIELDS.fullmatch(f))
        why = "a folded header line" if bad[:1] in (" ", "\t") else "a malformed header line"
        raise HttpError(400, f"{why}: {bad[:80]!r}")
    request = Request(parts[0], parts[1], parts[2])
    headers = request.headers
    lengths: set[str] = set()
    for item in block.split("\r\n") if block else ():
        name, _, value = item.partition(":")
        key, value = name.lower(), value.strip(" \t")
        if key == "content-length":
            lengths.update(v.strip(" \t") for v in value.split(","))
        elif key in headers:  # repeated: one value, as RFC 9110 5.3 joins them
            value = f"{headers[key]}, {value}"
        headers[key] = value
    if "transfer-encoding" in request.headers:
        if lengths:
            raise HttpError(400, "both Content-Length and Transfer-Encoding")
        if request.headers["transfer-encoding"].lower() != "chunked":
            raise HttpError(501, "only Transfer-Encoding: chunked is understood")
    if len(lengths) > 1:
        raise HttpError(400, "Content-Length headers that differ")
    if lengths:
        length = next(iter(lengths))
        if not length.isdigit() or not length.isascii():
            raise HttpError(400, f"bad Content-Length: {length[:40]!r}")
        request.headers["content-length"] = str(int(length))
    return request


async def read_body(conn: FrontConnection, request: Request, budget: Budget | None = None) -> None:
    """The request's body into ``request.body`` (``budget``: the bytes it holds are taken
    from what all connections may hold at once; over it, HttpError 503)."""
    try:
        if request.chunked:
            body = bytearray()
            while True:
                size_line = await conn.read_until(b"\r\n", 1024, BODY_TIMEOUT)
                size_text = size_line[:-2].split(b";", 1)[0].strip()
                if not size_text or not _HEX.fullmatch(size_text):
                    raise HttpError(400, "bad chunk size")
                size = int(size_text, 16)
                if size == 0:
                    await _trailer(conn)
                    request.body = bytes(body)
                    return
                if len(body) + size > MAX_BODY:
                    raise HttpError(413, "request body too large")
                if budget is not None:
                    budget.take(size)
                    request.held += size
                body += await conn.read_exactly(size, BODY_TIMEOUT)
                if await conn.read_exactly(2, BODY_TIMEOUT) != b"\r\n":
                    raise HttpError(400, "a chunk without its CRLF")
        length = request.length
        if length > MAX_BODY:
            raise HttpError(413, "request body too large")
        if length and budget is not None:
            budget.take(length)
            request.held += length
        request.body = await _exactly(conn, length) if length else b""
    except LimitExceeded:  # a chunk-size line without its end
        raise HttpError(400, "bad chunk size") from None
    except (EOFError, TimeoutError, OSError):
        raise HttpError(400, "the request body ended early") from None


async def _trailer(conn: FrontConnection) -> None:
    """The chunked body's trailer fields (ignored) up to the empty line."""
    while await conn.read_until(b"\r\n", MAX_HEAD, BODY_TIMEOUT) != b"\r\n":
        pass


async def _exactly(conn: FrontConnection, size: int) -> bytes:
    """``size`` bytes into one block made for them: a big body is one allocation, given
    back whole when it is freed (pieces joined would scatter the heap and stay)."""
    if size <= 1 << 20:
        return await conn.read_exactly(size, BODY_TIMEOUT)
    out = bytearray(size)
    view = memoryview(out)
    filled = 0
    while filled < size:
        if not conn.buffer and not await conn.fill(BODY_TIMEOUT):
            raise EOFError
        part = conn.take(size - filled)
        view[filled : filled + len(part)] = part
        filled += len(part)
    view.release()
    return bytes(out)


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
