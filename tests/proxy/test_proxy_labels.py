"""A proxy's wire in the log: rows say whose frame it is; same ids of two sides never pair."""

from __future__ import annotations

from typing import Any

from inspector.engine.summary import summarize
from inspector.logstore.store import EventStore
from inspector.wire.events import Channel, Direction, WireEvent
from inspector.wire.jsonrpc import encode


def frame(direction: Direction, message: dict[str, Any], **meta: Any) -> WireEvent:
    channel = Channel.STDIN if direction is Direction.OUT else Channel.STDOUT
    return WireEvent(direction, channel, encode(message), message=message, meta=meta)


def test_rows_name_the_side() -> None:
    ping = {"jsonrpc": "2.0", "id": 1, "method": "ping"}
    assert summarize(frame(Direction.OUT, ping, side="host")).text.startswith("host │")
    mine = summarize(frame(Direction.OUT, ping, side="inspector", attach=2))
    assert mine.text.startswith("inspector 2 │")
    stderr = WireEvent(Direction.IN, Channel.STDERR, b"boom", meta={"side": "server"})
    assert summarize(stderr).text == "server │ boom"
    assert "│" not in summarize(frame(Direction.OUT, ping)).text  # an ordinary session


def test_the_same_id_on_two_sides_pairs_within_each_side() -> None:
    store = EventStore()
    host_req = store.append(
        frame(Direction.OUT, {"jsonrpc": "2.0", "id": 1, "method": "tools/list"}, side="host")
    )
    mine_req = store.append(
        frame(
            Direction.OUT,
            {"jsonrpc": "2.0", "id": 1, "method": "ping"},
            side="inspector",
            attach=1,
        )
    )
    host_resp = store.append(
        frame(Direction.IN, {"jsonrpc": "2.0", "id": 1, "result": {"tools": []}}, side="host")
    )
    mine_resp = store.append(
        frame(Direction.IN, {"jsonrpc": "2.0", "id": 1, "result": {}}, side="inspector", attach=1)
    )
    assert store.find_response(host_req) == host_resp
    assert store.find_response(mine_req) == mine_resp
    assert store.method(mine_resp) == "ping"


def test_each_host_session_of_an_http_front_pairs_its_own_ids() -> None:
    store = EventStore()
    listing = {"jsonrpc": "2.0", "id": 1, "method": "tools/list"}
    one = store.append(frame(Direction.OUT, listing, side="host", link=1))
    ping = {"jsonrpc": "2.0", "id": 1, "method": "ping"}
    two = store.append(frame(Direction.OUT, ping, side="host", link=2))
    pong = {"jsonrpc": "2.0", "id": 1, "result": {}}
    answer_two = store.append(frame(Direction.IN, pong, side="host", link=2))
    assert store.find_response(two) == answer_two
    assert store.find_response(one) is None
    assert store.method(answer_two) == "ping"
