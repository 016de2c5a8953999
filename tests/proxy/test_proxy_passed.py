"""The catalog an attached inspector takes from what passed: pages joined, a refused
listing keeps the old list, each side's ids apart, its own frames ignored."""

from __future__ import annotations

import json
from typing import Any

from inspector.proxy.passed import PassedCatalog
from inspector.wire.events import Channel, Direction, WireEvent


def frame(direction: Direction, message: dict[str, Any], **meta: Any) -> WireEvent:
    meta = {"observed": True, "side": "host", **meta}
    return WireEvent(direction, Channel.STDIN, json.dumps(message).encode(), message, meta=meta)


def ask(id_: Any, method: str, cursor: str | None = None, **meta: Any) -> WireEvent:
    params = {"cursor": cursor} if cursor else {}
    message = {"jsonrpc": "2.0", "id": id_, "method": method, "params": params}
    return frame(Direction.OUT, message, **meta)


def answer(id_: Any, result: dict[str, Any] | None = None, **meta: Any) -> WireEvent:
    body = {"result": result} if result is not None else {"error": {"code": 1, "message": "x"}}
    return frame(Direction.IN, {"jsonrpc": "2.0", "id": id_, **body}, **meta)


def test_pages_are_joined_and_each_complete_listing_is_told() -> None:
    catalog = PassedCatalog()
    told: list[tuple[str, list[str]]] = []
    catalog.on_listing = lambda kind, items: told.append((kind, [i["name"] for i in items]))
    catalog.observe(ask(1, "tools/list"))
    catalog.observe(answer(1, {"tools": [{"name": "a"}], "nextCursor": "c"}))
    assert told == [] and "tools" not in catalog.lists  # not complete yet
    catalog.observe(ask(2, "tools/list", cursor="c"))
    catalog.observe(answer(2, {"tools": [{"name": "b"}]}))
    assert told == [("tools", ["a", "b"])]
    catalog.observe(ask(3, "prompts/list"))
    catalog.observe(answer(3))  # refused: nothing told, the old list (none) stands
    assert "prompts" not in catalog.lists and len(told) == 1


def test_sides_and_links_keep_their_ids_apart_and_own_frames_are_ignored() -> None:
    catalog = PassedCatalog()
    catalog.observe(ask(1, "tools/list", link=1))
    catalog.observe(ask(1, "ping", link=2))  # the same id in another host session
    catalog.observe(answer(1, {}, link=2))
    assert "tools" not in catalog.lists
    catalog.observe(answer(1, {"tools": [{"name": "t"}]}, link=1))
    assert [t["name"] for t in catalog.lists["tools"]] == ["t"]
    mine = ask(9, "resources/list")
    mine.meta.pop("observed")
    catalog.observe(mine)
    catalog.observe(answer(9, {"resources": [{"uri": "x"}]}))
    assert "resources" not in catalog.lists  # the inspector's own listing is not "passed"
