"""The session over the in-memory transport, against a scripted fake server."""

from __future__ import annotations

import json
from typing import Any

import anyio
import pytest
from memory_peer import INIT_RESULT, handshake

from inspector.engine.client import McpClient
from inspector.engine.era import VersionError
from inspector.engine.lists import ListUpdate
from inspector.engine.responders import Responders, fixed_sampling
from inspector.engine.session import (
    ConnectionClosedError,
    RequestCancelledError,
    RequestTimeoutError,
    Session,
)
from inspector.transports.memory import memory_pair
from inspector.wire import jsonrpc
from inspector.wire.events import Direction, Kind, WireEvent


def collect(session: Session) -> list[WireEvent]:
    events: list[WireEvent] = []
    session.add_observer(events.append)
    return events


async def test_handshake_sets_server_facts_and_declares_no_unwired_capability() -> None:
    transport, server = memory_pair()
    with anyio.fail_after(5):
        async with Session(transport) as session, anyio.create_task_group() as tg:
            seen: dict[str, Any] = {}

            async def serve() -> None:
                seen["init"] = await handshake(server)

            tg.start_soon(serve)
            await session.initialize()
    assert seen["init"]["params"]["protocolVersion"] == "2025-11-25"
    assert seen["init"]["params"]["capabilities"] == {}
    assert seen["init"]["params"]["clientInfo"]["name"] == "mcp-inspect"
    assert session.protocol_version == "2025-11-25"
    assert session.server_info["name"] == "fake"
    assert session.instructions == "be nice"


async def test_capabilities_follow_responders() -> None:
    transport, server = memory_pair()
    responders = Responders(sampling=fixed_sampling("hi"), roots=lambda p: None)  # type: ignore
    with anyio.fail_after(5):
        async with (
            Session(transport, responders=responders) as session,
            anyio.create_task_group() as tg,
        ):
            seen: dict[str, Any] = {}

            async def serve() -> None:
                seen["init"] = await handshake(server)

            tg.start_soon(serve)
            await session.initialize()
    assert seen["init"]["params"]["capabilities"] == {
        "sampling": {},
        "roots": {"listChanged": True},
    }


@pytest.mark.parametrize("version", ["2024-11-05", "2025-03-26", "2025-06-18", "2024-10-07"])
async def test_older_versions_accepted(version: str) -> None:
    transport, server = memory_pair()
    with anyio.fail_after(5):
        async with Session(transport) as session, anyio.create_task_group() as tg:
            tg.start_soon(handshake, server, {**INIT_RESULT, "protocolVersion": version})
            await session.initialize()
    assert session.protocol_version == version


async def test_unknown_version_is_a_clear_error_naming_it() -> None:
    transport, server = memory_pair()
    with anyio.fail_after(5):
        async with Session(transport) as session:

            async def serve() -> None:
                init = await server.receive()
                await server.send(
                    jsonrpc.response(init["id"], {**INIT_RESULT, "protocolVersion": "1999-01-01"})
                )

            async with anyio.create_task_group() as tg:
                tg.start_soon(serve)
                with pytest.raises(VersionError, match="1999-01-01"):
                    await session.initialize()


async def test_version_rejection_offers_supported_versions() -> None:
    transport, server = memory_pair()
    with anyio.fail_after(5):
        async with Session(transport) as session:

            async def serve() -> None:
                init = await server.receive()
                await server.send(
                    jsonrpc.error_response(
                        init["id"],
                        -32602,
                        "Unsupported protocol version",
                        {"supported": ["2024-11-05"], "requested": "2025-11-25"},
                    )
                )

            async with anyio.create_task_group() as tg:
                tg.start_soon(serve)
                with pytest.raises(VersionError, match="--protocol-version 2024-11-05"):
                    await session.initialize()


async def test_out_of_order_responses_are_correlated() -> None:
    transport, server = memory_pair()
    with anyio.fail_after(5):
        async with Session(transport) as session, anyio.create_task_group() as tg:

            async def serve() -> None:
                a = await server.receive()
                b = await server.receive()
                await server.send(jsonrpc.response(b["id"], {"who": "b"}))
                await server.send(jsonrpc.response(a["id"], {"who": "a"}))

            tg.start_soon(serve)
            results: dict[str, Any] = {}

            async def call(name: str) -> None:
                results[name] = await session.request("x/" + name)

            async with anyio.create_task_group() as calls:
                calls.start_soon(call, "a")
                await anyio.sleep(0.01)
                calls.start_soon(call, "b")
    assert results == {"a": {"who": "a"}, "b": {"who": "b"}}


async def test_error_response_raises_rpc_error() -> None:
    transport, server = memory_pair()
    with anyio.fail_after(5):
        async with Session(transport) as session, anyio.create_task_group() as tg:

            async def serve() -> None:
                req = await server.receive()
                await server.send(jsonrpc.error_response(req["id"], -32601, "nope"))

            tg.start_soon(serve)
            with pytest.raises(jsonrpc.RpcError) as info:
                await session.request("missing")
    assert info.value.code == -32601


async def test_timeout_sends_cancelled_and_progress_resets_clock() -> None:
    transport, server = memory_pair()
    received: list[Any] = []
    progress_seen: list[float] = []
    with anyio.fail_after(10):
        async with Session(transport, timeout=0.3) as session, anyio.create_task_group() as tg:

            async def serve() -> None:
                req = await server.receive()
                token = req["params"]["_meta"]["progressToken"]
                for step in range(1, 5):  # 4 x 0.15 s = 0.6 s > timeout, kept alive by progress
                    await anyio.sleep(0.15)
                    await server.send(
                        jsonrpc.notification(
                            "notifications/progress",
                            {"progressToken": token, "progress": step, "total": 10},
                        )
                    )
                received.append(await server.receive())  # the cancel after real silence

            tg.start_soon(serve)
            with pytest.raises(RequestTimeoutError):
                await session.request(
                    "slow", {}, on_progress=lambda p, t, m: progress_seen.append(p)
                )
    assert progress_seen == [1, 2, 3, 4]
    assert received[0]["method"] == "notifications/cancelled"
    assert received[0]["params"]["requestId"] == 1


async def test_hard_maximum_wins_over_progress() -> None:
    transport, server = memory_pair()
    with anyio.fail_after(10):
        async with (
            Session(transport, timeout=0.3, max_timeout=0.5) as session,
            anyio.create_task_group() as tg,
        ):

            async def serve() -> None:
                req = await server.receive()
                token = req["params"]["_meta"]["progressToken"]
                for step in range(20):
                    await anyio.sleep(0.1)
                    await server.send(
                        jsonrpc.notification(
                            "notifications/progress", {"progressToken": token, "progress": step}
                        )
                    )

            tg.start_soon(serve)
            start = anyio.current_time()
            with pytest.raises(RequestTimeoutError, match="hard maximum"):
                await session.request("slow", {}, on_progress=lambda *a: None)
            assert anyio.current_time() - start < 1.5
            tg.cancel_scope.cancel()


async def test_user_cancel_and_late_response_is_marked() -> None:
    transport, server = memory_pair()
    with anyio.fail_after(5):
        async with Session(transport) as session, anyio.create_task_group() as tg:
            events = collect(session)
            got: list[Any] = []

            async def serve() -> None:
                req = await server.receive()
                got.append(await server.receive())
                await server.send(jsonrpc.response(req["id"], {"late": True}))

            tg.start_soon(serve)

            async def cancel_soon() -> None:
                await anyio.sleep(0.05)
                assert await session.cancel(1, "changed my mind")

            tg.start_soon(cancel_soon)
            with pytest.raises(RequestCancelledError):
                await session.request("slow")
            await anyio.sleep(0.1)
    assert got[0]["method"] == "notifications/cancelled"
    assert got[0]["params"] == {"requestId": 1, "reason": "changed my mind"}
    late = [e for e in events if e.direction is Direction.IN and e.kind is Kind.RESPONSE]
    assert [f.code for f in late[0].findings] == ["late-response"]


async def test_server_requests_go_to_responders_or_get_method_not_found() -> None:
    transport, server = memory_pair()
    replies: dict[str, Any] = {}
    with anyio.fail_after(5):
        async with (
            Session(
                transport, responders=Responders(sampling=fixed_sampling("the answer"))
            ) as session,
            anyio.create_task_group() as tg,
        ):

            async def serve() -> None:
                await handshake(server)
                for id_, method in (
                    (100, "ping"),
                    (101, "sampling/createMessage"),
                    (102, "roots/list"),
                    (103, "bogus/method"),
                ):
                    await server.send(jsonrpc.request(id_, method, {"messages": []}))
                for _ in range(4):
                    reply = await server.receive()
                    replies[reply["id"]] = reply

            tg.start_soon(serve)
            await session.initialize()
    assert replies[100]["result"] == {}
    assert replies[101]["result"]["content"]["text"] == "the answer"
    assert replies[102]["error"]["code"] == -32601
    assert replies[103]["error"]["code"] == -32601


async def test_malformed_frames_become_events_with_findings_and_session_survives() -> None:
    transport, server = memory_pair()
    with anyio.fail_after(5):
        async with Session(transport) as session, anyio.create_task_group() as tg:
            events = collect(session)

            async def serve() -> None:
                req = await server.receive()
                await server.send_raw(b"this is not json")
                await server.send_raw(b'{"jsonrpc":"2.0","id":1,"result":\xff}')
                await server.send_raw(b'{"jsonrpc":"1.0","method":"notifications/x"}')
                await server.send_raw(b'{"jsonrpc":"2.0","id":777,"result":{}}')
                await server.send_raw(
                    b'{"jsonrpc":"2.0","id":999,"result":{},"error":{"code":1,"message":"m"}}'
                )
                await server.send(jsonrpc.response(req["id"], {"ok": True}))

            tg.start_soon(serve)
            assert await session.request("x") == {"ok": True}
    incoming = [e for e in events if e.direction is Direction.IN]
    codes = [[f.code for f in e.findings] for e in incoming]
    assert codes[0] == ["invalid"] and incoming[0].kind is Kind.INVALID
    assert "invalid UTF-8" in (incoming[1].error or "")
    assert "jsonrpc-version" in codes[2]
    assert "unknown-id" in codes[3]
    assert "result-and-error" in codes[4]
    assert incoming[0].raw == b"this is not json"


async def test_batch_response_resolves_each_request() -> None:
    transport, server = memory_pair()
    with anyio.fail_after(5):
        async with Session(transport) as session, anyio.create_task_group() as tg:

            async def serve() -> None:
                a = await server.receive()
                b = await server.receive()
                await server.send([jsonrpc.response(a["id"], 1), jsonrpc.response(b["id"], 2)])

            tg.start_soon(serve)
            out: list[Any] = [None, None]

            async def call(i: int) -> None:
                out[i] = await session.request(f"m{i}")

            async with anyio.create_task_group() as calls:
                calls.start_soon(call, 0)
                await anyio.sleep(0.01)
                calls.start_soon(call, 1)
    assert out == [1, 2]


async def test_connection_lost_fails_pending_at_once() -> None:
    transport, server = memory_pair()
    with anyio.fail_after(5):
        async with Session(transport, timeout=60) as session, anyio.create_task_group() as tg:

            async def serve() -> None:
                await server.receive()
                await server.hang_up()

            tg.start_soon(serve)
            with pytest.raises(ConnectionClosedError, match="hung up"):
                await session.request("x")
            with pytest.raises(ConnectionClosedError):
                await session.request("y")


async def test_pagination_and_list_changed_relist() -> None:
    transport, server = memory_pair()
    relisted: list[list[str]] = []
    with anyio.fail_after(5):
        async with Session(transport) as session, anyio.create_task_group() as tg:
            client = McpClient(session)

            async def serve() -> None:
                await handshake(server)
                for names, cursor in ((["a", "b"], "c1"), (["c"], None)):
                    req = await server.receive()
                    result: dict[str, Any] = {"tools": [{"name": n} for n in names]}
                    if cursor:
                        result["nextCursor"] = cursor
                    await server.send(jsonrpc.response(req["id"], result))
                await server.send(jsonrpc.notification("notifications/tools/list_changed"))
                req = await server.receive()
                assert req["method"] == "tools/list"
                await server.send(jsonrpc.response(req["id"], {"tools": [{"name": "z"}]}))

            tg.start_soon(serve)
            await session.initialize()
            done = anyio.Event()

            def on_tools(update: ListUpdate) -> None:
                relisted.append([t["name"] for t in update.items])
                done.set()

            client.watch_list("tools", on_tools)
            tools = await client.list_tools()
            await done.wait()
    assert [t["name"] for t in tools] == ["a", "b", "c"]
    assert relisted == [["z"]]


async def test_every_event_is_recorded_before_observers_see_it(tmp_path: Any) -> None:
    from inspector.record.format import SessionHeader
    from inspector.record.reader import read_session
    from inspector.record.recorder import Recorder

    path = tmp_path / "s.jsonl"
    recorder = Recorder(path, SessionHeader(target={"transport": "memory"}))
    transport, server = memory_pair()
    on_disk_when_seen: list[bool] = []

    def observer(event: WireEvent) -> None:
        lines = path.read_bytes().splitlines()
        on_disk_when_seen.append(json.loads(lines[-1])["seq"] == event.seq)

    with anyio.fail_after(5):
        async with (
            Session(transport, recorder=recorder) as session,
            anyio.create_task_group() as tg,
        ):
            session.add_observer(observer)
            tg.start_soon(handshake, server)
            await session.initialize()
    recorder.close()
    assert on_disk_when_seen and all(on_disk_when_seen)
    saved = read_session(path)
    assert [e.seq for e in saved.events] == list(range(1, len(saved.events) + 1))
    assert saved.events[-1].kind is Kind.SYSTEM
