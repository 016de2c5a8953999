"""Streamable HTTP transport: official-SDK servers (SSE, JSON, stateless, resumable),
server-everything, and scripted servers for every way a server can misbehave."""

from __future__ import annotations

import asyncio
import subprocess
import sys
import time
from typing import Any

import anyio
import pytest
from servers.http_scripted import Conn, Request, ScriptedServer, answer_basics, ok
from servers.http_support import (
    Host,
    dead_port,
    handshake,
    initialize,
    running,
    sdk_server,
    tool_text,
)

from inspector.engine.client import McpClient
from inspector.engine.responders import Responders, RootsList
from inspector.engine.session import ConnectionClosedError, RequestTimeoutError, Session
from inspector.transports.http import HTTP_ERROR, SESSION_EXPIRED, StreamableHttpTransport
from inspector.transports.sse_parser import SseParser
from inspector.wire.events import Channel, Direction
from inspector.wire.jsonrpc import encode, notification, request, response
from inspector.wire.transport import TransportError


@pytest.fixture
def sdk_sse(sdk_sse_base: str) -> str:
    return sdk_sse_base + "/mcp"  # the worker's shared server (conftest)


@pytest.fixture
def sdk_json(sdk_json_base: str) -> str:
    return sdk_json_base + "/mcp"


# ------------------------------------------------------------------ SSE parser


def test_parser_handles_split_chunks_crlf_comments_and_multiline_data() -> None:
    stream = b'\xef\xbb\xbf: hello\r\n\r\nid: 7\r\nevent: message\r\ndata: {"a":\r\ndata: 1}\r\n\r'
    parser = SseParser()
    events = []
    for i in range(len(stream)):  # one byte at a time: every split point
        events += parser.feed(stream[i : i + 1])
    events += parser.feed(b"\nretry: 1500\ndata:\n\n")
    assert [e.is_comment_only for e in events] == [True, False, False]
    assert events[1].data == b'{"a":\n1}' and events[1].id == "7"
    assert events[1].raw.startswith(b"id: 7\r\n") and events[1].raw.endswith(b"\r\n\r\n")
    assert events[2].retry == 1500 and events[2].is_priming  # a control block, no message
    assert parser.close() is None


def test_parser_reports_garbage_and_a_cut_off_event() -> None:
    parser = SseParser()
    events = parser.feed(b'<html>oops</html>\n\nid: 1\ndata: {"x"')
    assert events[0].is_garbage and events[0].unknown == ["<html>oops</html>"]
    tail = parser.close()
    assert tail is not None and not tail.complete and tail.data == b'{"x"'


# ------------------------------------------------------------------ official SDK servers


async def _sdk_exchange(url: str) -> Host:
    transport = StreamableHttpTransport(url)
    with anyio.fail_after(30):
        async with running(transport) as host:
            result = await handshake(transport, host)
            assert result["serverInfo"]["name"] == "sdk-http-test-server"
            assert transport.session_id
            await transport.send(request(2, "tools/list"))
            tools = await host.wait_response(2)
            assert {"add", "progress_steps"} <= {t["name"] for t in tools["result"]["tools"]}
            await transport.send(
                request(3, "tools/call", {"name": "add", "arguments": {"a": 2, "b": 40}})
            )
            assert tool_text((await host.wait_response(3))["result"]) == "42"
            # a notification before the response, on the same stream or body
            await transport.send(
                request(4, "tools/call", {"name": "progress_steps", "arguments": {"steps": 2}})
            )
            await host.wait_response(4)
    return host


@pytest.mark.slow
async def test_sdk_streamable_sse_mode(sdk_sse: str) -> None:
    host = await _sdk_exchange(sdk_sse)
    msgs = [
        (e.channel, e.message)
        for e in host.events
        if e.direction is Direction.IN and e.message is not None
    ]
    assert all(ch is Channel.SSE for ch, _ in msgs)
    log_at = next(i for i, (_, m) in enumerate(msgs) if m.get("method") == "notifications/message")
    reply_at = next(i for i, (_, m) in enumerate(msgs) if m.get("id") == 4)
    assert log_at < reply_at  # the log notification came first, on the response stream
    assert host.on(Channel.SSE)[0].meta["stream"] == "post:1"
    # the wire: request lines, statuses, the exact bodies posted
    outs = host.on(Channel.HTTP, Direction.OUT)
    assert outs[0].raw == f"POST {sdk_sse}".encode()
    assert outs[0].meta["headers"]["Accept"] == "application/json, text/event-stream"
    assert "MCP-Session-Id" not in outs[0].meta["headers"]
    later = [e for e in outs if e.meta["method"] == "POST"][1:]
    statuses_sid = host.on(Channel.HTTP, Direction.IN)[0].meta["headers"]
    session_id = statuses_sid["mcp-session-id"]
    assert all(e.meta["headers"].get("MCP-Session-Id") == session_id for e in later)
    assert all(e.meta["headers"].get("MCP-Protocol-Version") == "2025-11-25" for e in later)
    statuses = [e for e in host.on(Channel.HTTP, Direction.IN) if "status" in e.meta]
    assert statuses[0].raw.startswith(b"HTTP 200 OK text/event-stream")
    assert statuses[0].meta["headers"]["mcp-session-id"]
    bodies = host.on(Channel.BODY, Direction.OUT)
    assert bodies[0].message["method"] == "initialize"
    # the GET stream was opened after notifications/initialized; DELETE on close
    methods = [e.meta["method"] for e in outs]
    assert methods.index("GET") > 1 and methods[-1] == "DELETE"
    assert host.lost is not None and host.lost.expected


@pytest.mark.slow
async def test_sdk_streamable_json_mode(sdk_json: str) -> None:
    host = await _sdk_exchange(sdk_json)
    replies = [e for e in host.events if e.direction is Direction.IN and e.message is not None]
    assert replies and all(e.channel is Channel.BODY for e in replies)
    assert replies[0].meta["content_type"] == "application/json"


@pytest.mark.slow
async def test_sdk_stateless_mode() -> None:
    with sdk_server("stateless") as base:
        transport = StreamableHttpTransport(base + "/mcp")
        with anyio.fail_after(30):
            async with running(transport) as host:
                await handshake(transport, host)
                assert transport.session_id is None
                await transport.send(
                    request(2, "tools/call", {"name": "add", "arguments": {"a": 1, "b": 1}})
                )
                assert tool_text((await host.wait_response(2))["result"]) == "2"
        assert not any(e.meta.get("method") == "DELETE" for e in host.on(Channel.HTTP))


async def test_session_over_sdk_server_with_server_request_and_get_stream(sdk_sse: str) -> None:
    """A server request (roots/list) is answered by a new POST while the tool call's stream
    stays open; a notification arrives on the GET stream."""
    events: list[Any] = []
    changed: list[dict[str, Any]] = []
    transport = StreamableHttpTransport(sdk_sse)
    session = Session(transport, responders=Responders(roots=RootsList(["/tmp/project"])))
    session.add_observer(events.append)
    session.on_notification("notifications/tools/list_changed", changed.append)
    with anyio.fail_after(30):
        async with session:
            await session.initialize()
            client = McpClient(session)
            result = await client.call_tool("ask_roots", {})
            assert tool_text(result) == "file:///tmp/project"
            assert tool_text(await client.call_tool("announce", {})) == "announced"
            while not changed:
                await anyio.sleep(0.01)
    roots_request = next(e for e in events if e.method == "roots/list")
    # mcp 2.x sends list_roots unrelated to the tool call: it comes on the GET stream
    # (the scripted test below covers a server request on a response stream)
    assert roots_request.channel is Channel.SSE and roots_request.meta["stream"] == "get"
    answer = next(
        e
        for e in events
        if e.direction is Direction.OUT
        and e.channel is Channel.BODY
        and e.msg_id == roots_request.msg_id
        and e.method is None
    )
    assert answer.seq > roots_request.seq
    notice = next(e for e in events if e.method == "notifications/tools/list_changed")
    assert notice.meta["stream"] == "get"


@pytest.mark.slow
async def test_session_resumes_a_closed_stream_with_last_event_id() -> None:
    """SDK server with an event store: the tool closes its stream; the client waits the
    server's retry (200 ms) and resumes with GET + Last-Event-ID."""
    with sdk_server("resumable") as base:
        events: list[Any] = []
        session = Session(StreamableHttpTransport(base + "/mcp"))
        session.add_observer(events.append)
        with anyio.fail_after(30):
            async with session:
                await session.initialize()
                result = await McpClient(session).call_tool("interrupted", {})
    assert tool_text(result) == "resumed fine"
    priming = [e for e in events if e.meta.get("sse") == "priming"]
    assert priming and all(e.channel is Channel.HTTP for e in priming)
    resume = next(
        e
        for e in events
        if e.channel is Channel.HTTP
        and e.direction is Direction.OUT
        and e.meta.get("last_event_id")
    )
    assert resume.meta["method"] == "GET" and resume.meta["stream"].startswith("post:")
    assert resume.meta["headers"]["Last-Event-ID"] == resume.meta["last_event_id"]
    logs = [e.message["params"]["data"] for e in events if e.method == "notifications/message"]
    assert logs == ["before the break", "after the break"]


async def test_everything_server_streamable_http(everything_http_base: str) -> None:
    base = everything_http_base  # the worker's shared server (conftest)
    events: list[Any] = []
    session = Session(StreamableHttpTransport(base + "/mcp"))
    session.add_observer(events.append)
    with anyio.fail_after(60):
        async with session:
            init = await session.initialize()
            client = McpClient(session)
            tools = await client.list_tools()
            assert "echo" in {t["name"] for t in tools}
            echoed = await client.call_tool("echo", {"message": "hi there"})
            assert "hi there" in tool_text(echoed)
            resources = await client.list_resources()
            assert resources
    assert init["serverInfo"]["name"]
    assert any(e.meta.get("method") == "DELETE" for e in events if e.channel is Channel.HTTP)


# ------------------------------------------------------------------ resumption, scripted


async def test_priming_retry_and_resume_scripted() -> None:
    closed_at: list[float] = []

    async def handler(req: Request, conn: Conn) -> None:
        if req.method == "GET" and "last-event-id" in req.headers:
            assert req.headers["last-event-id"] == "e1"
            await conn.start_sse()
            await conn.event(
                {
                    "jsonrpc": "2.0",
                    "method": "notifications/message",
                    "params": {"level": "info", "data": "resumed"},
                },
                id="e2",
            )
            await conn.event({"jsonrpc": "2.0", "id": 2, "result": {"done": True}}, id="e3")
            return
        if await answer_basics(req, conn):
            return
        await conn.start_sse()
        await conn.event(None, id="e1", retry=300)  # priming, then the server closes
        closed_at.append(time.monotonic())

    async with ScriptedServer(handler) as server:
        transport = StreamableHttpTransport(server.url)
        with anyio.fail_after(15):
            async with running(transport) as host:
                await handshake(transport, host)
                await transport.send(request(2, "tools/call", {"name": "x"}))
                assert (await host.wait_response(2))["result"] == {"done": True}
        resume = next(r for r in server.gets() if "last-event-id" in r.headers)
        assert resume.time - closed_at[0] >= 0.3  # retry honoured, not less
        assert resume.headers["mcp-session-id"] == "sess-1"
        assert resume.headers["mcp-protocol-version"] == "2025-11-25"
    priming = next(e for e in host.events if e.meta.get("sse") == "priming")
    assert priming.channel is Channel.HTTP and priming.meta["retry"] == 300
    assert priming.meta["event_id"] == "e1"
    sse = [e for e in host.on(Channel.SSE) if e.meta["stream"] == "post:2"]
    assert [e.meta["event_id"] for e in sse] == ["e2", "e3"]


async def test_stream_closed_without_event_id_fails_the_request() -> None:
    async def handler(req: Request, conn: Conn) -> None:
        if not await answer_basics(req, conn):
            await conn.start_sse()
            await conn.event(
                {
                    "jsonrpc": "2.0",
                    "method": "notifications/message",
                    "params": {"level": "info", "data": "x"},
                }
            )

    async with ScriptedServer(handler) as server:
        transport = StreamableHttpTransport(server.url)
        with anyio.fail_after(15):
            async with running(transport) as host:
                await handshake(transport, host)
                await transport.send(request(2, "tools/list"))
                reply = await host.wait_response(2)
    assert reply["error"]["code"] == HTTP_ERROR
    assert "closed the response stream before sending the response" in reply["error"]["message"]
    synthesized = next(e for e in host.events if e.message is reply)
    assert synthesized.channel is Channel.SYSTEM and synthesized.meta["request_id"] == 2


async def test_resume_attempts_are_bounded() -> None:
    async def handler(req: Request, conn: Conn) -> None:
        if req.method == "GET" and "last-event-id" in req.headers:
            await conn.start_sse()  # resumes, but never brings anything new
            return
        if not await answer_basics(req, conn):
            await conn.start_sse()
            await conn.event(None, id="p1", retry=20)

    async with ScriptedServer(handler) as server:
        transport = StreamableHttpTransport(server.url, max_resume_attempts=3)
        with anyio.fail_after(15):
            async with running(transport) as host:
                await handshake(transport, host)
                await transport.send(request(2, "tools/list"))
                reply = await host.wait_response(2)
        assert len([r for r in server.gets() if "last-event-id" in r.headers]) == 3
    assert "3 attempts to resume" in reply["error"]["message"]


async def test_stream_ending_mid_event_and_garbage_between_events() -> None:
    async def handler(req: Request, conn: Conn) -> None:
        if await answer_basics(req, conn):
            return
        await conn.start_sse()
        await conn.write("<html><body>proxy says hi</body></html>\n\n")
        await conn.event(
            {
                "jsonrpc": "2.0",
                "method": "notifications/message",
                "params": {"level": "info", "data": "still fine"},
            }
        )
        await conn.write('data: {"jsonrpc":"2.0","id":2,"res')  # cut off

    async with ScriptedServer(handler) as server:
        transport = StreamableHttpTransport(server.url)
        with anyio.fail_after(15):
            async with running(transport) as host:
                await handshake(transport, host)
                await transport.send(request(2, "tools/list"))
                reply = await host.wait_response(2)
    sse = host.on(Channel.SSE)
    garbage = next(e for e in sse if e.error and "not an SSE event" in e.error)
    assert b"proxy says hi" in garbage.raw
    assert any(e.message and e.message.get("params", {}).get("data") == "still fine" for e in sse)
    cut = next(e for e in sse if e.error and "middle of this event" in e.error)
    assert cut.raw == b'{"jsonrpc":"2.0","id":2,"res'
    assert reply["error"]["code"] == HTTP_ERROR


# ------------------------------------------------------------------ HTTP errors, scripted


async def _first_request_with(
    handler_status: int, body: Any = b"", headers: dict[str, str] | None = None
) -> tuple[Host, dict[str, Any]]:
    async def handler(req: Request, conn: Conn) -> None:
        await conn.respond(handler_status, body, headers)

    async with ScriptedServer(handler) as server:
        transport = StreamableHttpTransport(server.url)
        with anyio.fail_after(15):
            async with running(transport) as host:
                await transport.send(initialize(1))
                reply = await host.wait_response(1)
    return host, reply


@pytest.mark.parametrize(
    ("status", "needle"),
    [
        (401, "needs authorization"),
        (403, "refused access"),
        (404, "legacy HTTP+SSE server? try the sse transport"),
        (405, "may be a legacy HTTP+SSE endpoint"),
        (406, "rejected our Accept header ('application/json, text/event-stream')"),
        (415, "rejected our Content-Type header ('application/json')"),
        (400, "MCP-Session-Id"),
    ],
)
async def test_http_error_statuses_are_clear(status: int, needle: str) -> None:
    host, reply = await _first_request_with(
        status, "nope", {"WWW-Authenticate": 'Bearer realm="x"'}
    )
    assert reply["error"]["code"] == HTTP_ERROR
    assert reply["error"]["message"].startswith(f"HTTP {status} ")
    assert needle in reply["error"]["message"]
    assert "server said: nope" in reply["error"]["message"]
    assert reply["error"]["data"]["status"] == status
    status_event = next(e for e in host.on(Channel.HTTP, Direction.IN))
    assert status_event.meta["status"] == status
    if status == 401:
        assert status_event.meta["headers"]["www-authenticate"] == 'Bearer realm="x"'
    assert host.lost is None or host.lost.expected  # per-request, not fatal


async def test_500_with_body_and_html_error_page() -> None:
    host, reply = await _first_request_with(500, "database exploded")
    assert reply["error"]["message"] == (
        "HTTP 500 Internal Server Error: the server failed; server said: database exploded"
    )
    assert reply["error"]["data"]["body"] == "database exploded"
    page = "<!DOCTYPE html><html><head><title>502 Bad Gateway</title></head><body>nginx</body>"
    host, reply = await _first_request_with(502, page, {"Content-Type": "text/html"})
    assert "HTML page: 502 Bad Gateway" in reply["error"]["message"]
    body = next(e for e in host.on(Channel.BODY, Direction.IN))
    assert body.raw == page.encode() and body.error is not None
    assert body.error.startswith("not JSON: an HTML page (HTTP 502)")
    assert body.meta["status"] == 502


async def test_json_rpc_error_body_at_an_error_status_is_routed_as_is() -> None:
    host, reply = await _first_request_with(
        400, {"jsonrpc": "2.0", "id": 1, "error": {"code": -32602, "message": "bad version"}}
    )
    assert reply == {"jsonrpc": "2.0", "id": 1, "error": {"code": -32602, "message": "bad version"}}
    assert not any(e.channel is Channel.SYSTEM and e.message for e in host.events)


async def test_bad_bodies_for_a_request() -> None:
    host, reply = await _first_request_with(
        200, "this is not json", {"Content-Type": "application/json"}
    )
    assert "holds no response" in reply["error"]["message"]
    assert next(e for e in host.on(Channel.BODY, Direction.IN)).error
    host, reply = await _first_request_with(202)
    assert "accepted the request but sent no response" in reply["error"]["message"]
    host, reply = await _first_request_with(200, "hello", {"Content-Type": "text/plain"})
    assert "unexpected Content-Type 'text/plain'" in reply["error"]["message"]


async def test_a_server_that_never_answers() -> None:
    async def handler(req: Request, conn: Conn) -> None:
        if not await answer_basics(req, conn):
            await conn.hang()

    async with ScriptedServer(handler) as server:
        # transport level: a read timeout fails the request clearly
        transport = StreamableHttpTransport(server.url, read_timeout=0.5)
        with anyio.fail_after(15):
            async with running(transport) as host:
                await handshake(transport, host)
                await transport.send(request(2, "tools/list"))
                reply = await host.wait_response(2)
        assert reply["error"]["message"] == "no data from the server for 0.5 s"
        # session level: the session's timeout cancels; the transport stops reading
        events: list[Any] = []
        session = Session(StreamableHttpTransport(server.url), timeout=0.5)
        session.add_observer(events.append)
        with anyio.fail_after(15):
            async with session:
                await session.initialize()
                with pytest.raises(RequestTimeoutError):
                    await session.request("tools/list")
        assert any(b"stopped reading the response to request 2" in e.raw for e in events)


async def test_session_expired_404() -> None:
    async def handler(req: Request, conn: Conn) -> None:
        if req.method == "POST" and req.rpc_method == "tools/list":
            await conn.respond(404, "unknown session")
        else:
            await answer_basics(req, conn)

    async with ScriptedServer(handler) as server:
        events: list[Any] = []
        transport = StreamableHttpTransport(server.url)
        session = Session(transport)
        session.add_observer(events.append)
        with anyio.fail_after(15):
            async with session:
                await session.initialize()
                with pytest.raises(ConnectionClosedError) as caught:
                    await session.request("tools/list")
        assert SESSION_EXPIRED in str(caught.value)
        assert transport.session_expired and session.lost is not None
        assert session.lost.http_status == 404
        assert not [r for r in server.requests if r.method == "DELETE"]  # gone already
    assert any(b"the session is gone" in e.raw for e in events)


async def test_delete_on_close_is_bounded_and_405_is_fine() -> None:
    async def hang_delete(req: Request, conn: Conn) -> None:
        if req.method == "DELETE":
            await conn.hang()
        await answer_basics(req, conn)

    async with ScriptedServer(hang_delete) as server:
        transport = StreamableHttpTransport(server.url)
        with anyio.fail_after(15):
            async with running(transport) as host:
                await handshake(transport, host)
                started = time.monotonic()
            assert time.monotonic() - started < 4
        delete = next(r for r in server.requests if r.method == "DELETE")
        assert delete.headers["mcp-session-id"] == "sess-1"
    assert any("DELETE got no answer" in n for n in host.notes())


async def test_get_stream_405_and_409_are_notes_not_errors() -> None:
    for status, needle in ((405, "offers no GET stream"), (409, "409 Conflict")):

        async def handler(req: Request, conn: Conn, status: int = status) -> None:
            if req.method == "GET":
                await conn.respond(status)
            else:
                await answer_basics(req, conn)

        async with ScriptedServer(handler) as server:
            transport = StreamableHttpTransport(server.url)
            with anyio.fail_after(15):
                async with running(transport) as host:
                    await handshake(transport, host)
                    await host.wait(lambda n=needle: any(n in x for x in host.notes()))
            assert len(server.gets()) == 1  # not retried
            assert server.gets()[0].headers["accept"] == "text/event-stream"
        assert host.lost is not None and host.lost.expected


async def test_server_request_answered_while_the_stream_stays_open() -> None:
    """The response stream waits for the client's answer, which must go out on a new POST."""
    answered = anyio.Event()

    async def handler(req: Request, conn: Conn) -> None:
        msg = req.json() if req.method == "POST" else None
        if isinstance(msg, dict) and msg.get("id") == "srv-1" and "result" in msg:
            answered.set()
            await conn.respond(202)
            return
        if await answer_basics(req, conn):
            return
        await conn.start_sse()
        await conn.event({"jsonrpc": "2.0", "id": "srv-1", "method": "ping"})
        with anyio.fail_after(5):
            await answered.wait()
        await conn.event({"jsonrpc": "2.0", "id": req.json()["id"], "result": {"ok": True}})

    async with ScriptedServer(handler) as server:
        session = Session(StreamableHttpTransport(server.url))
        with anyio.fail_after(15):
            async with session:
                await session.initialize()
                assert await session.request("tools/list") == {"ok": True}


async def test_network_failures_are_clear() -> None:
    cases = [
        (f"http://127.0.0.1:{dead_port()}/mcp", "connection refused by 127.0.0.1:"),
        ("http://does-not-exist.invalid/mcp", "could not resolve host 'does-not-exist.invalid'"),
    ]

    async def plain_http(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        writer.write(b"HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n")
        await writer.drain()
        writer.close()

    server = await asyncio.start_server(plain_http, "127.0.0.1", 0)
    async with server:  # https to a port that answers plain HTTP
        port = server.sockets[0].getsockname()[1]
        cases.append((f"https://127.0.0.1:{port}/mcp", "TLS error connecting to"))
        for url, needle in cases:
            session = Session(StreamableHttpTransport(url, timeout=5))
            with anyio.fail_after(20):
                async with session:
                    with pytest.raises(ConnectionClosedError) as caught:
                        await session.initialize()
            assert needle in str(caught.value), (url, str(caught.value))


async def test_bad_url_raises_at_start() -> None:
    for url in ("ftp://host/mcp", "not a url", "http:///mcp"):
        with pytest.raises(TransportError, match="invalid URL"):
            async with Session(StreamableHttpTransport(url)):
                pass


async def test_redirect_is_followed_and_shown() -> None:
    async def handler(req: Request, conn: Conn) -> None:
        if req.path == "/mcp":
            await conn.respond(307, b"", {"Location": "/mcp/"})
        else:
            await answer_basics(req, conn)

    async with ScriptedServer(handler) as server:
        transport = StreamableHttpTransport(server.url)
        with anyio.fail_after(15):
            async with running(transport) as host:
                await handshake(transport, host)
    statuses = [e.meta["status"] for e in host.on(Channel.HTTP, Direction.IN) if "status" in e.meta]
    assert statuses[:2] == [307, 200]
    assert host.on(Channel.HTTP, Direction.IN)[0].meta["redirect"] == "/mcp/"


async def test_outgoing_bodies_are_the_exact_bytes() -> None:
    async with ScriptedServer(answer_basics) as server:
        transport = StreamableHttpTransport(server.url, headers={"X-Trace": "t1"})
        with anyio.fail_after(15):
            async with running(transport) as host:
                raw = encode(initialize(1))
                await transport.send_raw(raw)
                await host.wait_response(1)
                await transport.send(response("srv", {}))
                await transport.send(notification("notifications/roots/list_changed"))
                await host.wait(lambda: len(server.posts()) == 3)
        assert server.posts()[0].body == raw
        assert server.posts()[0].headers["x-trace"] == "t1"
    out = host.on(Channel.BODY, Direction.OUT)
    assert out[0].raw == raw and out[0].message["method"] == "initialize"
    accepted = [e for e in host.on(Channel.HTTP, Direction.IN) if e.meta.get("status") == 202]
    assert len(accepted) == 2


async def test_events_after_the_response_are_shown_and_a_lingering_stream_does_not_block() -> None:
    async def handler(req: Request, conn: Conn) -> None:
        if await answer_basics(req, conn):
            return
        await conn.start_sse()
        await conn.event(ok(req, {"n": 1}))
        await conn.event(
            {
                "jsonrpc": "2.0",
                "method": "notifications/message",
                "params": {"level": "info", "data": "afterwards"},
            }
        )
        await conn.hang()  # never ends the stream

    async with ScriptedServer(handler) as server:
        transport = StreamableHttpTransport(server.url)
        with anyio.fail_after(15):
            async with running(transport) as host:
                await handshake(transport, host)
                started = time.monotonic()
                await transport.send(request(2, "tools/list"))
                assert (await host.wait_response(2))["result"] == {"n": 1}
                assert time.monotonic() - started < 2  # not held until the stream ends
                await host.wait(
                    lambda: any(
                        isinstance(m, dict) and m.get("params", {}).get("data") == "afterwards"
                        for m in host.messages_in()
                    )
                )
                await transport.send(request(3, "tools/list"))  # the next one is not held up
                await host.wait_response(3)


async def test_get_stream_polling_resumes_with_last_event_id() -> None:
    async def handler(req: Request, conn: Conn) -> None:
        if req.method == "GET":
            await conn.start_sse()
            if "last-event-id" not in req.headers:
                await conn.event(None, id="g1", retry=50)  # prime, then close: poll me
                return
            await conn.event(
                {"jsonrpc": "2.0", "method": "notifications/tools/list_changed"}, id="g2"
            )
            await conn.hang()
        await answer_basics(req, conn)

    async with ScriptedServer(handler) as server:
        transport = StreamableHttpTransport(server.url)
        with anyio.fail_after(15):
            async with running(transport) as host:
                await handshake(transport, host)
                event = await host.wait(
                    lambda: next(
                        (
                            e
                            for e in host.on(Channel.SSE)
                            if e.method == "notifications/tools/list_changed"
                        ),
                        None,
                    )
                )
        gets = server.gets()
        assert "last-event-id" not in gets[0].headers
        assert gets[1].headers["last-event-id"] == "g1"
        assert gets[1].time - gets[0].time >= 0.05
    assert event.meta == {"stream": "get", "event_id": "g2", "event_type": "message"}


def test_http_modules_stay_headless() -> None:
    code = (
        "import sys, inspector.transports.detect, inspector.config; "
        "assert 'textual' not in sys.modules, 'textual imported'"
    )
    subprocess.run([sys.executable, "-c", code], check=True, timeout=60)
