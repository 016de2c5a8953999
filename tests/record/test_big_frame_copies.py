"""A big frame on its way in (issue 25 item 9): the recorder writes it in pieces (the same
line), and the redactor keeps a frame that holds no secret as it is. Memory is measured
with tracemalloc (allocations, not time)."""

from __future__ import annotations

import json
import tracemalloc
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

from inspector.record.format import (
    PIECE,
    Redactor,
    SessionHeader,
    encode_event,
    encode_event_parts,
)
from inspector.record.recorder import Recorder
from inspector.wire.events import Channel, Direction, WireEvent
from inspector.wire.jsonrpc import encode

SIZE = 8_000_000


@contextmanager
def traced() -> Iterator[Callable[[], tuple[int, int]]]:
    """(memory added now, peak added) since the block began."""
    tracemalloc.start()
    start = tracemalloc.get_traced_memory()[0]
    try:
        yield lambda: tuple(m - start for m in tracemalloc.get_traced_memory())  # type: ignore[return-value]
    finally:
        tracemalloc.stop()


def big_result(text: str) -> bytes:
    result = {"content": [{"type": "text", "text": text}]}
    return encode({"jsonrpc": "2.0", "id": 7, "result": result})


def test_a_big_frame_s_line_in_pieces_is_the_line() -> None:
    # multi-byte characters cut by the pieces' edges, quotes, backslashes, a control
    text = ('é€😀 "quoted" back\\slash \x01 line\n' * (3 * PIECE // 40))[: 3 * PIECE]
    raw = big_result(text)
    event = WireEvent(Direction.IN, Channel.STDOUT, raw, meta={"unterminated": True})
    parts = list(encode_event_parts(event))
    assert len(parts) > 3  # in pieces
    line = b"".join(parts)
    assert line.endswith(b"}\n") and line.count(b"\n") == 1
    stored = json.loads(line)
    assert stored["raw"].encode() == raw and stored["meta"] == {"unterminated": True}
    small = WireEvent(Direction.IN, Channel.STDOUT, big_result("short"))
    assert json.loads(encode_event(small))["raw"].encode() == small.raw
    # not UTF-8: base64, as a small frame
    bad = WireEvent(Direction.IN, Channel.STDOUT, raw + b"\xff")
    assert "raw_b64" in json.loads(encode_event(bad))


def test_recording_a_big_frame_adds_no_copy_of_it(tmp_path: Path) -> None:
    raw = big_result("lorem ipsum dolor\n" * (SIZE // 18))
    event = WireEvent(Direction.IN, Channel.STDOUT, raw)
    recorder = Recorder(tmp_path / "s.jsonl", SessionHeader(target={}), Redactor())
    try:
        with traced() as added:
            recorder.write(event)
            peak = added()[1]
    finally:
        recorder.close()
    # the whole line at once held four copies of the frame at its peak
    assert peak < len(raw) // 4
    lines = (tmp_path / "s.jsonl").read_bytes().splitlines()
    assert json.loads(lines[1])["raw"].encode() == raw


def test_a_frame_with_no_secret_is_not_copied_to_redact_it() -> None:
    redactor = Redactor(["s3cret-token-value"])
    raw = big_result("nothing to hide here\n" * 1000)
    assert redactor.frame(raw) is raw
    leaked = big_result("the token is s3cret-token-value, é")
    assert b"s3cret" not in redactor.frame(leaked)
    assert "«redacted»" in redactor.frame(leaked).decode()


def test_recording_a_1_mb_frame_holds_a_small_part_of_it_at_once(tmp_path: Path) -> None:
    """Each piece is held about four times over while it is written (decoded, escaped,
    encoded, cut): pieces of 256 KiB were as much as the whole of a 1 MB result."""
    raw = big_result("lorem ipsum dolor\n" * 60_000)
    event = WireEvent(Direction.IN, Channel.STDOUT, raw)
    recorder = Recorder(tmp_path / "s.jsonl", SessionHeader(target={}), Redactor())
    try:
        with traced() as added:
            recorder.write(event)
            peak = added()[1]
    finally:
        recorder.close()
    assert peak < len(raw) // 3, (peak, len(raw))
    lines = (tmp_path / "s.jsonl").read_bytes().splitlines()
    assert json.loads(lines[1])["raw"].encode() == raw
