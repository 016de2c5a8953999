"""The session's word on each finished request (``Session.on_finished``): one report per
request (ok, error, cancelled, timeout, lost), then one per late response; requests sent by
hand are followed on the wire. Over the memory transport and a scripted server."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import anyio
import pytest

from inspector.engine.outcomes import CANCELLED, CANCELLED_BY_USER, TIMED_OUT, RequestFinished
from inspector.engine.session import ConnectionClosedError, Session
from inspector.transports.memory import memory_pair
from inspector.wire import jsonrpc
from inspector.wire.jsonrpc import RpcError


async def until(condition: Callable[[], bool], timeout: float = 5.0) -> None:
    with anyio.fail_after(timeout):
        while not condition():
            await anyio.sleep(0.005)


def short(report: RequestFinished) -> tuple[Any, ...]:
    return (report.id, report.method, report.outcome, report.detail, report.given_up)


async def outcome(session: Session, method: str, **kw: Any) -> Any:
    try:
        return await session.request(method, {"name": method}, **kw)
    except RpcError as exc:
        return exc


async def test_answers_are_reported_once_as_ok_or_error_with_the_servers_message() -> None:
    transport, server = memory_pair()
    reports: list[RequestFinished] = []
    with anyio.fail_after(5):
        async with Session(transport) as session, anyio.create_task_group() as tg:
            session.on_finished(reports.append)

            async def serve() -> None:
                ok, bad = await server.receive(), await server.receive()
                await server.send(jsonrpc.error_response(bad["id"], -32602, "bad arguments"))
                await server.send(jsonrpc.response(ok["id"], {"content": []}))

            tg.start_soon(serve)
            async with anyio.create_task_group() as calls:
                calls.start_soon(outcome, session, "good")
                await until(lambda: len(session.pending) == 1)
                calls.start_soon(outcome, session, "bad")
    assert [short(r) for r in reports] == [
        (2, "bad", "error", "bad arguments", None),
        (1, "good", "ok", "", None),
    ]
    assert all(r.params["name"] == r.method and not r.by_hand for r in reports)
    assert all(r.ended >= r.started and r.latency >= 0 for r in reports)


async def test_a_cancel_is_reported_with_its_why_and_a_late_answer_after_it() -> None:
    transport, server = memory_pair()
    reports: list[RequestFinished] = []
    with anyio.fail_after(5):
        async with Session(transport) as session, anyio.create_task_group() as tg:
            session.on_finished(reports.append)
            tg.start_soon(outcome, session, "mine")
            mine = await server.receive()
            assert await session.cancel(mine["id"], "cancelled by the user")
            assert [short(r) for r in reports] == [
                (1, "mine", "cancelled", "cancelled by the user", CANCELLED_BY_USER)
            ]
            assert (await server.receive())["method"] == "notifications/cancelled"
            tg.start_soon(outcome, session, "stream")
            stream = await server.receive()
            assert await session.cancel(stream["id"], "re-opened", by_user=False)
            await server.receive()
            await server.send(jsonrpc.response(mine["id"], {"content": []}))  # too late
            await until(lambda: len(reports) == 3)
    assert [short(r) for r in reports[1:]] == [
        (2, "stream", "cancelled", "re-opened", CANCELLED),
        (1, None, "late", "", None),  # its own report (cancelled) stands
    ]


async def test_a_timeout_is_reported_with_the_sessions_reason() -> None:
    transport, server = memory_pair()
    reports: list[RequestFinished] = []
    with anyio.fail_after(5):
        async with Session(transport) as session, anyio.create_task_group() as tg:
            session.on_finished(reports.append)

            async def serve() -> None:
                slow = await server.receive()
                assert (await server.receive())["method"] == "notifications/cancelled"
                await server.send(jsonrpc.response(slow["id"], {}))

            tg.start_soon(serve)
            assert isinstance(await outcome(session, "slow", timeout=0.1), RpcError)
            await until(lambda: len(reports) == 2)
    assert [short(r) for r in reports] == [
        (1, "slow", "timeout", "timed out after 0.1 s", TIMED_OUT),
        (1, None, "late", "", None),
    ]
    assert reports[0].latency >= 0.1


async def test_a_lost_connection_is_reported_for_each_pending_request() -> None:
    transport, server = memory_pair()
    reports: list[RequestFinished] = []
    with anyio.fail_after(5):
        async with Session(transport) as session, anyio.create_task_group() as tg:
            session.on_finished(reports.append)

            async def serve() -> None:
                await server.receive()
                await server.hang_up()

            tg.start_soon(serve)
            with pytest.raises(ConnectionClosedError):
                await session.request("x")
    assert [(r.id, r.method, r.outcome) for r in reports] == [(1, "x", "lost")]
    assert reports[0].detail.startswith("connection closed:")


async def send(session: Session, message: dict[str, Any]) -> None:
    await session.send_raw(jsonrpc.encode(message))


async def test_requests_sent_by_hand_are_followed_on_the_wire() -> None:
    transport, server = memory_pair()
    reports: list[RequestFinished] = []
    with anyio.fail_after(5):
        async with Session(transport) as session:
            session.on_finished(reports.append)
            await send(session, jsonrpc.request(900, "tools/call", {"name": "raw"}))
            await send(session, jsonrpc.request(901, "ping"))
            await send(session, jsonrpc.request(902, "ping"))
            for _ in range(3):
                await server.receive()
            await server.send(jsonrpc.error_response(900, -32602, "bad arguments"))
            await server.send(jsonrpc.response(902, {}))
            await until(lambda: len(reports) == 2)
            hand = {"requestId": 901, "reason": "timed out (sent by hand)"}
            await send(session, jsonrpc.notification("notifications/cancelled", hand))
            await server.send(jsonrpc.response(777, {}))  # nobody asked
            await until(lambda: len(reports) == 4)
    assert [short(r) for r in reports] == [
        (900, "tools/call", "error", "bad arguments", None),
        (902, "ping", "ok", "", None),
        (901, "ping", "timeout", "timed out (sent by hand)", None),
        (777, None, "ok", "", None),
    ]
    assert reports[0].params == {"name": "raw"} and all(r.by_hand for r in reports)


async def test_a_callback_that_fails_or_is_removed_hears_nothing_more() -> None:
    transport, server = memory_pair()
    heard: list[RequestFinished] = []

    def broken(report: RequestFinished) -> None:
        raise RuntimeError("a bug in a callback")

    with anyio.fail_after(5):
        async with Session(transport) as session:
            session.on_finished(broken)
            session.on_finished(heard.append)
            await send(session, jsonrpc.request(1, "ping"))
            await server.receive()
            await server.send(jsonrpc.response(1, {}))
            await until(lambda: len(heard) == 1)
            session.off_finished(heard.append)
            await send(session, jsonrpc.request(2, "ping"))
            await server.receive()
            await server.send(jsonrpc.response(2, {}))
            await anyio.sleep(0.05)
    assert [r.id for r in heard] == [1]
