"""Legacy HTTP+SSE transport and auto-detection: the official SDK's legacy server,
server-everything's sse mode, and scripted servers for the endpoint edge cases."""

from __future__ import annotations

from typing import Any

import anyio
import pytest
from servers.http_scripted import Conn, Request, ScriptedServer, answer_basics, init_result, ok
from servers.http_support import everything_server, initialize, running, tool_text

from inspector.engine.client import McpClient
from inspector.engine.session import ConnectionClosedError, Session
from inspector.transports.detect import AutoHttpTransport, connect_http
from inspector.transports.http import HTTP_ERROR, StreamableHttpTransport
from inspector.transports.sse import SseTransport
from inspector.wire.events import Channel, Direction
from inspector.wire.jsonrpc import request
from inspector.wire.transport import TransportError


def legacy_handler(endpoint: str, *, on_post: Any = None) -> Any:
    """A legacy server: GET /sse sends ``endpoint`` then answers POSTs on the stream."""
    outbox: list[Any] = []
    wake = anyio.Event()

    async def handler(req: Request, conn: Conn) -> None:
        nonlocal wake
        if req.method == "GET":
            await conn.start_sse()
            await conn.event(endpoint, event="endpoint")
            while True:
                while outbox:
                    await conn.event(outbox.pop(0), event="message")
                await wake.wait()
                wake = anyio.Event()
        msg = req.json()
        if on_post is not None and await on_post(req, conn):
            return
        await conn.respond(202, "Accepted")
        if "id" in msg and "method" in msg:
            result = init_result("2024-11-05") if msg["method"] == "initialize" else {"echo": 1}
            outbox.append(ok(req, result))
            wake.set()

    return handler


@pytest.mark.slow
async def test_sdk_legacy_server_through_session(sdk_legacy_base: str) -> None:
    base = sdk_legacy_base  # the worker's shared server (conftest)
    events: list[Any] = []
    session = Session(SseTransport(base + "/sse"))
    session.add_observer(events.append)
    with anyio.fail_after(30):
        async with session:
            await session.initialize()
            client = McpClient(session)
            assert "add" in {t["name"] for t in await client.list_tools()}
            assert tool_text(await client.call_tool("add", {"a": 20, "b": 22})) == "42"
    endpoint = next(e for e in events if e.meta.get("sse") == "endpoint")
    assert endpoint.channel is Channel.HTTP
    assert endpoint.meta["endpoint"].startswith(base + "/messages/?session_id=")
    posts = [
        e
        for e in events
        if e.channel is Channel.HTTP and e.direction is Direction.OUT and e.meta["method"] == "POST"
    ]
    assert posts and all(e.meta["url"] == endpoint.meta["endpoint"] for e in posts)
    accepted = [e for e in events if e.channel is Channel.HTTP and e.meta.get("status") == 202]
    assert accepted and accepted[0].meta["body"] == "Accepted"
    replies = [e for e in events if e.channel is Channel.SSE and e.direction is Direction.IN]
    assert replies and all(e.meta["event_type"] == "message" for e in replies)


@pytest.mark.slow
async def test_everything_server_legacy_sse() -> None:
    with everything_server("sse") as base:
        session = Session(SseTransport(base + "/sse"))
        with anyio.fail_after(60):
            async with session:
                await session.initialize()
                client = McpClient(session)
                echoed = await client.call_tool("echo", {"message": "over sse"})
                assert "over sse" in tool_text(echoed)


async def test_relative_endpoint_resolution_and_headers() -> None:
    async with ScriptedServer(legacy_handler("messages?sid=42"), path="/base/sse") as server:
        transport = SseTransport(server.url, headers={"Authorization": "Bearer t0k"})
        with anyio.fail_after(15):
            async with running(transport) as host:
                await transport.send(initialize(1))
                assert "result" in await host.wait_response(1)
        post = server.posts()[0]
        assert post.path == "/base/messages?sid=42"  # resolved against the SSE URL
        assert post.headers["authorization"] == "Bearer t0k"
        assert post.headers["content-type"] == "application/json"
        assert server.gets()[0].headers["accept"] == "text/event-stream"
    assert str(transport.endpoint) == f"{server.base}/base/messages?sid=42"


async def test_endpoint_on_another_origin_is_refused() -> None:
    handler = legacy_handler("http://evil.example:9999/messages")
    async with ScriptedServer(handler, path="/sse") as server:
        session = Session(SseTransport(server.url))
        with anyio.fail_after(15):
            async with session:
                with pytest.raises(ConnectionClosedError, match="points to another origin"):
                    await session.initialize()
        assert not server.posts()


async def test_no_endpoint_event_within_the_timeout() -> None:
    async def handler(req: Request, conn: Conn) -> None:
        await conn.start_sse()
        await conn.write(": keep-alive\n\n")
        await conn.hang()

    async with ScriptedServer(handler, path="/sse") as server:
        transport = SseTransport(server.url, timeout=0.5)
        with anyio.fail_after(15):
            async with running(transport) as host:
                await transport.send(initialize(1))
    assert host.lost is not None and "no endpoint event within 0.5 s" in host.lost.message
    assert any(e.meta.get("sse") == "comment" for e in host.events)


@pytest.mark.parametrize(
    ("status", "ctype", "needle"),
    [
        (404, "text/plain", "no SSE endpoint at"),
        (405, "text/plain", "may be a Streamable HTTP endpoint (try the http transport)"),
        (401, "text/plain", "needs authorization"),
        (200, "application/json", "not an SSE stream (text/event-stream)"),
    ],
)
async def test_get_failures_are_clear(status: int, ctype: str, needle: str) -> None:
    async def handler(req: Request, conn: Conn) -> None:
        await conn.respond(status, "{}", {"Content-Type": ctype})

    async with ScriptedServer(handler, path="/sse") as server:
        transport = SseTransport(server.url)
        with anyio.fail_after(15):
            async with running(transport) as host:
                await host.wait(lambda: host.lost)
    assert host.lost is not None and needle in host.lost.message


async def test_stream_closed_by_the_server_ends_the_session() -> None:
    async def handler(req: Request, conn: Conn) -> None:
        if req.method == "GET":
            await conn.start_sse()
            await conn.event("/messages", event="endpoint")
            await conn.write('event: message\ndata: {"jsonrpc":"2.0","method":"notif')
            return  # cut mid-event, then closed

    async with ScriptedServer(handler, path="/sse") as server:
        transport = SseTransport(server.url)
        with anyio.fail_after(15):
            async with running(transport) as host:
                await host.wait(lambda: host.lost)
    assert host.lost is not None and "the server closed the SSE stream" in host.lost.message
    cut = next(e for e in host.on(Channel.SSE) if e.error)
    assert "middle of this event" in cut.error


async def test_failed_post_fails_that_request_only() -> None:
    async def on_post(req: Request, conn: Conn) -> bool:
        if req.rpc_method == "tools/list":
            await conn.respond(500, "kaboom")
            return True
        return False

    async with ScriptedServer(legacy_handler("/messages", on_post=on_post), path="/sse") as server:
        transport = SseTransport(server.url)
        with anyio.fail_after(15):
            async with running(transport) as host:
                await transport.send(initialize(1))
                await host.wait_response(1)
                await transport.send(request(2, "tools/list"))
                reply = await host.wait_response(2)
                await transport.send(request(3, "ping"))
                assert "result" in await host.wait_response(3)
    assert reply["error"]["code"] == HTTP_ERROR
    assert reply["error"]["message"].startswith("HTTP 500 Internal Server Error")
    assert "kaboom" in reply["error"]["message"]


# ------------------------------------------------------------------ auto-detection


@pytest.mark.slow
async def test_auto_falls_back_to_legacy_sse_on_the_sdk_server(sdk_legacy_base: str) -> None:
    base = sdk_legacy_base  # the worker's shared server (conftest)
    events: list[Any] = []
    transport = connect_http(base + "/sse")
    assert isinstance(transport, AutoHttpTransport)
    session = Session(transport)
    session.add_observer(events.append)
    with anyio.fail_after(30):
        async with session:
            await session.initialize()
            assert tool_text(await McpClient(session).call_tool("add", {"a": 1, "b": 2})) == "3"
    assert transport.detected == "sse" and transport.fallback_status == 405
    note = next(e for e in events if b"falling back to legacy HTTP+SSE" in e.raw)
    assert note.channel is Channel.SYSTEM and note.direction is Direction.LOCAL
    assert note.meta["fallback"] == "sse"
    first_status = next(e for e in events if e.channel is Channel.HTTP and "status" in e.meta)
    assert first_status.meta["status"] == 405 and first_status.seq < note.seq
    # the failed POST's body shows before the note; no failed-request error reached the user
    assert not any(e.channel is Channel.SYSTEM and e.message for e in events)


@pytest.mark.slow
async def test_auto_stays_on_streamable_http(sdk_sse_base: str) -> None:
    base = sdk_sse_base  # the worker's shared server (conftest)
    transport = connect_http(base + "/mcp", transport="auto")
    assert isinstance(transport, AutoHttpTransport)
    session = Session(transport)
    with anyio.fail_after(30):
        async with session:
            await session.initialize()
            assert await McpClient(session).list_tools()
    assert transport.detected == "http" and transport.fallback_status is None


async def test_auto_does_not_fall_back_on_401() -> None:
    async def handler(req: Request, conn: Conn) -> None:
        await conn.respond(401, "login first")

    async with ScriptedServer(handler) as server:
        transport = AutoHttpTransport(server.url)
        with anyio.fail_after(15):
            async with running(transport) as host:
                await transport.send(initialize(1))
                reply = await host.wait_response(1)
        assert not server.gets()
    assert "needs authorization" in reply["error"]["message"]


async def test_auto_fallback_failure_says_why_it_fell_back() -> None:
    async def handler(req: Request, conn: Conn) -> None:
        await conn.respond(404, "nothing here")

    async with ScriptedServer(handler) as server:
        session = Session(AutoHttpTransport(server.url))
        with anyio.fail_after(15):
            async with session:
                with pytest.raises(ConnectionClosedError) as caught:
                    await session.initialize()
    text = str(caught.value)
    assert "no SSE endpoint at" in text
    assert (
        "after falling back to legacy HTTP+SSE because the Streamable HTTP POST was "
        "answered 404" in text
    )


def test_connect_http_picks_the_transport() -> None:
    assert isinstance(connect_http("http://h/mcp", transport="http"), StreamableHttpTransport)
    assert isinstance(
        connect_http("http://h/mcp", transport="streamable-http"), StreamableHttpTransport
    )
    assert isinstance(connect_http("http://h/sse", transport="sse"), SseTransport)
    assert isinstance(connect_http("http://h/mcp"), AutoHttpTransport)
    with pytest.raises(TransportError, match="unknown HTTP transport 'ws'"):
        connect_http("http://h/mcp", transport="ws")


async def test_streamable_server_answering_basics_is_not_mistaken_for_legacy() -> None:
    async with ScriptedServer(answer_basics) as server:
        transport = AutoHttpTransport(server.url)
        with anyio.fail_after(15):
            async with running(transport) as host:
                await transport.send(initialize(1))
                assert "result" in await host.wait_response(1)
        assert transport.detected == "http"
