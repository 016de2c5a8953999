"""A session's one registry: ``subscribe``/``unsubscribe`` for wire events, outcomes, a
lost connection and notifications by method, kept apart whatever a server names its
notifications, and a subscriber's bug never reaches the session."""

from __future__ import annotations

from typing import Any

import anyio
from memory_peer import handshake

from inspector.engine.session import Session
from inspector.engine.subscribers import CONNECTION_LOST, EVENTS, FINISHED, notification
from inspector.transports.memory import memory_pair
from inspector.wire import jsonrpc


async def test_topics_stay_apart_and_unsubscribe_stops_a_callback() -> None:
    client, server = memory_pair()
    heard: dict[str, list[Any]] = {k: [] for k in ("events", "finished", "lost", "odd", "log")}
    with anyio.fail_after(10):
        async with Session(client) as session:
            session.subscribe(EVENTS, heard["events"].append)
            session.subscribe(FINISHED, heard["finished"].append)
            session.subscribe(CONNECTION_LOST, heard["lost"].append)
            session.subscribe(notification("lost"), heard["odd"].append)
            session.subscribe(notification("notifications/message"), heard["log"].append)

            def broken(_: Any) -> None:
                raise RuntimeError("a subscriber's bug")

            session.subscribe(notification("notifications/message"), broken)
            async with anyio.create_task_group() as tg:
                tg.start_soon(handshake, server)
                await session.initialize()
            assert [f.method for f in heard["finished"]] == ["initialize"]
            # a server may name a notification after a session topic: it stays a notification
            await server.send(jsonrpc.notification("lost", {"x": 1}))
            await server.send(jsonrpc.notification("notifications/message", {"data": "a"}))
            while len(heard["log"]) < 1:
                await anyio.sleep(0.01)
            assert heard["odd"] == [{"x": 1}] and heard["lost"] == []
            session.unsubscribe(heard["log"].append)  # from every topic it is on
            session.unsubscribe(heard["events"].append, EVENTS)
            seen = len(heard["events"])
            await server.send(jsonrpc.notification("notifications/message", {"data": "b"}))
            await server.send(jsonrpc.notification("lost", {"x": 2}))
            while len(heard["odd"]) < 2:
                await anyio.sleep(0.01)
            assert heard["log"] == [{"data": "a"}] and len(heard["events"]) == seen
            await server.hang_up()
            while not heard["lost"]:
                await anyio.sleep(0.01)
    assert heard["lost"][0].message == "the in-memory server hung up"
