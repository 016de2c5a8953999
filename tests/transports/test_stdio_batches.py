"""The stdio reader hands a read's lines over together (one ``emit_many``: one recording
flush for them, one time read for them): every line still becomes its event, in order,
stored, counted and recorded, whatever the size of the reads and the lines."""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path

import anyio

from inspector.engine.session import Session
from inspector.live.state import LiveState
from inspector.record.format import SessionHeader
from inspector.record.recorder import Recorder
from inspector.transports.stdio import BATCH, StdioTransport, iter_line_batches
from inspector.wire.events import WireEvent


def flood(count: int) -> bytes:
    lines = []
    for n in range(count):
        params = {"level": "info", "logger": "flood", "data": f"line {n}"}
        lines.append(
            json.dumps({"jsonrpc": "2.0", "method": "notifications/message", "params": params})
        )
    return ("\n".join(lines) + "\n").encode()


def stream_of(data: bytes, piece: int) -> asyncio.StreamReader:
    stream = asyncio.StreamReader(limit=1 << 16)
    for start in range(0, len(data), piece):
        stream.feed_data(data[start : start + piece])
    stream.feed_eof()
    return stream


async def test_a_read_comes_as_one_batch_and_a_last_unterminated_line_alone() -> None:
    batches = []
    with anyio.fail_after(5):
        async for lines, terminated in iter_line_batches(stream_of(b"a\nb\n\nc\r\nd", 1 << 16)):
            batches.append((lines, terminated))
    assert batches == [([b"a", b"b", b"", b"c\r"], True), ([b"d"], False)]


async def test_every_line_of_a_flood_is_stored_counted_and_recorded_in_order(
    tmp_path: Path,
) -> None:
    count = 5 * BATCH + 7
    path = tmp_path / "flood.jsonl"
    recorder = Recorder(path, SessionHeader(target={}))
    transport = StdioTransport(sys.executable)
    session = Session(transport, recorder=recorder, protocol_version="2025-11-25")
    state = LiveState()
    session.add_observer(state.observe)
    state.attach(session)
    batches: list[int] = []
    emit_many = session.emit_many

    def spy(events: list[WireEvent]) -> None:
        batches.append(len(events))
        emit_many(events)

    session.emit_many = spy  # type: ignore[method-assign]
    transport._host = session  # the reading alone: no process
    with anyio.fail_after(10):
        await transport.read_stdout(stream_of(flood(count), 4096 + 17))  # lines cut across reads
    state.take_changes()
    recorder.close()
    assert max(batches) > 1 and max(batches) <= BATCH  # together, bounded
    assert state.server_log.count == len(state.events) == count
    shown = [state.events.event(i).message["params"]["data"] for i in range(count)]
    assert shown == [f"line {n}" for n in range(count)]
    recorded = [json.loads(line) for line in path.read_bytes().splitlines()[1:]]
    assert [json.loads(r["raw"])["params"]["data"] for r in recorded] == shown
    assert [r["seq"] for r in recorded] == list(range(1, count + 1))


async def test_a_non_json_line_in_a_batch_is_an_event_and_noise() -> None:
    transport = StdioTransport(sys.executable)
    session = Session(transport, protocol_version="2025-11-25")
    seen: list[WireEvent] = []
    session.add_observer(seen.append)
    transport._host = session
    data = b'{"jsonrpc": "2.0", "method": "a"}\nnot json\n  \n{"jsonrpc": "2.0", "method": "b"}\n'
    with anyio.fail_after(5):
        await transport.read_stdout(stream_of(data, 1 << 16))
    assert [e.raw for e in seen] == [
        b'{"jsonrpc": "2.0", "method": "a"}',
        b"not json",
        b'{"jsonrpc": "2.0", "method": "b"}',
    ]
    assert seen[1].error is not None and seen[0].error is None
    assert transport._noise[-1] == "not json"
