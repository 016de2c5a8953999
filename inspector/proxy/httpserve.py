"""A small HTTP/1.1 server side on anyio streams: what the proxy's Streamable HTTP front needs.

Requests with a body of known length or chunked, keep-alive, responses with a body or
streamed in chunks (server-sent events). The standard library's ``http.server`` blocks a
thread per connection and cannot stream from an event loop; a web framework would be a
new dependency for four methods on one path.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from http import HTTPStatus

import anyio
from anyio.abc import ByteStream
from anyio.streams.buffered import BufferedByteReceiveStream

from inspector.errors import InspectorError

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


async def read_request(reader: BufferedByteReceiveStream) -> Request | None:
    """The next request on a connection; None when the client closed it between requests."""
    try:
        with anyio.fail_after(IDLE_TIMEOUT):
            head = await reader.receive_until(b"\r\n\r\n", MAX_HEAD)
    except (anyio.IncompleteRead, anyio.EndOfStream, anyio.BrokenResourceError, TimeoutError):
        return None
    except anyio.DelimiterNotFound:
        raise HttpError(431, "request head too large") from None
    lines = head.decode("latin-1").split("\r\n")
    parts = lines[0].split(" ")
    if len(parts) != 3 or not parts[2].startswith("HTTP/1."):
        raise HttpError(400, f"not an HTTP/1.x request line: {lines[0][:80]!r}")
    request = Request(parts[0], parts[1], parts[2])
    for line in lines[1:]:
        name, sep, value = line.partition(":")
        if not sep:
            raise HttpError(400, f"malformed header line: {line[:80]!r}")
        request.headers[name.strip().lower()] = value.strip()
    request.body = await _read_body(reader, request.headers)
    return request


async def _read_body(reader: BufferedByteReceiveStream, headers: dict[str, str]) -> bytes:
    try:
        if "chunked" in headers.get("transfer-encoding", "").lower():
            body = bytearray()
            while True:
                size_line = await reader.receive_until(b"\r\n", 1024)
                size = int(size_line.split(b";", 1)[0].strip() or b"0", 16)
                if size == 0:
                    await reader.receive_until(b"\r\n", MAX_HEAD)  # the (empty) trailer
                    return bytes(body)
                if len(body) + size > MAX_BODY:
                    raise HttpError(413, "request body too large")
                body += await reader.receive_exactly(size)
                await reader.receive_exactly(2)
        length = int(headers.get("content-length") or 0)
    except ValueError:
        raise HttpError(400, "bad Content-Length or chunk size") from None
    except (anyio.IncompleteRead, anyio.EndOfStream, anyio.DelimiterNotFound):
        raise HttpError(400, "the request body ended early") from None
    if length > MAX_BODY:
        raise HttpError(413, "request body too large")
    if length == 0:
        return b""
    try:
        return await reader.receive_exactly(length)
    except (anyio.IncompleteRead, anyio.EndOfStream):
        raise HttpError(400, "the request body ended early") from None


def _head(status: int, headers: dict[str, str]) -> bytes:
    reason = HTTPStatus(status).phrase if status in HTTPStatus._value2member_map_ else ""
    lines = [f"HTTP/1.1 {status} {reason}"]
    lines += [f"{name}: {value}" for name, value in headers.items()]
    return ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1")


async def respond(
    stream: ByteStream,
    status: int,
    body: bytes = b"",
    content_type: str | None = "application/json",
    headers: dict[str, str] | None = None,
) -> None:
    """A whole response."""
    all_headers = dict(headers or {})
    if body and content_type:
        all_headers["Content-Type"] = content_type
    all_headers["Content-Length"] = str(len(body))
    await stream.send(_head(status, all_headers) + body)


class ChunkedResponse:
    """A streamed response (``Transfer-Encoding: chunked``): the head, chunks, the end;
    each as bytes, so a caller can write several in one go."""

    END = b"0\r\n\r\n"

    def __init__(self, stream: ByteStream) -> None:
        self.stream = stream

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
