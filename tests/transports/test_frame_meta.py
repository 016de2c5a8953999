"""Per-frame metadata through the transport interface: ``send_raw(..., meta=...)`` puts the
sender's meta on the frame's own outgoing events, and every other event of its exchange
carries it under ``SENT_WITH`` (a proxy knows whose a response stream is from that, not
from the context the transport happened to run in)."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import anyio
import pytest
from servers.http_support import Host, handshake, running

from inspector.transports.http import StreamableHttpTransport
from inspector.transports.stdio import StdioTransport
from inspector.wire.events import Channel, Direction, WireEvent
from inspector.wire.jsonrpc import notification, request
from inspector.wire.transport import SENT_WITH

SERVERS = Path(__file__).resolve().parents[1] / "servers"
ALICE = {"side": "inspector", "attach": 1, "inspector_id": 7}
BOB = {"side": "inspector", "attach": 2, "inspector_id": 8}


@pytest.fixture
def sdk_sse(sdk_sse_base: str) -> str:
    return sdk_sse_base + "/mcp"  # the worker's shared server (conftest)


def _of(host: Host, rid: Any) -> list[WireEvent]:
    """The events of request ``rid``'s exchange (its POST, its status, its stream)."""
    return [
        e
        for e in host.events
        if e.meta.get("request_id") == rid
        or e.meta.get("stream") == f"post:{rid}"
        or (e.direction is Direction.OUT and e.msg_id == rid)
    ]


async def test_each_exchange_carries_its_own_senders_meta(sdk_sse: str) -> None:
    """Two requests in flight at once, sent with different meta: every event of each
    exchange says whose it is; the frame's own events have the meta itself."""
    transport = StreamableHttpTransport(sdk_sse)
    with anyio.fail_after(30):
        async with running(transport) as host:
            await handshake(transport, host)
            steps = {"name": "progress_steps", "arguments": {"steps": 2}}
            meta = {2: ALICE, 3: BOB}
            async with anyio.create_task_group() as tg:
                for rid, who in meta.items():
                    tg.start_soon(
                        lambda rid=rid, who=who: transport.send(
                            request(rid, "tools/call", steps), meta=who
                        )
                    )
            await host.wait_response(2)
            await host.wait_response(3)
    for rid, who in meta.items():
        events = _of(host, rid)
        own = [e for e in events if e.direction is Direction.OUT]
        assert {e.channel for e in own} == {Channel.HTTP, Channel.BODY}
        for event in own:
            assert {k: event.meta.get(k) for k in who} == who and SENT_WITH not in event.meta
        brought = [e for e in events if e.direction is Direction.IN]
        assert {e.channel for e in brought} >= {Channel.HTTP, Channel.SSE}
        assert all(e.meta.get(SENT_WITH) == who for e in brought), brought
    # the handshake went without meta: nothing of it says SENT_WITH, nor has a side
    for event in _of(host, 1):
        assert SENT_WITH not in event.meta and "side" not in event.meta


async def test_the_get_stream_is_the_exchange_that_opened_it(sdk_sse: str) -> None:
    """The standing GET stream is opened by notifications/initialized: its request line
    carries that frame's meta (a proxy labels it as the host's)."""
    host_meta = {"side": "host"}
    transport = StreamableHttpTransport(sdk_sse)
    with anyio.fail_after(30):
        async with running(transport) as host:
            await transport.send(request(1, "initialize", _init_params()), meta=host_meta)
            await host.wait_response(1)
            transport.set_protocol_version("2025-11-25", stateless=False)
            await transport.send(notification("notifications/initialized"), meta=host_meta)
            await host.wait(lambda: _get_lines(host))
    get = _get_lines(host)[0]
    assert get.meta[SENT_WITH] == host_meta and "side" not in get.meta


@pytest.mark.slow
async def test_stdio_puts_meta_on_the_frame_and_nothing_on_what_the_server_writes() -> None:
    """stdio has no exchanges: the line written carries the meta, the lines read do not."""
    transport = StdioTransport(sys.executable, [str(SERVERS / "sdk_stdio_server.py")])
    with anyio.fail_after(30):
        async with running(transport) as host:
            await transport.send(request(1, "initialize", _init_params()), meta=ALICE)
            await host.wait_response(1, 20)
    sent = host.on(Channel.STDIN, Direction.OUT)
    assert len(sent) == 1 and {k: sent[0].meta[k] for k in ALICE} == ALICE
    assert all(SENT_WITH not in e.meta and "side" not in e.meta for e in host.on(Channel.STDOUT))


def _get_lines(host: Host) -> list[WireEvent]:
    return [e for e in host.on(Channel.HTTP, Direction.OUT) if e.meta["method"] == "GET"]


def _init_params() -> dict[str, Any]:
    return {
        "protocolVersion": "2025-11-25",
        "capabilities": {},
        "clientInfo": {"name": "test-host", "version": "0"},
    }
