"""A session file with one huge line (a recorded 40 MB result): indexed around it without
reading it into memory (growing a chunk until a newline came copied it over and over: a
300 MB line took 50-95 s and 1.5 GB), its log row, columns and pairing read from its head
only, and the whole line decoded when its detail is shown."""

from __future__ import annotations

import json
import tracemalloc
from pathlib import Path

import pytest
from tui_helpers import wait_for

from inspector.record.format import SessionHeader, encode_event
from inspector.record.indexed import IndexedSessionFile
from inspector.tui.app import InspectorApp
from inspector.tui.widgets.message_detail import MessageDetail
from inspector.tui.widgets.message_log import LogLines, MessageLog
from inspector.wire.events import Channel, Direction, Kind, WireEvent

HUGE_MB = 40


@pytest.fixture(scope="module")
def huge_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("huge") / "huge.jsonl"

    def line(seq: int, direction: Direction, message: object) -> bytes:
        raw = json.dumps(message, separators=(",", ":")).encode()
        channel = Channel.STDIN if direction is Direction.OUT else Channel.STDOUT
        return encode_event(WireEvent(direction, channel, raw, seq=seq, time=1.0, mono=1.0))

    text = "x" * (HUGE_MB << 20)
    with path.open("wb") as fh:
        fh.write(SessionHeader(target={"command": "huge"}).to_line())
        call = {"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": {"name": "big"}}
        fh.write(line(1, Direction.OUT, call))
        result = {"content": [{"type": "text", "text": text}]}
        fh.write(line(2, Direction.IN, {"jsonrpc": "2.0", "id": 7, "result": result}))
        for n in range(3, 60):
            fh.write(line(n, Direction.OUT, {"jsonrpc": "2.0", "id": n, "method": "ping"}))
    return path


def test_a_huge_line_is_indexed_and_shown_by_its_head(huge_file: Path) -> None:
    tracemalloc.start()
    try:
        source = IndexedSessionFile(huge_file)
        source.index_all()
        summary = source.summary_event(1)
        assert (source.seq(1), source.kind(1), source.method(1)) == (2, Kind.RESPONSE, "tools/call")
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    # an indexing step's 8 MB read at most, never the 40 MB line (before: twice the line)
    assert peak < 16 << 20, f"{peak:,} bytes held to index and summarize a 40 MB line"
    assert len(source) == 59 and source.stored_size(1) > HUGE_MB << 20
    assert summary.meta["huge_line"] == source.stored_size(1)
    assert summary.message["id"] == 7 and "MB line" in str(summary.message["result"])
    assert source.find_request(1) == 0 and source.find_response(0) == 1
    whole = source.event(1)  # the detail asks for it: decoded whole
    assert len(whole.raw) > HUGE_MB << 20 and whole.message["id"] == 7
    source.close()


@pytest.mark.slow
async def test_the_replay_opens_at_once_and_reads_the_line_when_shown(huge_file: Path) -> None:
    source = IndexedSessionFile(huge_file)
    app = InspectorApp(None, source=source, replay_title="huge")
    async with app.run_test(size=(140, 40)) as pilot:
        log = app.query_one(MessageLog)
        lines = app.query_one(LogLines)
        await wait_for(pilot, lambda: log.shown == 59 and lines.rendered_rows > 10)
        assert 1 not in source._cache  # its row came from its head
        assert "MB line" in lines.summary(1).text
        lines.focus()
        lines.move_cursor(1)
        await pilot.press("enter")  # its detail: now it is read whole
        detail = app.query_one(MessageDetail)
        await wait_for(pilot, lambda: detail.event is not None and detail.index == 1, 30)
        assert detail.event is not None and len(detail.event.raw) > HUGE_MB << 20
