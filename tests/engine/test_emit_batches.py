"""Frames read together (a stdio read's lines) go through ``Session.emit_many``: each one
recorded, the recording flushed once, then each one acted on, in order. Still
write-ahead (on disk before anyone sees it), still the same findings as one at a time
(a response waits for the frames before it), nothing dropped or reordered, and a note
emitted while they are acted on comes after them, in the order of seq."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import anyio
from memory_peer import handshake

from inspector.engine.session import Session
from inspector.record.format import SessionHeader
from inspector.record.recorder import Recorder
from inspector.transports.memory import memory_pair
from inspector.transports.stdio import StdioTransport
from inspector.wire import jsonrpc
from inspector.wire.events import Channel, Direction, WireEvent
from inspector.wire.jsonrpc import make_event


def frame(message: Any) -> WireEvent:
    return make_event(Direction.IN, Channel.STDOUT, jsonrpc.encode(message))


def log_line(n: int) -> WireEvent:
    return frame(jsonrpc.notification("notifications/message", {"level": "info", "data": n}))


class Journal:
    """A recorder that defers its flush, saying what happened when."""

    def __init__(self, said: list[tuple[str, int]]) -> None:
        self.said = said

    def write(self, event: WireEvent, *, flush: bool = True) -> None:
        self.said.append(("write", event.seq))
        if flush:
            self.flush()

    def flush(self) -> None:
        self.said.append(("flush", 0))


class WriteOnly:
    """A recorder with no flush of its own to defer: each frame is flushed as written."""

    def __init__(self, said: list[tuple[str, int]]) -> None:
        self.said = said

    def write(self, event: WireEvent) -> None:
        self.said.append(("write", event.seq))


def idle_session(recorder: Any = None) -> Session:
    return Session(StdioTransport(sys.executable), recorder=recorder, protocol_version="2025-11-25")


def test_a_batch_is_recorded_and_flushed_before_any_of_it_is_seen() -> None:
    said: list[tuple[str, int]] = []
    session = idle_session(Journal(said))
    session.add_observer(lambda event: said.append(("seen", event.seq)))
    session.emit_many([log_line(n) for n in range(3)])
    assert said == [
        ("write", 1),
        ("write", 2),
        ("write", 3),
        ("flush", 0),
        ("seen", 1),
        ("seen", 2),
        ("seen", 3),
    ]


def test_a_recorder_without_a_flush_of_its_own_writes_each_before_it_is_seen() -> None:
    said: list[tuple[str, int]] = []
    session = idle_session(WriteOnly(said))
    session.add_observer(lambda event: said.append(("seen", event.seq)))
    session.emit_many([log_line(n) for n in range(2)])
    assert said.index(("write", 2)) < said.index(("seen", 1))  # one flush later is enough
    assert [k for k, _ in said] == ["write", "write", "seen", "seen"]


def test_each_frame_is_on_disk_when_an_observer_sees_it(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    recorder = Recorder(path, SessionHeader(target={}))
    session = idle_session(recorder)
    on_disk: list[bool] = []

    def seen(event: WireEvent) -> None:
        lines = path.read_bytes().splitlines()[1:]
        on_disk.append(any(json.loads(line)["seq"] == event.seq for line in lines))

    session.add_observer(seen)
    session.emit_many([log_line(n) for n in range(50)])
    recorder.close()
    assert on_disk == [True] * 50
    seqs = [json.loads(line)["seq"] for line in path.read_bytes().splitlines()[1:]]
    assert seqs == list(range(1, 51))


def test_a_note_emitted_while_a_batch_is_acted_on_comes_after_it() -> None:
    said: list[tuple[str, int]] = []
    session = idle_session(Journal(said))
    seen: list[int] = []

    def observe(event: WireEvent) -> None:
        seen.append(event.seq)
        said.append(("seen", event.seq))
        if event.seq == 2:
            session.note("a subscriber says something")

    session.add_observer(observe)
    session.emit_many([log_line(n) for n in range(4)])
    assert seen == [1, 2, 3, 4, 5]  # the note (seq 5) after the batch: in order
    assert said.index(("write", 5)) < said.index(("seen", 5))  # recorded first


def test_every_notification_of_a_batch_reaches_its_subscribers_in_order() -> None:
    session = idle_session()
    got: list[Any] = []
    session.on_notification("notifications/message", lambda params: got.append(params["data"]))
    session.emit_many([log_line(n) for n in range(1000)])
    assert got == list(range(1000))


async def run_batched(batched: bool) -> list[tuple[int, str, list[str]]]:
    """Two requests in flight; the server's frames come in (in one batch, or one at a
    time): a log line, both responses, a duplicate of the first, one to an unknown id."""
    transport, server = memory_pair()
    seen: list[tuple[int, str, list[str]]] = []
    with anyio.fail_after(5):
        async with Session(transport) as session, anyio.create_task_group() as tg:
            tg.start_soon(handshake, server)
            await session.initialize()
            session.add_observer(
                lambda e: seen.append((e.seq, e.kind.value, [f.code for f in e.findings]))
            )
            results: dict[int, Any] = {}

            async def ask(n: int) -> None:
                results[n] = await session.request("tools/list")

            tg.start_soon(ask, 0)
            tg.start_soon(ask, 1)
            ids = [(await server.receive())["id"], (await server.receive())["id"]]
            frames = [
                log_line(0),
                frame(jsonrpc.response(ids[0], {"tools": []})),
                frame(jsonrpc.response(ids[0], {"tools": []})),  # again: late
                log_line(1),
                frame(jsonrpc.response(ids[1], {"tools": []})),
                frame(jsonrpc.response(999, {})),  # answers nothing
            ]
            if batched:
                session.emit_many(frames)
            else:
                for one in frames:
                    session.emit(one)
            with anyio.fail_after(2):
                while len(results) < 2:
                    await anyio.sleep(0.01)
    return [entry for entry in seen if entry[1] != "system"]


async def test_a_batch_gets_the_findings_and_order_of_frames_emitted_one_by_one() -> None:
    one_by_one = await run_batched(False)
    batched = await run_batched(True)
    assert batched == one_by_one
    codes = [codes for _, kind, codes in batched if kind == "response"]
    assert "late-response" in codes[1]  # the duplicate saw the first one acted on


def test_a_frame_whose_handling_fails_does_not_cost_the_frames_after_it() -> None:
    session = idle_session()  # not started: a server's request cannot be answered
    got: list[Any] = []
    session.on_notification("notifications/message", lambda params: got.append(params["data"]))
    session.emit_many([log_line(0), frame(jsonrpc.request(7, "ping")), log_line(1)])
    assert got == [0, 1]
