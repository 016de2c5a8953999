"""A lean HTTP/1.1 transport for httpx, for plain ``http://`` on asyncio.

Why our own: httpx's default transport (httpcore over anyio sockets) spends most of a
small request's client time outside the exchange itself. Its pool checks every idle
connection with a poll and a ``getpeername`` on each request and each release, and each
socket read and write passes anyio checkpoints. For the proxy's relay to a local server
that was about 60 % of the proxy's CPU per call. Here a connection is an asyncio
protocol: arriving bytes are buffered by the event loop as they come, so "has the server
closed this idle connection?" is a flag, and a write is one ``transport.write``.

Scope, kept small on purpose:
- ``http://`` only. TLS (certificates, ``verify``), proxies and HTTP/2 stay with httpx's
  own transport (``lean_mounts`` is not used when an environment proxy applies).
- One request at a time a connection; keep-alive with a LIFO idle list an origin; an idle
  connection older than ``KEEPALIVE_EXPIRY`` is not reused (servers commonly drop them at
  5 s); a reused connection that the server closed before answering is retried once on
  a new one (nothing of the request was processed: no byte came back).
- Bodies by Content-Length, chunked, or to the end of the connection; 1xx skipped; no
  body for HEAD, 204 and 304. httpx itself decodes Content-Encoding.
- httpx's timeouts (connect, read, write, pool) and its exceptions, so callers see the
  same failures as with the default transport; the ``trace`` extension reports
  ``http11.send_request_body.complete``.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
import urllib.request
from collections.abc import AsyncIterable, AsyncIterator
from typing import cast

import httpx

from inspector.transports.aioconn import LimitExceeded, StreamProtocol
from inspector.transports.readsize import read_in_heap_sized_chunks

KEEPALIVE_EXPIRY = 4.0  # seconds idle after which a connection is not reused
MAX_IDLE_PER_ORIGIN = 20
MAX_CONNECTIONS = 100
MAX_HEAD = 64 << 10
CHUNK = 64 << 10  # the most one body chunk carries to httpx

Origin = tuple[str, int]


def lean_mounts() -> dict[str, httpx.AsyncBaseTransport]:
    """httpx ``mounts`` that send ``http://`` through ``Http11Transport``; none when an
    environment proxy applies to http (httpx then routes it through the proxy)."""
    proxies = urllib.request.getproxies_environment()
    if "http" in proxies or "all" in proxies:
        return {}
    return {"http://": Http11Transport()}


class _Connection(StreamProtocol):
    """One TCP connection to a server: a stream protocol that knows when it went idle."""

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        super().__init__(loop)
        self.idle_since = 0.0

    @property
    def reusable(self) -> bool:
        """Idle, open, nothing unasked-for arrived, and not idle for too long."""
        return (
            not self.closed
            and not self.buffer
            and time.monotonic() - self.idle_since < KEEPALIVE_EXPIRY
        )

    async def read_until(self, delimiter: bytes, limit: int, timeout: float | None) -> bytes:
        try:
            return await super().read_until(delimiter, limit, timeout)
        except LimitExceeded:
            raise httpx.RemoteProtocolError(f"a response line or head over {limit} bytes") from None


class Http11Transport(httpx.AsyncBaseTransport):
    """HTTP/1.1 over asyncio connections with keep-alive (see the module docstring)."""

    def __init__(self) -> None:
        self._idle: dict[Origin, list[_Connection]] = {}
        self._all: set[_Connection] = set()
        self._slots = asyncio.Semaphore(MAX_CONNECTIONS)
        self._fallback: httpx.AsyncHTTPTransport | None = None
        self._header_blocks: HeaderBlocks = {}

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:  # not on asyncio (trio): httpx's own transport
            if self._fallback is None:
                self._fallback = httpx.AsyncHTTPTransport()
            return await self._fallback.handle_async_request(request)
        if request.url.scheme != "http":
            raise httpx.UnsupportedProtocol(
                f"the lean HTTP/1.1 transport carries http:// only, not {request.url.scheme}",
                request=request,
            )
        timeouts: dict[str, float | None] = request.extensions.get("timeout", {})
        head, body_parts = await _encode_request(request, self._header_blocks)
        await self._acquire(timeouts.get("pool"), request)
        try:
            return await self._exchange(loop, request, head, body_parts, timeouts)
        except BaseException:
            self._slots.release()
            raise

    async def _acquire(self, timeout: float | None, request: httpx.Request) -> None:
        if not self._slots.locked():
            await self._slots.acquire()
            return
        try:
            async with asyncio.timeout(timeout):
                await self._slots.acquire()
        except TimeoutError:
            raise httpx.PoolTimeout(
                f"no free connection within {timeout:g} s", request=request
            ) from None

    async def _exchange(
        self,
        loop: asyncio.AbstractEventLoop,
        request: httpx.Request,
        head: bytes,
        body_parts: list[bytes],
        timeouts: dict[str, float | None],
    ) -> httpx.Response:
        origin: Origin = (request.url.host, request.url.port or 80)
        while True:
            conn, reused = self._idle_connection(origin), True
            if conn is None:
                conn, reused = (
                    await self._connect(loop, origin, timeouts.get("connect"), request),
                    False,
                )
            try:
                await _send(conn, request, head, body_parts, timeouts.get("write"))
                version, status, reason, headers, ascii_head = await _read_head(
                    conn, timeouts.get("read"), request
                )
                body = _Body(self, conn, origin, request, status, headers, timeouts.get("read"))
                body.keep = body.keep and (version != b"HTTP/1.0" or _asks_keep_alive(headers))
            except (EOFError, OSError) as exc:  # OSError: reset, unreachable, broken pipe
                conn.close()
                self._all.discard(conn)
                if reused and not conn.buffer:
                    continue  # the server dropped a kept-alive connection: once more, anew
                if isinstance(exc, EOFError):
                    raise httpx.RemoteProtocolError(
                        "Server disconnected without sending a response.", request=request
                    ) from None
                raise httpx.ReadError(str(exc) or type(exc).__name__, request=request) from exc
            except BaseException:
                conn.close()
                self._all.discard(conn)
                raise
            response = httpx.Response(
                status,
                headers=headers,
                stream=body,
                extensions={"http_version": version, "reason_phrase": reason},
            )
            if ascii_head:  # what httpx would find decoding each header in turn
                response.headers.encoding = "ascii"
            return response

    def _idle_connection(self, origin: Origin) -> _Connection | None:
        idle = self._idle.get(origin)
        while idle:
            conn = idle.pop()
            if conn.reusable:
                return conn
            conn.close()
            self._all.discard(conn)
        return None

    async def _connect(
        self,
        loop: asyncio.AbstractEventLoop,
        origin: Origin,
        timeout: float | None,
        request: httpx.Request,
    ) -> _Connection:
        host, port = origin
        try:
            async with asyncio.timeout(timeout):
                read_in_heap_sized_chunks()
                _, conn = await loop.create_connection(lambda: _Connection(loop), host, port)
        except TimeoutError:
            raise httpx.ConnectTimeout(
                f"timed out connecting to {host}:{port}", request=request
            ) from None
        except OSError as exc:
            raise httpx.ConnectError(str(exc) or type(exc).__name__, request=request) from exc
        self._all.add(conn)
        return conn

    def release(self, conn: _Connection, origin: Origin, keep: bool) -> None:
        """A response is done with its connection: kept for the next request, or closed."""
        self._slots.release()
        idle = self._idle.setdefault(origin, [])
        if keep and not conn.closed and not conn.buffer and len(idle) < MAX_IDLE_PER_ORIGIN:
            conn.idle_since = time.monotonic()
            idle.append(conn)
            return
        conn.close()
        self._all.discard(conn)

    async def aclose(self) -> None:
        for conn in self._all:
            conn.close()
        self._all.clear()
        self._idle.clear()
        if self._fallback is not None:
            await self._fallback.aclose()


HeaderBlocks = dict[tuple[tuple[bytes, bytes], ...], tuple[bytes, bool]]
HEADER_BLOCKS_KEPT = 64  # header sets whose encoding is remembered (a session repeats its own)


async def _encode_request(
    request: httpx.Request, blocks: HeaderBlocks | None = None
) -> tuple[bytes, list[bytes]]:
    """The request head and its body, framed (chunked when httpx said so). ``blocks``:
    the header lines of header sets already checked and encoded."""
    raw = tuple(request.headers.raw)
    known = blocks.get(raw) if blocks is not None else None
    if known is None:
        known = _header_block(request, raw)
        if blocks is not None:
            if len(blocks) >= HEADER_BLOCKS_KEPT:
                blocks.clear()
            blocks[raw] = known
    block, chunked = known
    line = b"%s %s HTTP/1.1\r\n" % (request.method.encode("ascii"), request.url.raw_path)
    parts: list[bytes] = []
    # an httpx.AsyncClient's request streams are async (no isinstance: an ABC check costs)
    stream = cast(AsyncIterable[bytes], request.stream)
    async for part in stream:
        if part:
            parts.append(b"%x\r\n%b\r\n" % (len(part), part) if chunked else part)
    if chunked:
        parts.append(b"0\r\n\r\n")
    return line + block, parts


def _header_block(
    request: httpx.Request, raw: tuple[tuple[bytes, bytes], ...]
) -> tuple[bytes, bool]:
    """The header lines (with the empty line that ends them), checked, and whether the
    body is chunked."""
    lines: list[bytes] = []
    chunked = False
    for name, value in raw:
        if b"\r" in value or b"\n" in value or b"\r" in name or b"\n" in name or b":" in name:
            raise httpx.LocalProtocolError(f"illegal header {name!r}", request=request)
        if name.lower() == b"transfer-encoding" and b"chunked" in value.lower():
            chunked = True
        lines.append(name + b": " + value + b"\r\n")
    lines.append(b"\r\n")
    return b"".join(lines), chunked


async def _send(
    conn: _Connection,
    request: httpx.Request,
    head: bytes,
    body_parts: list[bytes],
    timeout: float | None,
) -> None:
    try:
        # head and a small body in one write: one segment, one syscall
        await conn.write(head + b"".join(body_parts), timeout)
    except TimeoutError:
        raise httpx.WriteTimeout("timed out sending the request", request=request) from None
    trace = request.extensions.get("trace")
    if trace is not None:
        await trace("http11.send_request_body.complete", {"request": request})


async def _read_head(
    conn: _Connection, timeout: float | None, request: httpx.Request
) -> tuple[bytes, int, bytes, list[tuple[bytes, bytes]], bool]:
    """The HTTP version, status, reason and headers of the final (non-1xx) response, and
    whether its head is all ASCII."""
    while True:
        try:
            raw = await conn.read_until(b"\r\n\r\n", MAX_HEAD, timeout)
        except TimeoutError:
            raise httpx.ReadTimeout("timed out waiting for the response", request=request) from None
        lines = raw[:-4].split(b"\r\n")
        status_line = lines[0].split(b" ", 2)
        if len(status_line) < 2 or not status_line[0].startswith(b"HTTP/1."):
            raise httpx.RemoteProtocolError(
                f"not an HTTP/1.x status line: {lines[0][:80]!r}", request=request
            )
        try:
            status = int(status_line[1])
        except ValueError:
            raise httpx.RemoteProtocolError(
                f"bad status in {lines[0][:80]!r}", request=request
            ) from None
        headers: list[tuple[bytes, bytes]] = []
        for line in lines[1:]:
            name, sep, value = line.partition(b":")
            if not sep or not name or name != name.strip() or line[:1] in (b" ", b"\t"):
                raise httpx.RemoteProtocolError(
                    f"malformed response header line {line[:80]!r}", request=request
                )
            headers.append((name, value.strip()))
        if 100 <= status < 200 and status != 101:
            continue  # informational (100 Continue, 103 Early Hints): the answer follows
        reason = status_line[2] if len(status_line) > 2 else b""
        return status_line[0], status, reason, headers, raw.isascii()


def _asks_keep_alive(headers: list[tuple[bytes, bytes]]) -> bool:
    """An HTTP/1.0 response keeps its connection only when it says so."""
    return any(
        name.lower() == b"connection" and b"keep-alive" in value.lower() for name, value in headers
    )


class _Body(httpx.AsyncByteStream):
    """A response body read from its connection; the connection goes back to the pool
    when the body was read to its end and both sides allow keep-alive."""

    def __init__(
        self,
        transport: Http11Transport,
        conn: _Connection,
        origin: Origin,
        request: httpx.Request,
        status: int,
        headers: list[tuple[bytes, bytes]],
        timeout: float | None,
    ) -> None:
        self.transport = transport
        self.conn = conn
        self.origin = origin
        self.request = request
        self.timeout = timeout
        self.complete = False
        self.released = False
        length: int | None = None
        chunked = False
        keep = True
        for name, value in headers:
            lower = name.lower()
            if lower == b"content-length":
                try:
                    length = int(value)
                except ValueError:
                    raise httpx.RemoteProtocolError(
                        f"bad Content-Length {value[:40]!r}", request=request
                    ) from None
            elif lower == b"transfer-encoding":
                chunked = b"chunked" in value.lower()
            elif lower == b"connection":
                keep = b"close" not in value.lower()
        if request.headers.get("connection", "").lower() == "close":
            keep = False
        if request.method == "HEAD" or status in (204, 304):
            length, chunked = 0, False
        self.length = None if chunked else length
        self.chunked = chunked
        self.keep = keep and (chunked or length is not None)  # else: read to the end

    async def read_all(self) -> bytes:
        """The whole body, read straight from the connection (``read_body``)."""
        return b"".join([part async for part in self])

    async def __aiter__(self) -> AsyncIterator[bytes]:
        if self.complete:
            return
        try:
            if self.chunked:
                async for part in self._chunks():
                    yield part
            elif self.length is not None:
                remaining = self.length
                while remaining:
                    if not self.conn.buffer and not await self.conn.fill(self.timeout):
                        raise httpx.RemoteProtocolError(
                            "peer closed connection without sending complete message body: "
                            f"received {self.length - remaining} bytes, expected {self.length}",
                            request=self.request,
                        )
                    part = self.conn.take(min(remaining, CHUNK))
                    remaining -= len(part)
                    yield part
            else:
                while True:
                    if self.conn.buffer:
                        yield self.conn.take(CHUNK)
                    elif not await self.conn.fill(self.timeout):
                        break
            self.complete = True
        except TimeoutError:
            raise httpx.ReadTimeout(
                "timed out reading the response body", request=self.request
            ) from None
        except EOFError:
            raise httpx.RemoteProtocolError(
                "peer closed connection without sending complete message body: "
                "incomplete chunked read",
                request=self.request,
            ) from None
        except OSError as exc:
            raise httpx.ReadError(str(exc) or type(exc).__name__, request=self.request) from exc
        finally:
            if self.complete:
                self._release()

    async def _chunks(self) -> AsyncIterator[bytes]:
        conn, timeout = self.conn, self.timeout
        while True:
            line = await conn.read_until(b"\r\n", MAX_HEAD, timeout)
            try:
                size = int(line.split(b";", 1)[0].strip() or b"x", 16)
            except ValueError:
                raise httpx.RemoteProtocolError(
                    f"bad chunk size line {line[:40]!r}", request=self.request
                ) from None
            if size == 0:
                while await conn.read_until(b"\r\n", MAX_HEAD, timeout) != b"\r\n":
                    pass  # trailer fields, not kept
                return
            while size:
                if not conn.buffer and not await conn.fill(timeout):
                    raise EOFError
                part = conn.take(min(size, CHUNK))
                size -= len(part)
                yield part
            if await conn.read_exactly(2, timeout) != b"\r\n":
                raise httpx.RemoteProtocolError("a chunk not ended by CRLF", request=self.request)

    def _release(self) -> None:
        if not self.released:
            self.released = True
            self.transport.release(self.conn, self.origin, self.keep and self.complete)

    async def aclose(self) -> None:
        with contextlib.suppress(Exception):
            self._release()


async def read_body(response: httpx.Response) -> bytes:
    """``response.aread()``, without httpx's layers of async iterators (decoding,
    re-chunking) when the body is this transport's and has no Content-Encoding to decode:
    the same bytes, at a fraction of the CPU for the small bodies a relay passes."""
    stream = response.stream
    if (
        type(stream) is _Body
        and not response.is_stream_consumed
        and "content-encoding" not in response.headers
    ):
        response.is_stream_consumed = True
        return await stream.read_all()
    return await response.aread()
