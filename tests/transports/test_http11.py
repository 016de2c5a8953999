"""The lean HTTP/1.1 transport against scripted servers: framing, keep-alive, failures.

A scripted server is a raw asyncio TCP server whose handler writes exactly the bytes a
test wants (what a real server library would not produce: early closes, 1xx, bad heads).
The transport's ordinary path is also exercised by every Streamable HTTP and SSE test.
"""

from __future__ import annotations

import asyncio
import gzip
from collections.abc import AsyncIterator, Awaitable, Callable

import httpx
import pytest

from inspector.transports import http11
from inspector.transports.http11 import Http11Transport, lean_mounts

Handler = Callable[[asyncio.StreamReader, asyncio.StreamWriter, int], Awaitable[None]]


class Scripted:
    """A TCP server on the loopback; ``connections`` counts accepted connections."""

    def __init__(self, handler: Handler) -> None:
        self.handler = handler
        self.connections = 0
        self.requests: list[bytes] = []
        self.server: asyncio.Server | None = None

    async def __aenter__(self) -> Scripted:
        self.server = await asyncio.start_server(self._serve, "127.0.0.1", 0)
        return self

    async def __aexit__(self, *exc: object) -> None:
        assert self.server is not None
        self.server.close()

    @property
    def url(self) -> str:
        assert self.server is not None
        return f"http://127.0.0.1:{self.server.sockets[0].getsockname()[1]}/mcp"

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.connections += 1
        try:
            await self.handler(reader, writer, self.connections)
        except (ConnectionError, asyncio.IncompleteReadError):
            pass
        finally:
            writer.close()

    async def read_request(self, reader: asyncio.StreamReader) -> bytes:
        """One request (head and Content-Length or chunked body), as bytes."""
        head = await reader.readuntil(b"\r\n\r\n")
        body = b""
        lower = head.lower()
        if b"transfer-encoding: chunked" in lower:
            while True:  # kept as framed on the wire
                size_line = await reader.readuntil(b"\r\n")
                size = int(size_line.strip(), 16)
                body += size_line + await reader.readexactly(size + 2)
                if size == 0:
                    break
        elif b"content-length:" in lower:
            length = int(lower.split(b"content-length:", 1)[1].split(b"\r\n", 1)[0])
            body = await reader.readexactly(length)
        self.requests.append(head + body)
        return head + body


def ok(body: bytes, extra: bytes = b"") -> bytes:
    return b"HTTP/1.1 200 OK\r\nContent-Length: %d\r\n%b\r\n%b" % (len(body), extra, body)


@pytest.fixture
async def client() -> AsyncIterator[httpx.AsyncClient]:
    async with httpx.AsyncClient(transport=Http11Transport(), timeout=5) as c:
        yield c


async def test_content_length_responses_reuse_one_connection(client: httpx.AsyncClient) -> None:
    async def handler(reader: asyncio.StreamReader, writer: asyncio.StreamWriter, n: int) -> None:
        while True:
            request = await server.read_request(reader)
            writer.write(ok(b'{"echo": %d}' % len(request)))
            await writer.drain()

    async with Scripted(handler) as server:
        for _ in range(3):
            response = await client.post(server.url, content=b'{"a": 1}')
            assert response.status_code == 200
            assert response.json()["echo"] > 0
        assert server.connections == 1
        assert server.requests[0].startswith(b"POST /mcp HTTP/1.1\r\n")
        assert server.requests[0].endswith(b'\r\n\r\n{"a": 1}')
        assert b"\r\ncontent-length: 8\r\n" in server.requests[0].lower()


async def test_chunked_both_ways_with_trailer(client: httpx.AsyncClient) -> None:
    async def handler(reader: asyncio.StreamReader, writer: asyncio.StreamWriter, n: int) -> None:
        await server.read_request(reader)
        writer.write(
            b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
            b"5\r\nhello\r\n7;ext=1\r\n, world\r\n0\r\nX-Trailer: t\r\n\r\n"
        )
        await writer.drain()
        await server.read_request(reader)  # the connection was kept for the next one
        writer.write(ok(b"again"))
        await writer.drain()

    async def body() -> AsyncIterator[bytes]:
        yield b"part one "
        yield b"part two"

    async with Scripted(handler) as server:
        response = await client.post(server.url, content=body())
        assert response.text == "hello, world"
        assert (await client.get(server.url)).text == "again"
        assert server.connections == 1
        assert server.requests[0].endswith(b"9\r\npart one \r\n8\r\npart two\r\n0\r\n\r\n")


async def test_body_to_the_end_of_the_connection(client: httpx.AsyncClient) -> None:
    async def handler(reader: asyncio.StreamReader, writer: asyncio.StreamWriter, n: int) -> None:
        await server.read_request(reader)
        writer.write(b"HTTP/1.0 200 OK\r\nContent-Type: text/plain\r\n\r\nno length, ")
        await writer.drain()
        writer.write(b"read until close %d" % n)
        await writer.drain()

    async with Scripted(handler) as server:
        assert (await client.get(server.url)).text == "no length, read until close 1"
        assert (await client.get(server.url)).text == "no length, read until close 2"
        assert server.connections == 2


async def test_an_http10_answer_closes_unless_it_keeps_alive(client: httpx.AsyncClient) -> None:
    async def handler(reader: asyncio.StreamReader, writer: asyncio.StreamWriter, n: int) -> None:
        while True:
            await server.read_request(reader)
            keep = b"Connection: keep-alive\r\n" if n == 2 else b""
            writer.write(b"HTTP/1.0 200 OK\r\nContent-Length: 1\r\n%b\r\n%d" % (keep, n))
            await writer.drain()

    async with Scripted(handler) as server:
        first = await client.get(server.url)
        assert (first.text, first.http_version) == ("1", "HTTP/1.0")
        assert [(await client.get(server.url)).text for _ in range(2)] == ["2", "2"]
        assert server.connections == 2


async def test_informational_responses_are_skipped_and_empty_bodies_known(
    client: httpx.AsyncClient,
) -> None:
    async def handler(reader: asyncio.StreamReader, writer: asyncio.StreamWriter, n: int) -> None:
        await server.read_request(reader)
        writer.write(b"HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 103 Early Hints\r\nLink: x\r\n\r\n")
        writer.write(ok(b"final"))
        await server.read_request(reader)
        writer.write(b"HTTP/1.1 204 No Content\r\n\r\n")
        await server.read_request(reader)
        writer.write(b"HTTP/1.1 200 OK\r\nContent-Length: 99\r\n\r\n")  # HEAD: no body
        await server.read_request(reader)
        writer.write(b"HTTP/1.1 202 Accepted\r\nContent-Length: 0\r\n\r\n")
        await writer.drain()

    async with Scripted(handler) as server:
        first = await client.post(server.url, content=b"{}")
        assert (first.status_code, first.text, first.reason_phrase) == (200, "final", "OK")
        assert (await client.post(server.url, content=b"{}")).status_code == 204
        head = await client.head(server.url)
        assert (head.status_code, head.content) == (200, b"")
        assert (await client.post(server.url, content=b"{}")).status_code == 202
        assert server.connections == 1


async def test_a_dropped_idle_connection_is_replaced(client: httpx.AsyncClient) -> None:
    async def handler(reader: asyncio.StreamReader, writer: asyncio.StreamWriter, n: int) -> None:
        await server.read_request(reader)
        writer.write(ok(b"answer %d" % n))
        await writer.drain()
        # kept alive by the headers, then closed before the next request is read

    async with Scripted(handler) as server:
        assert (await client.post(server.url, content=b"1")).text == "answer 1"
        await asyncio.sleep(0.05)  # the close has arrived: the idle connection is seen closed
        assert (await client.post(server.url, content=b"2")).text == "answer 2"
        assert server.connections == 2


async def test_a_reused_connection_closed_unanswered_is_retried_once(
    client: httpx.AsyncClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The race a keep-alive client cannot see coming: the server closes the idle
    connection as the request goes out. Nothing came back, so it is sent anew."""

    async def handler(reader: asyncio.StreamReader, writer: asyncio.StreamWriter, n: int) -> None:
        await server.read_request(reader)
        if n == 1:
            writer.write(ok(b"first"))
            await writer.drain()
            await reader.readuntil(b"\r\n\r\n")  # the second request: dropped, unanswered
            return
        writer.write(ok(b"second, on connection %d" % n))
        await writer.drain()

    async with Scripted(handler) as server:
        assert (await client.post(server.url, content=b"1")).text == "first"
        assert (await client.get(server.url)).text == "second, on connection 2"


async def test_a_new_connection_closed_unanswered_is_an_error(client: httpx.AsyncClient) -> None:
    async def handler(reader: asyncio.StreamReader, writer: asyncio.StreamWriter, n: int) -> None:
        await server.read_request(reader)

    async with Scripted(handler) as server:
        with pytest.raises(httpx.RemoteProtocolError, match="without sending a response"):
            await client.post(server.url, content=b"{}")
        assert server.connections == 1


async def test_a_body_cut_short_is_an_error(client: httpx.AsyncClient) -> None:
    async def handler(reader: asyncio.StreamReader, writer: asyncio.StreamWriter, n: int) -> None:
        await server.read_request(reader)
        writer.write(b"HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\nonly this")
        await writer.drain()

    async with Scripted(handler) as server:
        with pytest.raises(httpx.RemoteProtocolError, match="received 9 bytes, expected 100"):
            await client.get(server.url)


async def test_a_malformed_head_is_an_error(client: httpx.AsyncClient) -> None:
    async def handler(reader: asyncio.StreamReader, writer: asyncio.StreamWriter, n: int) -> None:
        await server.read_request(reader)
        writer.write(b"SPDY/3 200 OK\r\n\r\n")
        await writer.drain()

    async with Scripted(handler) as server:
        with pytest.raises(httpx.RemoteProtocolError, match=r"not an HTTP/1\.x status line"):
            await client.get(server.url)


async def test_timeouts_and_refusals_are_httpx_errors() -> None:
    async def handler(reader: asyncio.StreamReader, writer: asyncio.StreamWriter, n: int) -> None:
        await server.read_request(reader)
        await asyncio.sleep(5)

    async with Scripted(handler) as server:
        url = server.url
        async with httpx.AsyncClient(transport=Http11Transport(), timeout=0.2) as client:
            with pytest.raises(httpx.ReadTimeout):
                await client.get(url)
    async with httpx.AsyncClient(transport=Http11Transport(), timeout=2) as client:
        with pytest.raises(httpx.ConnectError):
            await client.get(url)  # the server is gone: refused


async def test_a_header_with_a_line_break_is_refused(client: httpx.AsyncClient) -> None:
    with pytest.raises(httpx.LocalProtocolError):
        await client.get("http://127.0.0.1:9/", headers={"X-Evil": "a\r\nInjected: yes"})


async def test_a_large_body_passes_with_reading_paused_and_resumed(
    client: httpx.AsyncClient,
) -> None:
    payload = bytes(range(256)) * (5 * 4096)  # 5 MB, past the read buffer's high mark

    async def handler(reader: asyncio.StreamReader, writer: asyncio.StreamWriter, n: int) -> None:
        await server.read_request(reader)
        writer.write(ok(payload))
        await writer.drain()

    async with Scripted(handler) as server:
        async with client.stream("GET", server.url) as response:
            received = bytearray()
            async for part in response.aiter_raw():
                received += part
                await asyncio.sleep(0)  # a slow reader: the socket is paused meanwhile
        assert bytes(received) == payload


async def test_a_body_left_unread_closes_its_connection(client: httpx.AsyncClient) -> None:
    async def handler(reader: asyncio.StreamReader, writer: asyncio.StreamWriter, n: int) -> None:
        while True:
            await server.read_request(reader)
            writer.write(b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nstart")
            await writer.drain()
            await asyncio.sleep(0.05)  # the rest comes after the client gave up
            writer.write(b"\r\n4\r\nrest\r\n0\r\n\r\n")
            await writer.drain()

    async with Scripted(handler) as server:
        for _ in range(2):
            async with client.stream("GET", server.url) as response:
                async for part in response.aiter_raw():
                    assert part == b"start"
                    break  # given up on: the rest of this body must not meet the next request
        assert server.connections == 2


async def test_the_trace_extension_says_when_the_body_is_sent(client: httpx.AsyncClient) -> None:
    seen: list[str] = []

    async def trace(name: str, info: dict[str, object]) -> None:
        seen.append(name)

    async def handler(reader: asyncio.StreamReader, writer: asyncio.StreamWriter, n: int) -> None:
        await server.read_request(reader)
        writer.write(ok(b""))
        await writer.drain()

    async with Scripted(handler) as server:
        await client.post(server.url, content=b"{}", extensions={"trace": trace})
        assert seen == ["http11.send_request_body.complete"]


async def test_an_idle_connection_past_its_expiry_is_not_reused(
    client: httpx.AsyncClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(http11, "KEEPALIVE_EXPIRY", 0.05)

    async def handler(reader: asyncio.StreamReader, writer: asyncio.StreamWriter, n: int) -> None:
        while True:
            await server.read_request(reader)
            writer.write(ok(b"%d" % n))
            await writer.drain()

    async with Scripted(handler) as server:
        assert (await client.get(server.url)).text == "1"
        await asyncio.sleep(0.1)
        assert (await client.get(server.url)).text == "2"


def test_an_environment_proxy_keeps_httpx_transport(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("HTTP_PROXY", "http_proxy", "ALL_PROXY", "all_proxy"):
        monkeypatch.delenv(name, raising=False)
    assert set(lean_mounts()) == {"http://"}
    monkeypatch.setenv("HTTP_PROXY", "http://proxy.example:3128")
    assert lean_mounts() == {}
    monkeypatch.delenv("HTTP_PROXY")
    monkeypatch.setenv("ALL_PROXY", "http://proxy.example:3128")
    assert lean_mounts() == {}


async def test_read_body_gives_what_aread_gives(client: httpx.AsyncClient) -> None:
    """``read_body`` reads this transport's bodies itself (chunked, by length, to the end;
    the connection back in the pool) and leaves a Content-Encoding to httpx."""
    packed = gzip.compress(b"unpacked by httpx")
    answers = [
        ok(b'{"small": "body in one piece"}'),
        b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n2\r\nde\r\n0\r\n\r\n",
        ok(packed, b"Content-Encoding: gzip\r\n"),
        b"HTTP/1.1 200 OK\r\nConnection: close\r\n\r\nto the end",
    ]

    async def handler(reader: asyncio.StreamReader, writer: asyncio.StreamWriter, n: int) -> None:
        while answers:
            await server.read_request(reader)
            writer.write(answers.pop(0))
            await writer.drain()

    async with Scripted(handler) as server:
        read = []
        for _ in range(4):
            async with client.stream("POST", server.url, content=b"{}") as response:
                read.append(await http11.read_body(response))
        assert read == [
            b'{"small": "body in one piece"}',
            b"abcde",
            b"unpacked by httpx",
            b"to the end",
        ]
        assert server.connections == 1  # each body read to its end: the connection kept
