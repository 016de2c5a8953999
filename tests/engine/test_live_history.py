"""The call history (``inspector.live.history``), headless: read off the frames of a live
store and of a session file alike, so a replay has the same calls."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from inspector.live.history import CallHistory
from inspector.live.state import LiveState
from inspector.logstore.store import EventStore
from inspector.record.format import SessionHeader
from inspector.record.indexed import IndexedSessionFile
from inspector.record.recorder import Recorder
from inspector.wire.events import ATTACH_KEY, SIDE_KEY, Channel, Direction, WireEvent


def frame(direction: Direction, message: dict[str, Any], **meta: Any) -> WireEvent:
    raw = json.dumps({"jsonrpc": "2.0", **message}).encode()
    return WireEvent(direction, Channel.STDIN, raw, json.loads(raw), meta=dict(meta))


def request(rid: int, method: str, params: Any, **meta: Any) -> WireEvent:
    return frame(Direction.OUT, {"id": rid, "method": method, "params": params}, **meta)


def result(rid: int, value: Any) -> WireEvent:
    return frame(Direction.IN, {"id": rid, "result": value})


SESSION = [
    request(0, "tools/list", {}),
    result(0, {"tools": []}),
    request(1, "tools/call", {"name": "add", "arguments": {"a": 2, "b": 3}}),
    result(1, {"content": [{"type": "text", "text": "5"}]}),
    request(2, "resources/read", {"uri": "demo://readme"}),
    frame(Direction.IN, {"id": 2, "error": {"code": -32002, "message": "no such resource"}}),
    request(3, "prompts/get", {"name": "greet", "arguments": {"who": "Ada"}}),
    request(4, "tools/call", {"name": "divide", "arguments": {"a": 1, "b": 0}}),
    result(4, {"content": [], "isError": True}),
    # a load run's virtual user: its traffic, not a call the user made
    request(5, "tools/call", {"name": "add", "arguments": {}}, **{SIDE_KEY: "user", ATTACH_KEY: 1}),
    # the host's call on a proxy's wire: kept, and said whose
    request(6, "tools/call", {"name": "slow", "task": {"ttl": 1000}}, **{SIDE_KEY: "host"}),
    result(3, {"messages": []}),
]


def check(history: CallHistory) -> None:
    calls = history.calls()
    assert [c.label for c in calls] == [
        "tool slow",
        "tool divide",
        "prompt greet",
        "read demo://readme",
        "tool add",
    ]
    slow, divide, greet, readme, add = calls
    assert add.arguments == {"a": 2, "b": 3} and readme.arguments is None
    assert greet.arguments == {"who": "Ada"}
    assert slow.task and slow.party == "host" and slow.arguments == {}
    assert [c.name for c in history.calls("tools", "add")] == ["add"]
    # answers: a result, an error, a tool error, one that came late, none
    answer = history.answer(add)
    assert answer is not None and answer.result["content"][0]["text"] == "5"
    error = history.answer(readme)
    assert error is not None and error.failed and error.error["code"] == -32002
    status = history.status(readme)
    assert status is not None and status.error == "no such resource"
    failed = history.status(divide)
    assert failed is not None and failed.failed and failed.error is None
    assert history.answer(greet) is not None
    assert history.status(slow) is None and history.answer(slow) is None


def test_the_calls_of_a_live_store_newest_first() -> None:
    store = EventStore()
    history = CallHistory(store)
    store.extend(SESSION[:4])
    assert history.update() and [c.name for c in history.calls()] == ["add"]
    assert not history.update()  # nothing new
    store.extend(SESSION[4:])
    assert history.update()
    check(history)


def test_a_session_file_holds_the_same_history(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    recorder = Recorder(path, SessionHeader(target={"command": ["demo"]}))
    for event in SESSION:
        recorder.write(event)
    recorder.close()
    with IndexedSessionFile(path) as source:
        source.index_all()
        state = LiveState(source)  # a replay's state reads the file
        state.history.update()
        check(state.history)
