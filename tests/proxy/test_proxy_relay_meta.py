"""A relay over Streamable HTTP labels every event of an exchange with whose frame started
it, from the metadata the frame was sent with (no context variables): the host's and an
inspector's requests in flight at once, against the official SDK's server."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import anyio
import pytest
from servers.http_support import initialize

from inspector.proxy.relay import Relay
from inspector.proxy.wire import ProxyWire
from inspector.transports.http import StreamableHttpTransport
from inspector.wire.events import Channel, Direction, WireEvent
from inspector.wire.jsonrpc import encode, notification, request
from inspector.wire.transport import SENT_WITH


class Host:
    """A host end fed by the test."""

    kind = "test"

    def __init__(self) -> None:
        self.sent: list[Any] = []
        self.inbox, self._frames = anyio.create_memory_object_stream[bytes](100)

    async def frames(self) -> AsyncIterator[tuple[bytes, bool]]:
        async for line in self._frames:
            yield line, True

    def send(self, raw: bytes, event: WireEvent) -> None:
        self.sent.append(event.message)

    def stderr(self, line: bytes) -> None:
        pass

    async def close(self) -> None:
        pass


@pytest.fixture
def sdk_sse(sdk_sse_base: str) -> str:
    return sdk_sse_base + "/mcp"  # the worker's shared server (conftest)


def _exchange(events: list[WireEvent], rid: Any) -> list[WireEvent]:
    return [e for e in events if e.meta.get("request_id") == rid and e.channel is Channel.HTTP]


async def test_each_exchange_is_labelled_by_its_sender(sdk_sse: str) -> None:
    wire = ProxyWire()
    host = Host()
    relay = Relay(wire, StreamableHttpTransport(sdk_sse), host)
    relay.link = 3
    add = {"name": "add", "arguments": {"a": 2, "b": 40}}
    with anyio.fail_after(30):
        async with anyio.create_task_group() as tg:
            tg.start_soon(relay.run)
            await host.inbox.send(encode(initialize(1)))
            await relay.handshake.wait()
            await host.inbox.send(encode(notification("notifications/initialized")))
            await host.inbox.send(encode(request(2, "tools/call", add)))
            await relay.from_inspector(5, encode(request(1, "tools/call", add)))
            while not any(isinstance(m, dict) and m.get("id") == 2 for m in host.sent):
                await anyio.sleep(0.01)
            while not any(
                e.direction is Direction.IN and e.msg_id == "mcp-inspect-1" for e in wire.history
            ):  # the inspector's answer (the router keeps it from the host)
                await anyio.sleep(0.01)
            relay.stop("test over")
    events = list(wire.history)
    assert not [e for e in events if SENT_WITH in e.meta]  # the relay takes it off
    host_side = {"link": 3, "side": "host"}
    mine = {"link": 3, "side": "inspector", "attach": 5}
    for rid, who in ((1, host_side), (2, host_side), ("mcp-inspect-1", mine)):
        exchange = _exchange(events, rid)
        assert {e.direction for e in exchange} == {Direction.OUT, Direction.IN}, rid
        for event in exchange:
            assert {k: event.meta.get(k) for k in who} == who, (rid, event.meta)
    sent = [e for e in events if e.channel is Channel.BODY and e.direction is Direction.OUT]
    theirs = next(e for e in sent if e.msg_id == "mcp-inspect-1")
    assert theirs.meta["inspector_id"] == 1  # what the router did to the frame, on its event
