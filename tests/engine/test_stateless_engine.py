"""The 2026-07-28 stateless era in the engine: against the official SDK over stdio (the
real peer), and against a scripted fake server for the findings a wrong answer earns."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import anyio
import pytest
from paths import SERVERS

from inspector.engine.client import McpClient
from inspector.engine.era import (
    META_CLIENT_CAPABILITIES,
    META_CLIENT_INFO,
    META_PROTOCOL_VERSION,
    TASKS,
    VersionError,
)
from inspector.engine.responders import Responders, RootsList
from inspector.engine.session import Session, first_failure
from inspector.transports.memory import MemoryServerEnd, memory_pair
from inspector.transports.stdio import StdioTransport
from inspector.wire import jsonrpc
from inspector.wire.events import Direction, WireEvent

SERVER = SERVERS / "stateless_server.py"
STATELESS = "2026-07-28"


def collect(session: Session) -> list[WireEvent]:
    events: list[WireEvent] = []
    session.add_observer(events.append)
    return events


def sent(events: list[WireEvent]) -> list[dict[str, Any]]:
    return [
        e.message for e in events if e.direction is Direction.OUT and isinstance(e.message, dict)
    ]


def codes(events: list[WireEvent]) -> set[str]:
    return {f.code for e in events for f in e.findings}


def sdk_session(responders: Responders | None = None) -> Session:
    return Session(
        StdioTransport(sys.executable, [str(SERVER), "stdio"]),
        responders=responders,
        protocol_version=STATELESS,
        timeout=30,
    )


async def test_sdk_stdio_discover_then_requests_carry_the_envelope() -> None:
    with anyio.fail_after(30):
        async with sdk_session() as session:
            events = collect(session)
            result = await session.initialize()
            tools = await McpClient(session).list_tools()
            called = await McpClient(session).call_tool("add", {"a": 40, "b": 2})
    assert result["supportedVersions"] == [STATELESS]
    assert session.protocol_version == STATELESS
    assert session.server_info["name"] == "sdk-stateless-server"
    assert session.instructions == "a stateless test server"
    assert "tools" in session.server_capabilities
    assert {"add", "greet", "slow", "grow", "touch", "chatty", "where", "roots", "think"} == {
        t["name"] for t in tools
    }
    assert called["structuredContent"] == {"result": 42}
    out = sent(events)
    assert [m["method"] for m in out] == ["server/discover", "tools/list", "tools/call"]
    for message in out:  # no handshake; every request stamped
        meta = message["params"]["_meta"]
        assert meta[META_PROTOCOL_VERSION] == STATELESS
        assert meta[META_CLIENT_INFO]["name"] == "mcp-inspect"
        assert meta[META_CLIENT_CAPABILITIES] == {"extensions": {TASKS: {}}}
    assert not codes(events) - {"batch"}, codes(events)  # the SDK answers cleanly


async def test_sdk_logs_only_when_the_request_carries_a_log_level() -> None:
    with anyio.fail_after(30):
        async with sdk_session() as session:
            events = collect(session)
            await session.initialize()
            client = McpClient(session)
            await client.call_tool("chatty")  # stdio keeps order: a log would be in by now
            quiet = [
                e
                for e in events
                if isinstance(e.message, dict)
                and e.message.get("method") == "notifications/message"
            ]
            assert await client.set_logging_level("info") == {}  # nothing sent
            await client.call_tool("chatty")
    logs = [
        e.message
        for e in events
        if isinstance(e.message, dict) and e.message.get("method") == "notifications/message"
    ]
    assert quiet == []
    assert [m["params"]["data"] for m in logs] == ["chatty says hi"]
    out = sent(events)
    assert "logging/setLevel" not in [m["method"] for m in out]
    assert out[-1]["params"]["_meta"]["io.modelcontextprotocol/logLevel"] == "info"


async def test_sdk_mrtr_roots_and_no_roots_list_changed(tmp_path: Path) -> None:
    roots = RootsList([tmp_path])
    with anyio.fail_after(30):
        async with sdk_session(Responders(roots=roots)) as session:
            events = collect(session)
            await session.initialize()
            result = await McpClient(session).call_tool("roots")
            await session.notify("notifications/roots/list_changed")  # gone: not sent
    assert result["structuredContent"] == {"result": tmp_path.resolve().as_uri()}
    out = sent(events)
    assert [m["method"] for m in out] == ["server/discover", "tools/call", "tools/call"]
    assert out[-1]["params"]["_meta"][META_CLIENT_CAPABILITIES] == {
        "roots": {},
        "extensions": {TASKS: {}},
    }
    assert any(b"notifications/roots/list_changed not sent" in e.raw for e in events)


async def elicit_with(action: str) -> tuple[dict[str, Any], list[WireEvent], list[Any]]:
    asked: list[Any] = []

    async def answer(params: dict[str, Any]) -> dict[str, Any]:
        asked.append(params)
        return (
            {"action": action, "content": {"name": "Ada"}}
            if action == "accept"
            else {"action": action}
        )

    with anyio.fail_after(30):
        async with sdk_session(Responders(elicitation=answer)) as session:
            events = collect(session)
            await session.initialize()
            result = await McpClient(session).call_tool("greet")
    return result, events, asked


async def test_sdk_mrtr_elicitation_goes_to_the_responder_and_the_call_is_retried() -> None:
    result, events, asked = await elicit_with("accept")
    assert result["structuredContent"] == {"result": "hello, Ada"}
    assert [p["message"] for p in asked] == ["What is your name?"]
    calls = [m for m in sent(events) if m["method"] == "tools/call"]
    assert len(calls) == 2
    first, retry = calls
    assert first["id"] != retry["id"]  # the retry is a new request
    assert "inputResponses" not in first["params"]
    (key,) = retry["params"]["inputResponses"]
    assert retry["params"]["inputResponses"][key] == {
        "action": "accept",
        "content": {"name": "Ada"},
    }
    interim = next(
        e.message["result"]
        for e in events
        if e.direction is Direction.IN
        and isinstance(e.message, dict)
        and e.message.get("id") == first["id"]
    )
    assert interim["resultType"] == "input_required"
    assert retry["params"]["requestState"] == interim["requestState"]  # echoed exactly
    assert retry["params"]["_meta"][META_CLIENT_CAPABILITIES] == {
        "elicitation": {"form": {}},
        "extensions": {TASKS: {}},
    }


async def test_sdk_mrtr_decline_reaches_the_server() -> None:
    result, _, asked = await elicit_with("decline")
    assert len(asked) == 1
    assert result["isError"] is True
    assert "decline" in result["content"][0]["text"]


async def test_sdk_refuses_undeclared_elicitation_clearly() -> None:
    with anyio.fail_after(30):
        async with sdk_session() as session:
            await session.initialize()
            with pytest.raises(jsonrpc.RpcError) as err:
                await McpClient(session).call_tool("greet")
    assert "elicitation" in err.value.message


# -- a scripted server that answers wrongly ------------------------------------------------

DISCOVER = {
    "resultType": "complete",
    "supportedVersions": [STATELESS],
    "ttlMs": 0,
    "cacheScope": "private",
    "capabilities": {"tools": {}},
    "_meta": {"io.modelcontextprotocol/serverInfo": {"name": "fake", "version": "2"}},
}


async def run_fake(
    script: Any,
    responders: Responders | None = None,
) -> tuple[Session, list[WireEvent], Any]:
    """Open a stateless session against ``script(server, session)``; return its outcome."""
    transport, server = memory_pair()
    outcome: dict[str, Any] = {}
    with anyio.fail_after(5):
        async with Session(transport, protocol_version=STATELESS, responders=responders) as session:
            events = collect(session)

            async def client() -> None:
                try:
                    outcome["value"] = await script(server, session)
                except Exception as exc:
                    outcome["value"] = first_failure(exc)

            async with anyio.create_task_group() as tg:
                tg.start_soon(client)
    return session, events, outcome["value"]


async def answer_discover(server: MemoryServerEnd, result: Any = None) -> dict[str, Any]:
    discover = await server.receive()
    assert discover["method"] == "server/discover"
    await server.send(jsonrpc.response(discover["id"], DISCOVER if result is None else result))
    return discover


async def test_a_server_that_does_not_know_discover_speaks_the_handshake_era() -> None:
    async def script(server: MemoryServerEnd, session: Session) -> Any:
        async with anyio.create_task_group() as tg:

            async def serve() -> None:
                discover = await server.receive()
                await server.send(
                    jsonrpc.error_response(discover["id"], jsonrpc.METHOD_NOT_FOUND, "no")
                )

            tg.start_soon(serve)
            with pytest.raises(VersionError, match="speaks only the handshake era"):
                await session.initialize()
            return None

    session, _, _ = await run_fake(script)
    assert session.protocol_version is None  # never opened


async def test_unsupported_version_answer_is_a_version_error_with_a_hint() -> None:
    async def script(server: MemoryServerEnd, session: Session) -> Any:
        async with anyio.create_task_group() as tg:

            async def serve() -> None:
                discover = await server.receive()
                await server.send(
                    jsonrpc.error_response(
                        discover["id"],
                        -32022,
                        "unsupported",
                        {"supported": ["2025-11-25"], "requested": STATELESS},
                    )
                )

            tg.start_soon(serve)
            return await session.initialize()

    _, _, value = await run_fake(script)
    assert isinstance(value, VersionError)
    assert "--protocol-version 2025-11-25" in str(value)


async def test_a_handshake_only_server_is_told_apart() -> None:
    async def script(server: MemoryServerEnd, session: Session) -> Any:
        async with anyio.create_task_group() as tg:

            async def serve() -> None:
                discover = await server.receive()
                await server.send(
                    jsonrpc.error_response(
                        discover["id"], jsonrpc.INVALID_REQUEST, "not initialized"
                    )
                )

            tg.start_soon(serve)
            return await session.initialize()

    _, _, value = await run_fake(script)
    assert isinstance(value, VersionError)
    assert "try without --protocol-version" in str(value)


async def test_wrong_stateless_answers_earn_findings() -> None:
    async def script(server: MemoryServerEnd, session: Session) -> Any:
        async with anyio.create_task_group() as tg:

            async def serve() -> None:
                await answer_discover(server, {"capabilities": {}, "supportedVersions": "x"})
                listed = await server.receive()
                await server.send(
                    jsonrpc.response(
                        listed["id"],
                        {
                            "resultType": "input_required",
                            "inputRequests": {},
                            "tools": [
                                {
                                    "name": "t",
                                    "inputSchema": {
                                        "type": "object",
                                        "properties": {
                                            "f": {"type": "number", "x-mcp-header": "F"}
                                        },
                                    },
                                }
                            ],
                        },
                    )
                )
                prompts = await server.receive()
                await server.send(
                    jsonrpc.response(prompts["id"], {"resultType": "complete", "prompts": []})
                )
                called = await server.receive()
                await server.send({"jsonrpc": "2.0", "id": "s1", "method": "roots/list"})
                await server.send({"jsonrpc": "2.0", "method": "notifications/tools/list_changed"})
                await server.send(
                    jsonrpc.response(
                        called["id"],
                        {
                            "resultType": "input_required",
                            "inputRequests": {
                                "x": {"method": "sampling/createMessage", "params": {}},
                                "y": {"method": "ping"},
                            },
                        },
                    )
                )

            tg.start_soon(serve)
            await session.initialize()
            await session.request("tools/list")
            await session.request("prompts/list")
            return await session.request("tools/call", {"name": "t"})

    _, events, value = await run_fake(script)
    found = codes(events)
    assert {
        "discover-versions",
        "result-type",
        "input-required-method",
        "stateless-server-request",
        "stateless-unsubscribed",
        "undeclared-capability",
        "input-request-method",
        "x-mcp-header",
        "cacheable",
    } <= found, found
    assert isinstance(value, jsonrpc.RpcError)  # nothing can answer sampling: a clear error
    assert "sampling/createMessage" in value.message


async def test_retry_without_input_requests_echoes_state_only() -> None:
    async def script(server: MemoryServerEnd, session: Session) -> Any:
        async with anyio.create_task_group() as tg:

            async def serve() -> None:
                await answer_discover(server)
                first = await server.receive()
                await server.send(
                    jsonrpc.response(
                        first["id"], {"resultType": "input_required", "requestState": "opaque-1"}
                    )
                )
                retry = await server.receive()
                assert retry["params"]["requestState"] == "opaque-1"
                assert "inputResponses" not in retry["params"]
                assert retry["params"]["name"] == "t"
                await server.send(
                    jsonrpc.response(retry["id"], {"resultType": "complete", "content": []})
                )

            tg.start_soon(serve)
            await session.initialize()
            return await session.request("tools/call", {"name": "t"})

    _, events, value = await run_fake(script)
    assert value == {"resultType": "complete", "content": []}
    assert not codes(events), codes(events)


async def test_a_listen_stream_that_cannot_be_reopened_ends_with_a_note(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The server ended its listen stream and went away before the reader noticed (seen
    at the end of a stdio session): re-opening it fails to send (TransportError). The
    listen loop stops with a note; it used to take the session's task group down."""
    from inspector.engine import client as client_module
    from inspector.wire.transport import TransportError

    monkeypatch.setattr(client_module, "LISTEN_RETRY_DELAY", 0)
    gone = anyio.Event()

    async def script(server: MemoryServerEnd, session: Session) -> Any:
        notes = collect(session)
        send_raw = session.transport.send_raw

        async def failing(raw: bytes, message: Any = None) -> None:
            if gone.is_set() and b"subscriptions/listen" in raw:
                raise TransportError("could not write to the server: Connection lost")
            await send_raw(raw, message)

        session.transport.send_raw = failing  # type: ignore[method-assign]
        async with anyio.create_task_group() as tg:
            tg.start_soon(answer_discover, server, {**DISCOVER, "capabilities": LISTED})
            await session.initialize()
            McpClient(session).watch_list("tools", lambda update: None)
            listen = await server.receive()
            assert listen["method"] == "subscriptions/listen"
            gone.set()
            await server.send(jsonrpc.response(listen["id"], {"resultType": "complete"}))
            relist = await server.receive()  # what changed meanwhile is fetched
            await server.send(jsonrpc.response(relist["id"], {"tools": []}))
            with anyio.fail_after(5):
                while not any(b"subscriptions/listen could not" in e.raw for e in notes):
                    await anyio.sleep(0.01)
        return relist["method"]

    session, _, value = await run_fake(script)
    assert value == "tools/list", value
    assert session.lost is not None and session.lost.expected  # closed by us, not crashed


LISTED = {"tools": {"listChanged": True}}


async def test_sdk_mrtr_rejected_sampling_is_left_out_not_sent_as_an_error() -> None:
    """An input response is a result, never an error: a rejected sampling request is left
    out of the retry (the SDK server then asks again, and the refusal stands, once)."""
    asked: list[Any] = []

    async def reject(params: dict[str, Any]) -> dict[str, Any]:
        asked.append(params)
        raise jsonrpc.RpcError(jsonrpc.USER_REJECTED, "User rejected sampling request")

    with anyio.fail_after(30):
        async with sdk_session(Responders(sampling=reject)) as session:
            events = collect(session)
            await session.initialize()
            with pytest.raises(jsonrpc.RpcError) as err:
                await McpClient(session).call_tool("think")
    assert err.value.code == jsonrpc.USER_REJECTED and "asked again" in err.value.message
    assert len(asked) == 1  # the user is not asked twice
    calls = [m for m in sent(events) if m.get("method") == "tools/call"]
    assert len(calls) == 2 and calls[1]["params"]["inputResponses"] == {}
    assert "requestState" in calls[1]["params"]
    assert any(b"rejected (User rejected sampling request): left out" in e.raw for e in events)


async def test_raw_frames_get_the_envelope_in_the_stateless_era() -> None:
    """The raw editor's frame lacks the per-request _meta: it is added (what the frame
    sets itself is kept), so the SDK server answers it instead of refusing it."""
    with anyio.fail_after(30):
        async with sdk_session() as session:
            events = collect(session)
            await session.initialize()
            await session.send_raw(
                b'{"jsonrpc":"2.0","id":"raw-1","method":"tools/list",'
                b'"params":{"_meta":{"custom":1}}}'
            )
            while not any(
                e.direction is Direction.IN
                and isinstance(e.message, dict)
                and e.message.get("id") == "raw-1"
                for e in events
            ):
                await anyio.sleep(0.05)
    out = next(m for m in sent(events) if m.get("id") == "raw-1")
    assert out["params"]["_meta"]["custom"] == 1
    assert out["params"]["_meta"][META_PROTOCOL_VERSION] == STATELESS
    answer = next(
        e.message
        for e in events
        if e.direction is Direction.IN
        and isinstance(e.message, dict)
        and e.message.get("id") == "raw-1"
    )
    assert "result" in answer and answer["result"]["tools"]
    assert any(b"raw tools/list: the stateless _meta envelope added" in e.raw for e in events)
