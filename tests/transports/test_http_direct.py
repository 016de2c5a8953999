"""A request POSTed over plain http goes straight to the lean transport, not through
httpx's client (its request building, auth and redirect loops and cookie parsing cost a
tenth of the proxy's CPU per relayed request). What must not change: the bytes the
server gets, the cookies it sets, the redirects it asks for (those are covered by
``test_redirects.py`` and ``test_http_transport.py``, whose servers are plain http)."""

from __future__ import annotations

import asyncio
import json

import anyio
import httpx
from servers.http_support import Host, running

from inspector.transports.http import StreamableHttpTransport
from inspector.wire.jsonrpc import request
from tests.transports.test_http11 import Scripted


def answer(raw_request: bytes, extra: bytes = b"") -> bytes:
    """A JSON-RPC response to the request in ``raw_request``."""
    body = raw_request.split(b"\r\n\r\n", 1)[1]
    reply = json.dumps({"jsonrpc": "2.0", "id": json.loads(body)["id"], "result": {}}).encode()
    return (
        b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: %d\r\n%b\r\n%b"
        % (len(reply), extra, reply)
    )


async def test_the_short_way_sends_the_bytes_the_client_sends() -> None:
    async def handler(reader: asyncio.StreamReader, writer: asyncio.StreamWriter, _: int) -> None:
        for _ in range(2):
            writer.write(answer(await server.read_request(reader)))

    async with Scripted(handler) as server:
        transport = StreamableHttpTransport(server.url, headers={"X-Trace": "t1"})
        with anyio.fail_after(15):
            async with running(transport):
                url = httpx.URL(server.url)
                body = b'{"jsonrpc":"2.0","id":7,"method":"ping"}'
                headers = {"Accept": "application/json", "Content-Type": "application/json"}
                async with transport._streamed_post(url, body, headers) as short:
                    await short.aread()
                lean, transport._lean = transport._lean, None  # the client's own way
                async with transport._streamed_post(url, body, headers) as through_client:
                    await through_client.aread()
                transport._lean = lean
    assert lean is not None
    assert len(server.requests) == 2
    assert server.requests[0] == server.requests[1]  # the same head, the same body
    assert short.status_code == through_client.status_code == 200
    assert short.json() == through_client.json()
    assert short.request.url == through_client.request.url


async def test_a_cookie_the_server_sets_goes_back_with_later_requests() -> None:
    """A server (or the load balancer before it) that keeps its session in a cookie."""

    async def handler(reader: asyncio.StreamReader, writer: asyncio.StreamWriter, _: int) -> None:
        for _ in range(2):
            raw = await server.read_request(reader)
            first = len(server.requests) == 1
            writer.write(answer(raw, b"Set-Cookie: route=b7; Path=/\r\n" if first else b""))

    async with Scripted(handler) as server:
        transport = StreamableHttpTransport(server.url)
        with anyio.fail_after(15):
            async with running(transport, Host()) as host:
                for rid in (1, 2):
                    await transport.send(request(rid, "ping"))
                    await host.wait_response(rid)
    assert b"cookie:" not in server.requests[0].lower()
    assert b"\r\ncookie: route=b7\r\n" in server.requests[1].lower()
