"""Replaying a proxy's recording (or an attached inspector's): requests pair with their
responses within each side, as the log pairs them; one opening is replayed."""

from __future__ import annotations

import json
from typing import Any

from inspector.replay.plan import build_plan
from inspector.wire.events import Channel, Direction, WireEvent


def frame(seq: int, direction: Direction, message: dict[str, Any], **meta: Any) -> WireEvent:
    event = WireEvent(direction, Channel.BODY, json.dumps(message).encode(), message, meta=meta)
    event.seq = seq
    return event


def request(seq: int, id_: Any, method: str, **meta: Any) -> WireEvent:
    return frame(seq, Direction.OUT, {"jsonrpc": "2.0", "id": id_, "method": method}, **meta)


def answer(seq: int, id_: Any, text: str, **meta: Any) -> WireEvent:
    message = {"jsonrpc": "2.0", "id": id_, "result": {"text": text}}
    return frame(seq, Direction.IN, message, **meta)


def test_the_same_id_on_each_side_and_in_each_host_session_pairs_apart() -> None:
    one = {"side": "host", "link": 1}
    two = {"side": "host", "link": 2}
    mine = {"side": "inspector", "attach": 1}
    events = [
        request(1, 0, "initialize", **one),
        answer(2, 0, "init one", **one),
        request(3, 0, "initialize", **two),  # the second host session opens: not replayed
        request(4, 1, "tools/list", **one),
        request(5, 1, "prompts/list", **two),
        request(6, 1, "ping", **mine),
        answer(7, 0, "init two", **two),
        answer(8, 1, "prompts of two", **two),
        answer(9, 1, "pong", **mine),
        answer(10, 1, "tools of one", **one),
    ]
    plan = build_plan(events)
    assert plan.initialize is not None and plan.initialize.seq == 1
    assert plan.initialize.response == {"jsonrpc": "2.0", "id": 0, "result": {"text": "init one"}}
    got = {s.method: s.response["result"]["text"] for s in plan.steps if s.response}
    assert got == {"tools/list": "tools of one", "prompts/list": "prompts of two", "ping": "pong"}
    assert [s.method for s in plan.steps] == ["tools/list", "prompts/list", "ping"]


def test_an_ordinary_recording_pairs_as_before() -> None:
    events = [request(1, 0, "initialize"), answer(2, 0, "i"), request(3, 1, "ping")]
    events += [answer(4, 1, "pong")]
    plan = build_plan(events)
    assert [s.response["result"]["text"] for s in plan.steps if s.response] == ["pong"]
