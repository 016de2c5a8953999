"""The engine against a scripted peer over the in-memory transport: each case sends the
exact frames a real server would rarely send on cue (a string id, a frame that is not an
object, a cancel for its own request), and reads what the client put on the wire."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from typing import Any

import anyio
import pytest
from memory_peer import handshake

from inspector.engine.big_frame import BIG_FRAME, folded_results
from inspector.engine.client import McpClient
from inspector.engine.responders import Responders, reject_sampling
from inspector.engine.session import Session
from inspector.transports.memory import MemoryServerEnd, memory_pair
from inspector.wire import folded, jsonrpc
from inspector.wire.events import Channel, Direction, Kind, WireEvent
from inspector.wire.folded import FOLD_ITEMS, FoldedResult, is_folded, total

SCRIPTED_INIT = {
    "protocolVersion": "2025-11-25",
    "capabilities": {"tools": {}, "logging": {}},
    "serverInfo": {"name": "scripted", "version": "0.1"},
}

Peer = Callable[[MemoryServerEnd], Awaitable[None]]


@asynccontextmanager
async def scripted(
    peer: Peer, responders: Responders | None = None
) -> AsyncIterator[tuple[Session, list[WireEvent]]]:
    """An initialized session whose server is ``peer`` (run after the handshake), and the
    wire events as the session saw them; bounded so a missing frame fails, not hangs."""
    transport, server = memory_pair()
    events: list[WireEvent] = []

    async def serve() -> None:
        await handshake(server, SCRIPTED_INIT)
        await peer(server)

    with anyio.fail_after(10):
        async with (
            Session(transport, responders=responders or Responders()) as session,
            anyio.create_task_group() as tg,
        ):
            session.add_observer(events.append)
            tg.start_soon(serve)
            await session.initialize()
            yield session, events


def wire(events: list[WireEvent]) -> list[tuple[str, str, str | None]]:
    """(direction, kind, method) of each JSON-RPC frame, in order (notes left out)."""
    return [
        (e.direction.value, e.kind.value, e.method) for e in events if e.channel is Channel.MEMORY
    ]


async def nothing(server: MemoryServerEnd) -> None:
    return None


async def test_handshake_frames_in_order_and_server_facts_kept() -> None:
    async with scripted(nothing) as (session, events):
        assert wire(events) == [
            ("out", "request", "initialize"),
            ("in", "response", None),
            ("out", "notification", "notifications/initialized"),
        ]
    assert session.protocol_version == "2025-11-25"
    assert session.server_info == {"name": "scripted", "version": "0.1"}
    assert session.server_capabilities == SCRIPTED_INIT["capabilities"]


async def test_tool_call_request_and_its_result() -> None:
    seen: list[dict[str, Any]] = []
    result = {"content": [{"type": "text", "text": "3"}], "isError": False}

    async def peer(server: MemoryServerEnd) -> None:
        call = await server.receive()
        seen.append(call)
        await server.send(jsonrpc.response(call["id"], result))

    async with scripted(peer) as (session, events):
        got = await McpClient(session).call_tool("add", {"a": 1, "b": 2})
        assert session.pending == {}
    assert got == result
    (call,) = seen
    assert call["method"] == "tools/call"
    assert {k: v for k, v in call["params"].items() if k != "_meta"} == {
        "name": "add",
        "arguments": {"a": 1, "b": 2},
    }
    request, response = [e for e in events if e.msg_id == call["id"]]
    assert (request.direction, request.kind) == (Direction.OUT, Kind.REQUEST)
    assert (response.direction, response.kind) == (Direction.IN, Kind.RESPONSE)


async def test_server_requests_answered_by_responders_under_their_own_ids() -> None:
    asked: list[dict[str, Any]] = []
    replies: list[dict[str, Any]] = []

    async def elicit(params: dict[str, Any]) -> dict[str, Any]:
        asked.append(params)
        return {"action": "accept", "content": {"name": "Ada"}}

    async def roots(params: dict[str, Any]) -> dict[str, Any]:
        raise ValueError("disk on fire")

    schema = {"type": "object", "properties": {"name": {"type": "string"}}}

    async def peer(server: MemoryServerEnd) -> None:
        # a string id, then a number: each answer must carry the id it answers
        await server.send(
            jsonrpc.request(
                "e-1", "elicitation/create", {"message": "who?", "requestedSchema": schema}
            )
        )
        replies.append(await server.receive())
        await server.send(jsonrpc.request(2, "sampling/createMessage", {"messages": []}))
        replies.append(await server.receive())
        await server.send(jsonrpc.request(3, "roots/list", {}))
        replies.append(await server.receive())

    responders = Responders(elicitation=elicit, sampling=reject_sampling("no thanks"), roots=roots)
    async with scripted(peer, responders):
        with anyio.fail_after(5):
            while len(replies) < 3:
                await anyio.sleep(0.01)
    assert asked == [{"message": "who?", "requestedSchema": schema}]
    elicited, sampled, rooted = replies
    assert elicited == jsonrpc.response("e-1", {"action": "accept", "content": {"name": "Ada"}})
    assert sampled["id"] == 2
    assert sampled["error"] == {"code": jsonrpc.USER_REJECTED, "message": "no thanks"}
    assert rooted["id"] == 3
    assert rooted["error"]["code"] == jsonrpc.INTERNAL_ERROR
    assert "disk on fire" in rooted["error"]["message"]


async def test_notifications_reach_their_callbacks_and_a_failing_one_harms_nothing() -> None:
    logged: list[dict[str, Any]] = []
    after_off: list[dict[str, Any]] = []
    go_on = anyio.Event()

    def broken(params: dict[str, Any]) -> None:
        raise RuntimeError("callback bug")

    async def peer(server: MemoryServerEnd) -> None:
        await server.send(
            jsonrpc.notification("notifications/message", {"level": "info", "data": "hello"})
        )
        await server.send_raw(b'{"jsonrpc":"2.0","method":"notifications/message","params":7}')
        await go_on.wait()
        await server.send(jsonrpc.notification("notifications/message", {"data": "unheard"}))
        ping = await server.receive()
        await server.send(jsonrpc.response(ping["id"], {}))

    async with scripted(peer) as (session, events):
        session.on_notification("notifications/message", broken)
        session.on_notification("notifications/message", logged.append)
        with anyio.fail_after(5):
            while len(logged) < 2:
                await anyio.sleep(0.01)
        session.off_notification(logged.append)
        session.on_notification("notifications/message", after_off.append)
        go_on.set()
        assert await session.request("ping") == {}  # the failing callback left it working
    # params that are not an object reach callbacks as {} (the frame keeps what came)
    assert logged == [{"level": "info", "data": "hello"}, {}]
    assert after_off == [{"data": "unheard"}]
    bad = [e for e in events if e.raw.endswith(b'"params":7}')]
    assert bad and bad[0].kind is Kind.NOTIFICATION


async def test_error_response_keeps_code_message_and_data_and_the_session_goes_on() -> None:
    async def peer(server: MemoryServerEnd) -> None:
        first = await server.receive()
        await server.send(
            jsonrpc.error_response(first["id"], -32602, "bad uri", {"uri": "nope://x"})
        )
        second = await server.receive()
        await server.send(jsonrpc.response(second["id"], {"contents": []}))

    async with scripted(peer) as (session, events):
        client = McpClient(session)
        with pytest.raises(jsonrpc.RpcError) as info:
            await client.read_resource("nope://x")
        assert session.pending == {}
        assert await client.read_resource("ok://y") == {"contents": []}
    assert (info.value.code, info.value.message, info.value.data) == (
        -32602,
        "bad uri",
        {"uri": "nope://x"},
    )
    assert [e.kind for e in events if e.direction is Direction.IN][1:] == [
        Kind.ERROR,
        Kind.RESPONSE,
    ]


async def test_malformed_frames_are_wire_events_with_findings_and_bytes_kept() -> None:
    async def peer(server: MemoryServerEnd) -> None:
        call = await server.receive()
        await server.send_raw(b"42")
        await server.send_raw(b"[]")
        # the answer under the id as a string: still the answer, with a finding
        await server.send_raw(b'{"jsonrpc":"2.0","id":"%d","result":{"x":1}}' % call["id"])

    async with scripted(peer) as (session, events):
        assert await session.request("x/y") == {"x": 1}
    incoming = [e for e in events if e.direction is Direction.IN][1:]  # after initialize's
    assert [e.raw for e in incoming[:2]] == [b"42", b"[]"]
    assert [(e.kind, [f.code for f in e.findings]) for e in incoming] == [
        (Kind.INVALID, ["not-object"]),
        (Kind.BATCH, ["empty-batch"]),
        (Kind.RESPONSE, ["id-type-mismatch"]),
    ]
    assert [e.seq for e in events] == sorted(e.seq for e in events)


async def test_server_cancels_its_own_request_and_gets_no_answer() -> None:
    started = anyio.Event()
    stopped: list[str] = []
    after: list[dict[str, Any]] = []

    async def elicit(params: dict[str, Any]) -> dict[str, Any]:
        started.set()
        try:
            await anyio.sleep(30)
        except anyio.get_cancelled_exc_class():
            stopped.append("cancelled")
            raise
        return {"action": "accept"}

    async def peer(server: MemoryServerEnd) -> None:
        await server.send(jsonrpc.request(7, "elicitation/create", {"message": "wait"}))
        await started.wait()
        await server.send(
            jsonrpc.notification("notifications/cancelled", {"requestId": 7, "reason": "gave up"})
        )
        await server.send(jsonrpc.request(8, "ping"))
        after.append(await server.receive())  # the next frame answers the ping, not 7

    async with scripted(peer, Responders(elicitation=elicit)) as (_, events):
        with anyio.fail_after(5):
            while not after:
                await anyio.sleep(0.01)
    assert stopped == ["cancelled"]
    assert after == [jsonrpc.response(8, {})]
    notes = [e.text() for e in events if e.direction is Direction.LOCAL]
    assert "server cancelled its elicitation/create request 7; no answer sent" in notes
    assert not [e for e in events if e.direction is Direction.OUT and e.msg_id == 7]


async def test_ids_that_cannot_be_keys_crash_nothing() -> None:
    """A JSON array or object where an id, a cancelled requestId or a progress token
    belongs: each is a wire event with a finding, and the session goes on."""
    answered: list[dict[str, Any]] = []

    async def peer(server: MemoryServerEnd) -> None:
        call = await server.receive()
        await server.send_raw(b'{"jsonrpc":"2.0","id":[1],"result":{}}')
        await server.send_raw(b'{"jsonrpc":"2.0","id":{"a":1},"error":{"code":1,"message":"x"}}')
        await server.send_raw(b'{"jsonrpc":"2.0","id":[2],"method":"ping"}')
        await server.send_raw(
            b'{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":[3]}}'
        )
        await server.send_raw(
            b'{"jsonrpc":"2.0","method":"notifications/progress",'
            b'"params":{"progressToken":{"t":1},"progress":1}}'
        )
        await server.send(jsonrpc.request(9, "ping"))
        answered.extend([await server.receive(), await server.receive()])
        await server.send(jsonrpc.response(call["id"], {"x": 1}))

    async with scripted(peer) as (session, events):
        assert await session.request("x/y") == {"x": 1}
    # the ping with an array id is answered as it was asked (its id echoed), then the next
    assert answered == [jsonrpc.response([2], {}), jsonrpc.response(9, {})]
    odd = [
        e
        for e in events
        if e.direction is Direction.IN
        and e.raw.startswith((b'{"jsonrpc":"2.0","id":[', b'{"jsonrpc":"2.0","id":{'))
    ]
    assert [[f.code for f in e.findings] for e in odd] == [["id-type"]] * 3


async def test_a_big_result_is_offered_with_its_frame_once() -> None:
    """issue 25 item 9: a caller can keep a big result as the frame it came in (the log
    holds those bytes anyway) instead of making its JSON again beside the tree."""
    big = {"content": [{"type": "text", "text": "x" * BIG_FRAME}]}

    async def peer(server: MemoryServerEnd) -> None:
        for result in (big, {"content": []}):
            call = await server.receive()
            await server.send(jsonrpc.response(call["id"], result))

    async with scripted(peer) as (session, events):
        client = McpClient(session)
        got = await client.call_tool("big", {})
        frame = session.take_frame(got)
        assert session.take_frame(got) is None  # offered once
        small = await client.call_tool("small", {})
        assert session.take_frame(small) is None  # a small result is not offered
    (response,) = [e for e in events if e.direction is Direction.IN and len(e.raw) > BIG_FRAME]
    assert frame is response.raw
    assert json.loads(frame)["result"] == got == big


async def test_a_big_result_asked_folded_is_never_parsed_whole(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """issue 25 item 9: a call made in ``folded_results()`` gets its big result folded
    (long arrays cut to their first items, counted) with the frame that holds it all, and
    the codec never parses that frame (its whole tree was 3.7x the frame on arrival); a
    call made outside gets the whole result as before."""
    rows = [{"id": n, "name": f"row {n}", "ok": True} for n in range(8 * FOLD_ITEMS)]
    big = {"content": [{"type": "text", "text": "rows"}], "structuredContent": {"rows": rows}}
    assert len(jsonrpc.encode(big)) > BIG_FRAME
    parsed_whole: list[int] = []
    decode = jsonrpc.decode

    def spy(raw: bytes) -> tuple[Any, str | None]:
        if len(raw) >= BIG_FRAME:
            parsed_whole.append(len(raw))
        return decode(raw)

    monkeypatch.setattr(jsonrpc, "decode", spy)

    async def peer(server: MemoryServerEnd) -> None:
        for _ in range(2):
            call = await server.receive()
            await server.send(jsonrpc.response(call["id"], big))

    async with scripted(peer) as (session, events):
        client = McpClient(session)
        with folded_results():
            got = await client.call_tool("big", {})
        assert parsed_whole == []
        whole = await client.call_tool("big", {})
        assert parsed_whole == [len(events[-1].raw)]  # outside: parsed whole, as before
    first = next(e for e in events if e.direction is Direction.IN and len(e.raw) > BIG_FRAME)
    assert isinstance(got, FoldedResult) and got.frame is first.raw
    assert first.message["result"] is got  # the log and the checks saw it folded too
    assert first.kind is Kind.RESPONSE and not first.findings
    kept = got["structuredContent"]["rows"]
    assert kept == rows[:FOLD_ITEMS] and total(kept) == len(rows)
    assert got.whole() == big == whole and not is_folded(whole)
    assert session.take_frame(got) is first.raw


async def test_a_big_text_result_asked_folded_is_decoded_from_its_frame(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """issue 25 item 9: the engine parses a big answer with ``fold_frame``: its long text
    is made from the frame's bytes, the frame's whole text is never decoded beside them
    (the frame, that text and the value were a 1 MB text result's peak on arrival)."""
    text = "".join(f'{n:7d}  Lorem ipsum, "quoted" \\ tab\t\n' for n in range(20_000))
    big = {"content": [{"type": "text", "text": text}]}
    assert len(jsonrpc.encode(big)) > BIG_FRAME
    scanned: list[int] = []
    fold_loads = folded.fold_loads

    def spy(text: str, *args: Any) -> Any:
        scanned.append(len(text))
        return fold_loads(text, *args)

    monkeypatch.setattr(folded, "fold_loads", spy)

    async def peer(server: MemoryServerEnd) -> None:
        call = await server.receive()
        await server.send(jsonrpc.response(call["id"], big))

    async with scripted(peer) as (session, events):
        client = McpClient(session)
        with folded_results():
            got = await client.call_tool("big", {})
    assert got == big
    assert scanned and max(scanned) < 200  # the frame without its text
    (response,) = [e for e in events if e.direction is Direction.IN and len(e.raw) > BIG_FRAME]
    assert session.take_frame(got) is response.raw


async def test_a_big_list_made_inside_folded_results_comes_whole() -> None:
    """Only the calls a view shows (tools/call, resources/read, prompts/get) are folded: a
    tools/list made on the way (a re-list when a call's headers did not match) feeds the
    catalog, which needs every tool."""
    schema = {"type": "object", "properties": {"x": {"type": "string"}}}
    tools = [{"name": f"tool-{n}", "inputSchema": schema} for n in range(4 * FOLD_ITEMS)]
    assert len(jsonrpc.encode({"tools": tools})) > BIG_FRAME

    async def peer(server: MemoryServerEnd) -> None:
        call = await server.receive()
        await server.send(jsonrpc.response(call["id"], {"tools": tools}))

    async with scripted(peer) as (session, _):
        with folded_results():
            listed = await session.request("tools/list", {})
    assert listed == {"tools": tools} and not is_folded(listed)
