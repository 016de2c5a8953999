"""``subscriptions/listen`` in the stateless era, against the official SDK over stdio and
Streamable HTTP: watching a list opens the stream, a server-side change re-lists, and a
resource subscription re-opens the stream with the URI so its updates arrive."""

from __future__ import annotations

import contextlib
import sys
from collections.abc import AsyncIterator, Callable
from typing import Any

import anyio
import pytest
from paths import SERVERS

from inspector.engine.client import LISTEN_RETRY_DELAY, McpClient
from inspector.engine.session import Session
from inspector.transports.detect import connect_http
from inspector.transports.stdio import StdioTransport
from inspector.wire.events import Direction, WireEvent
from inspector.wire.transport import Transport

pytestmark = pytest.mark.slow  # end to end: see pyproject's markers

SERVER = SERVERS / "stateless_server.py"
ACK = "notifications/subscriptions/acknowledged"


@pytest.fixture
def http_url(stateless_url: Callable[[str], str]) -> str:
    return stateless_url("http")  # the worker's shared server (conftest)


@pytest.fixture(params=["stdio", "http"])
def transport(request: pytest.FixtureRequest) -> Transport:
    if request.param == "stdio":
        return StdioTransport(sys.executable, [str(SERVER), "stdio"])
    return connect_http(request.getfixturevalue("http_url"))


@contextlib.asynccontextmanager
async def opened(transport: Transport) -> AsyncIterator[Session]:
    with anyio.fail_after(60):
        async with Session(transport, protocol_version="2026-07-28", timeout=20) as session:
            await session.initialize()
            yield session


def inbound(events: list[WireEvent], method: str) -> list[dict[str, Any]]:
    return [
        e.message
        for e in events
        if e.direction is Direction.IN
        and isinstance(e.message, dict)
        and e.message.get("method") == method
    ]


async def wait(condition: Any, timeout: float = 15) -> None:
    with anyio.fail_after(timeout):
        while not condition():
            await anyio.sleep(0.02)


async def test_a_watched_list_follows_the_server(transport: Transport) -> None:
    async with opened(transport) as session:
        await watched_list(session)


async def watched_list(session: Session) -> None:
    events: list[WireEvent] = []
    session.add_observer(events.append)
    client = McpClient(session)
    lists: list[set[str]] = []
    client.watch_list("tools", lambda update: lists.append({t["name"] for t in update.items}))
    await wait(lambda: inbound(events, ACK))
    (ack,) = inbound(events, ACK)
    assert ack["params"]["notifications"]["toolsListChanged"] is True
    listen = next(
        e.message
        for e in events
        if e.direction is Direction.OUT
        and isinstance(e.message, dict)
        and e.message.get("method") == "subscriptions/listen"
    )
    assert ack["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"] == listen["id"]
    await client.call_tool("grow", {"name": "sprout"})
    await wait(lambda: any("sprout" in names for names in lists))
    assert listen["id"] in session.pending  # the stream stays open
    assert not {f.code for e in events for f in e.findings}


async def test_a_resource_subscription_reopens_the_stream(transport: Transport) -> None:
    async with opened(transport) as session:
        await resource_subscription(session)


async def resource_subscription(session: Session) -> None:
    events: list[WireEvent] = []
    session.add_observer(events.append)
    client = McpClient(session)
    updated: list[str] = []
    session.on_notification(
        "notifications/resources/updated", lambda params: updated.append(params["uri"])
    )
    await client.subscribe("note://greeting")
    await wait(
        lambda: any(
            a["params"]["notifications"].get("resourceSubscriptions") for a in inbound(events, ACK)
        )
    )
    await client.call_tool("touch", {"text": "changed"})
    await wait(lambda: updated == ["note://greeting"])
    read = await client.read_resource("note://greeting")
    assert read["contents"][0]["text"] == "changed"
    await client.unsubscribe("note://greeting")
    acks = len(inbound(events, ACK))
    await wait(lambda: len(inbound(events, ACK)) > acks)  # re-opened without the URI
    assert not inbound(events, ACK)[-1]["params"]["notifications"].get("resourceSubscriptions")


async def test_a_listen_stream_the_user_cancels_stays_closed_until_reopened(
    transport: Transport,
) -> None:
    async with opened(transport) as session:
        events: list[WireEvent] = []
        session.add_observer(events.append)
        client = McpClient(session)
        client.watch_list("tools", lambda update: None)
        await wait(lambda: len(inbound(events, ACK)) == 1)

        def listens() -> list[dict[str, Any]]:
            return [
                e.message
                for e in events
                if e.direction is Direction.OUT
                and isinstance(e.message, dict)
                and e.message.get("method") == "subscriptions/listen"
            ]

        assert await session.cancel(listens()[0]["id"])  # the user's cancel (by_user)
        await anyio.sleep(LISTEN_RETRY_DELAY * 2)  # the loop would have re-opened by now
        assert len(listens()) == 1 and client.listen_closed
        assert any(b"cancelled by the user: closed" in e.raw for e in events)
        client.watch_list("prompts", lambda update: None)  # no user re-open: still closed
        await anyio.sleep(0.2)
        assert len(listens()) == 1
        client.reopen_listen()
        await wait(lambda: len(listens()) == 2 and len(inbound(events, ACK)) == 2)
        assert not client.listen_closed
