"""A flood's backlog in the feed and the workspace's recorder: stored a slice per turn but
posted once it is all stored (one set of messages a tick, not one a slice), every event
once, in order; a workspace server's recorder defers its flush with the session's, and
its copy to the merged log waits for the flush (write-ahead)."""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path
from typing import Any

import anyio

from inspector.engine.session import Session
from inspector.live.state import LiveState
from inspector.record.format import SessionHeader
from inspector.record.recorder import Recorder
from inspector.transports.stdio import StdioTransport
from inspector.tui import messages
from inspector.tui.live_feed import LiveFeed
from inspector.wire import jsonrpc
from inspector.wire.events import Channel, Direction, WireEvent
from inspector.wire.jsonrpc import make_event
from inspector.workspace.merged import ServerTag


def log_line(n: int) -> WireEvent:
    message = jsonrpc.notification("notifications/message", {"level": "info", "data": n})
    return make_event(Direction.IN, Channel.STDOUT, jsonrpc.encode(message))


class Node:
    """Stands for a widget: keeps what it is posted."""

    def __init__(self) -> None:
        self.posted: list[Any] = []

    def post_message(self, message: Any) -> bool:
        self.posted.append(message)
        return True


async def test_a_backlog_is_stored_a_slice_a_turn_and_posted_once() -> None:
    state = LiveState()
    session = Session(StdioTransport(sys.executable), protocol_version="2025-11-25")
    session.add_observer(state.observe)
    state.attach(session)
    feed = LiveFeed(state, limit=100)
    node = Node()
    feed.subscribe(node)  # type: ignore[arg-type]
    feed.flush()  # the attach: posted at once
    node.posted.clear()
    session.emit_many([log_line(n) for n in range(1050)])  # 11 slices
    stored: list[int] = []
    extend = state.store.extend

    def spy(events: Any) -> None:
        batch = list(events)
        stored.append(len(batch))
        extend(batch)

    state.store.extend = spy  # type: ignore[method-assign]
    feed.flush()
    with anyio.fail_after(5):
        while state.pending_events:
            await asyncio.sleep(0)
    added = [m for m in node.posted if isinstance(m, messages.EventsAdded)]
    logged = [m for m in node.posted if isinstance(m, messages.ServerLogAdded)]
    assert max(stored) <= 100 and sum(stored) == 1050  # a slice a turn
    assert len(added) <= 2 and len(logged) <= 2  # not one a slice
    events = [e for m in added for e in m.events]
    assert [e.message["params"]["data"] for e in events] == list(range(1050))
    assert [m.first for m in added] == [0, len(added[0].events)][: len(added)]
    entries = [e.params["data"] for m in logged for e in m.entries]
    assert entries == list(range(1050))


def test_the_merged_log_gets_a_frame_once_it_is_on_disk(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    tag = ServerTag("files", Recorder(path, SessionHeader(target={})))
    on_disk: list[bool] = []

    def sink(event: WireEvent) -> None:
        lines = path.read_bytes().splitlines()[1:]
        on_disk.append(any(json.loads(line)["seq"] == event.seq for line in lines))

    tag.merge_into(sink)
    session = Session(StdioTransport(sys.executable), recorder=tag, protocol_version="2025-11-25")
    session.emit_many([log_line(n) for n in range(20)])
    assert on_disk == [True] * 20
    seqs = [json.loads(line)["seq"] for line in path.read_bytes().splitlines()[1:]]
    assert seqs == list(range(1, 21))
    assert all(
        json.loads(line)["meta"]["server"] == "files" for line in path.read_bytes().splitlines()[1:]
    )
