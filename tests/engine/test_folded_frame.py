"""A big frame parsed from its bytes (``inspector.wire.folded.fold_frame``): a long string
decoded from the frame in one pass, never the frame's whole text (issue 25 item 9: a 1
MB text result was held three times while it was parsed), with the values and the
refusals of ``json.loads``."""

from __future__ import annotations

import json
import tracemalloc
from typing import Any

import pytest

from inspector.wire import folded
from inspector.wire.folded import FOLD_ITEMS, LONG, fold_frame, total

LINES = "".join(f"{n:7d}  Lorem ipsum dolor sit amet\n" for n in range(LONG // 20))
TEXT = LINES + 'quoted "q", back \\ slash, C:\\Users, tab \t, \u00e9 😀 \u0000 \x7f end'
ASCII = LINES + 'quoted "q", back \\ slash, C:\\Users, \\\\/, tab \t, \x01 \x7f end'


def response(text: str) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": 3, "result": {"content": [{"type": "text", "text": text}]}}


DOCUMENTS = [
    response(ASCII),
    response(TEXT),
    [ASCII, 1, {"k": [ASCII, "short", None]}, TEXT],
    ASCII,
    {"rows": [ASCII] * (FOLD_ITEMS + 3), "after": ASCII},  # past the items kept too
    {ASCII: 1, "after": ASCII},  # a long key
    {"deep": [[[[[[[[[[ASCII]]]]]]]]]]},
]


@pytest.mark.parametrize("document", DOCUMENTS, ids=range(len(DOCUMENTS)))
@pytest.mark.parametrize("ascii_only", [True, False])
def test_a_frame_parses_as_json_loads(document: Any, ascii_only: bool) -> None:
    raw = json.dumps(document, ensure_ascii=ascii_only).encode()
    assert json.loads(raw) == fold_frame(raw, items=10 * FOLD_ITEMS)


def test_what_unicode_escape_reads_otherwise_is_parsed_as_json() -> None:
    """``\\/``, a surrogate pair and a lone surrogate in a long string: JSON's values."""
    for escapes in ("\\/", "\\ud83d\\ude00", "\\ud800", "\\u00e9", "\\\\\\/"):
        raw = json.dumps({"a": ASCII + "#"}).replace("#", escapes).encode()
        assert fold_frame(raw) == json.loads(raw)


def test_a_deeply_nested_long_string_and_a_fold() -> None:
    deep: Any = ASCII
    for _ in range(80):
        deep = [deep]
    raw = json.dumps({"deep": deep, "rows": list(range(3 * FOLD_ITEMS))}).encode()
    got = fold_frame(raw)
    assert got["deep"] == deep and total(got["rows"]) == 3 * FOLD_ITEMS


@pytest.mark.parametrize(
    "inside",
    [b"raw\ttab", b"\\x41", b"\\'", b"\\u12", b"\\\n", b"\xff", b"\x80"],
)
def test_what_json_refuses_in_a_long_string_is_refused(inside: bytes) -> None:
    raw = b'{"a": "' + b"x" * LONG + inside + b'"}'
    with pytest.raises(ValueError):
        json.loads(raw)
    with pytest.raises(ValueError):  # UnicodeDecodeError is one
        fold_frame(raw)


def test_an_unclosed_long_string_is_refused() -> None:
    with pytest.raises(ValueError):
        fold_frame(b'{"a": "' + b"x" * LONG + b'\\"}')


def test_a_long_string_is_decoded_from_the_frame_never_the_frame_whole(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The text decoded and scanned is the frame without its long string, which is made
    from the bytes at once: parsing a 1 MB text result holds the frame and the value,
    never the frame's decoded text beside them (tracemalloc counts Python's own
    allocations: the same figure on every run)."""
    raw = json.dumps(response(ASCII * (1_000_000 // len(ASCII)))).encode()
    scanned: list[int] = []
    fold_loads = folded.fold_loads

    def spy(text: str, *args: Any) -> Any:
        scanned.append(len(text))
        return fold_loads(text, *args)

    monkeypatch.setattr(folded, "fold_loads", spy)
    tracemalloc.start()
    try:
        message = fold_frame(raw)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert message == json.loads(raw)
    assert scanned and max(scanned) < 200
    text = message["result"]["content"][0]["text"]
    assert peak < len(text) + len(raw) // 4  # the value; its frame's text was as big again
