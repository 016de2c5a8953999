"""``jsonrpc.decode`` parses a frame that is one JSON value end to end without
``json.loads``'s wrapping (a flood's every line goes through it); every other frame gets
exactly what ``json.loads`` of the stripped text gives, its error words too."""

from __future__ import annotations

import json
from typing import Any

import pytest

from inspector.wire.jsonrpc import decode


def reference(raw: bytes) -> tuple[Any, str | None]:
    """The decoding before the fast path: strip, then ``json.loads``."""
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        return None, f"invalid UTF-8 at byte {exc.start}: {exc.reason}"
    stripped = text.strip()
    if not stripped:
        return None, "empty frame"
    try:
        return json.loads(stripped), None
    except json.JSONDecodeError as exc:
        return None, f"not JSON: {exc.msg} at line {exc.lineno} column {exc.colno}"
    except RecursionError:
        return None, "not JSON: nested too deeply"


FRAMES = [
    b'{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info"}}',
    b'{"jsonrpc": "2.0", "id": 1, "result": {}}',
    b'  {"jsonrpc":"2.0","id":1,"result":{}}',  # leading blanks
    b'{"jsonrpc":"2.0","id":1,"result":{}}\r',  # a CRLF line's \r
    b'{"a": 1} {"b": 2}',  # extra data
    b'{"a": 1}}',
    b'{"a": ',  # cut
    b"[]",
    b"[1, 2",
    b"42",
    b"-0.5e3",
    b'"text"',
    b"null",
    b"true ",
    b"NaN",
    b"Infinity",
    b"nul",
    b"",
    b"   ",
    b"\xef\xbb\xbf{}",  # a BOM
    b"\xff{}",  # not UTF-8
    '{"é": "ü", "emoji": "😀"}'.encode(),
    "\u00a0{}\u2003".encode(),  # Unicode blanks around: strip takes them, JSON does not
    b"[" * 100_000 + b"]" * 100_000,  # too deep
    b"hello world",
    b'{"x": "\\ud800"}',  # a lone surrogate escaped
]


@pytest.mark.parametrize("raw", FRAMES, ids=range(len(FRAMES)))
def test_decode_agrees_with_json_loads(raw: bytes) -> None:
    assert decode(raw) == reference(raw)
