"""A session line is written by hand (the hot path of every session and proxy): it must
read back as the same object ``event_to_json`` builds, and as the same event."""

from __future__ import annotations

import json
from typing import Any

import pytest

from inspector.record.format import (
    EVENT_ENCODER,
    Redactor,
    decode_event,
    encode_event,
    event_to_json,
)
from inspector.wire.events import Channel, Direction, Finding, WireEvent
from inspector.wire.jsonrpc import decode

FRAME = (
    b'{"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"text","text":"caf\xc3\xa9 \\u2028"}]}}'
)


def event(raw: bytes, meta: dict[Any, Any], channel: Channel = Channel.STDOUT) -> WireEvent:
    message, error = decode(raw)
    made = WireEvent(Direction.IN, channel, raw, message, error, meta)
    made.seq, made.time, made.mono = 41, 1795448516.9923171, 12218.2177701
    return made


CASES = [
    event(FRAME, {"side": "host", "link": 2}),
    event(FRAME, {}),
    event(b"\xff\xfe not utf-8", {"side": "server"}, Channel.STDERR),
    event(b'{"jsonrpc":"2.0","id":', {"attach": None, "held": True, "edited": False}),
    event('a note "quoted" \t tab \u2028'.encode(), {"severity": "info"}, Channel.SYSTEM),
    event(FRAME, {"headers": {"content-type": "application/json"}, "status": 200}),
    event(FRAME, {1: "a key that is not a string", "ratio": 0.5, "list": [1, "x"]}),
    event(FRAME, {"text": 'line\nbreak "and" \\ \x00 \u00e9 \U0001f600'}),
    # header dicts (every HTTP line's): written by hand when every key and value is a str
    event(
        b"POST http://x/mcp?api_key=s3cret",
        {"headers": {"Authorization": "Bearer hunter22", 'q"\u2028': "\\ \u00e9"}, "n": 3},
        Channel.HTTP,
    ),
    event(FRAME, {"headers": {"x-count": 3}, "env": {"HOME": "/root"}, "ok": True}),
    event(FRAME, {"headers": {}, "status": 204, "reason": None}),
]
CASES[1].findings.append(Finding("invalid", "missing field", "error"))


@pytest.mark.parametrize("redactor", [None, Redactor(), Redactor(["hunter22"])])
@pytest.mark.parametrize("made", CASES)
def test_a_line_is_the_object_event_to_json_builds(
    made: WireEvent, redactor: Redactor | None
) -> None:
    line = encode_event(made, redactor)
    assert line.endswith(b"\n") and line.count(b"\n") == 1
    expected = json.loads(EVENT_ENCODER.encode(event_to_json(made, redactor)))
    assert json.loads(line) == expected
    back = decode_event(line)
    assert (back.seq, back.direction, back.channel) == (41, made.direction, made.channel)
    assert abs(back.time - made.time) < 1e-6 and abs(back.mono - made.mono) < 1e-6


def test_secrets_leave_the_hand_written_line() -> None:
    redactor = Redactor(["hunter22"])
    made = event(
        b'{"jsonrpc":"2.0","id":1,"result":{"token":"hunter22"}}',
        {"side": "host", "url": "https://x.example/mcp?api_key=abcdef"},
    )
    line = encode_event(made, redactor)
    assert b"hunter22" not in line and b"abcdef" not in line
    assert "«redacted»" in json.loads(line)["raw"]
