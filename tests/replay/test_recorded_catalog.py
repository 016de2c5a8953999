"""What a recording tells about its server's lists: listed, refused, or never listed."""

from __future__ import annotations

import json
from typing import Any

from inspector.logstore.store import EventStore
from inspector.replay.recorded_catalog import rebuild_catalog
from inspector.wire.events import Channel, Direction, WireEvent


def frame(direction: Direction, message: dict[str, Any]) -> WireEvent:
    return WireEvent(direction, Channel.MEMORY, json.dumps(message).encode(), message)


def exchange(store: EventStore, id_: int, method: str, reply: dict[str, Any]) -> None:
    store.append(frame(Direction.OUT, {"jsonrpc": "2.0", "id": id_, "method": method}))
    store.append(frame(Direction.IN, {"jsonrpc": "2.0", "id": id_, **reply}))


def test_listed_refused_and_never_listed_are_told_apart() -> None:
    store = EventStore()
    exchange(store, 1, "initialize", {"result": {"capabilities": {"tools": {}}}})
    exchange(store, 2, "tools/list", {"result": {"tools": []}})
    exchange(store, 3, "prompts/list", {"error": {"code": -32601, "message": "no prompts"}})
    catalog = rebuild_catalog(store)
    assert catalog.recorded("tools") and catalog.lists["tools"] == []  # listed, empty
    assert catalog.recorded("prompts") and catalog.errors == {"prompts": "no prompts"}
    assert not catalog.recorded("resources") and "resources" not in catalog.lists
