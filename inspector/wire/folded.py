"""A big frame parsed folded: its JSON as ``json.loads`` gives it, but a long array or
object keeps only its first items (``FoldedList``, ``FoldedDict``: how many it had in
``total``), and past a budget of values no more are kept at all.

A 13 MB ``structuredContent`` of 100,000 small objects parses into ~3.7x its size of
Python objects; with the frame's bytes and its decoded text beside them that was a
result's peak on arrival (5.7x). Folded, the objects kept are a few thousand, and the
items left out are parsed one at a time (the C scanner) and let go: the frame's text
and one item at a time are all that is held beyond them. Whoever needs the whole value
parses the frame again (the frame is the truth: the log and the session file hold it).
"""

from __future__ import annotations

import codecs
import json
import re
from collections.abc import Callable, Iterator
from json.scanner import make_scanner
from typing import Any

FOLD_ITEMS = 1_000  # items of one array or object kept (the views show 50 of them)
FOLD_VALUES = 20_000  # values kept in all; past this, containers keep no more items
FOLD_DEPTH = 64  # nesting walked item by item; a deeper value is parsed whole

# the C scanner: one value at an index, (value, index after it)
_scan: Callable[[str, int], tuple[Any, int]] = make_scanner(json.JSONDecoder())  # type: ignore[arg-type]
_space = re.compile(r"[ \t\n\r]*")
_UNPLACED = "a long string where fold_frame cannot put it"

LONG = 1 << 16  # a string token at least this many bytes is decoded from the frame itself
LONG_SCAN = 4_096  # a frame with more strings than this is not searched for long ones
FIND_QUOTES = 64  # escaped quotes in a string found one by one; past them, by windows
WINDOW = 1 << 16  # bytes of a string looked at at once (three copies: keep it small)
_PRINTABLE = bytes(range(0x20, 0x80))  # deleted: what is left is not printable ASCII
# an escape ``unicode_escape`` reads otherwise than JSON does: ``\/``, those JSON lacks, a
# short ``\u``, a surrogate (JSON pairs them); found by its backslash (a fast search)
_unlike_json = re.compile(rb"\\(?:[^\"\\bfnrtu]|u(?![0-9a-fA-F]{4})|u[dD][89a-fA-F])")


class FoldedList(list[Any]):
    """The first items of a longer array; ``total``: how many it had."""

    total: int = 0


class FoldedDict(dict[str, Any]):
    """The first members of a bigger object; ``total``: how many it had."""

    total: int = 0


class FoldedResult(FoldedDict):
    """A big response's result with something in it folded; ``frame``: the response's
    bytes, which hold all of it (``whole`` parses them again)."""

    frame: bytes = b""

    def whole(self) -> Any:
        """The result as ``json.loads`` gives it, nothing folded."""
        return json.loads(self.frame)["result"]


def total(value: list[Any] | dict[str, Any]) -> int:
    """How many items ``value`` had on the wire (its length unless it was folded)."""
    return value.total if isinstance(value, FoldedList | FoldedDict) else len(value)


def is_folded(value: Any) -> bool:
    """``value`` (or something in it) was folded: it is not the whole of what came."""
    todo = [value]
    while todo:
        item = todo.pop()
        if isinstance(item, FoldedList | FoldedDict):
            return True
        if isinstance(item, dict):
            todo.extend(item.values())
        elif isinstance(item, list):
            todo.extend(item)
    return False


def fold_loads(
    text: str,
    items: int = FOLD_ITEMS,
    values: int = FOLD_VALUES,
    long: dict[int, str] | None = None,
) -> Any:
    """``text`` parsed as ``json.loads`` would, folded (see the module doc); raises
    ``ValueError`` where ``json.loads`` would raise (its message may differ). ``long``:
    the values of the strings that start at these indexes (``fold_frame``)."""
    folder = _Folder(text, items, values, long or {})
    try:
        value, end = folder.value(_space.match(text, 0).end(), 0)  # type: ignore[union-attr]
    except (StopIteration, IndexError) as exc:
        raise ValueError("not JSON") from exc
    if _space.match(text, end).end() != len(text):  # type: ignore[union-attr]
        raise ValueError("extra data after the JSON value")
    return value


class _Folder:
    """One pass over a JSON text, containers walked item by item, values by the C scanner."""

    def __init__(self, text: str, items: int, values: int, long: dict[int, str]) -> None:
        self.text, self.items, self.left, self.long = text, items, values, long

    def value(self, at: int, depth: int) -> tuple[Any, int]:
        """The value starting at ``at`` (no blank before it) and the index after it."""
        first = self.text[at]
        self.left -= 1
        if first == "[" and depth < FOLD_DEPTH:
            return self.array(at + 1, depth + 1)
        if first == "{" and depth < FOLD_DEPTH:
            return self.object(at + 1, depth + 1)
        if self.long:
            if first == '"' and at in self.long:
                return self.long[at], at + 2  # its ``""`` in the text
            if first in "[{":  # parsed whole by the C scanner, which never sees ``long``
                raise ValueError(_UNPLACED)
        return _scan(self.text, at)  # a scalar, or a container nested too deep to walk

    def array(self, at: int, depth: int) -> tuple[Any, int]:
        text, space = self.text, _space.match
        out: list[Any] = []
        at = space(text, at).end()  # type: ignore[union-attr]
        if text[at] == "]":
            return out, at + 1
        count = 0
        while count < self.items and self.left > 0:
            item, at = self.value(at, depth)
            out.append(item)
            count += 1
            at = space(text, at).end()  # type: ignore[union-attr]
            sep = text[at]
            at = space(text, at + 1).end()  # type: ignore[union-attr]
            if sep == "]":
                return out, at
            if sep != ",":
                raise ValueError(f"expected ',' or ']' at {at}")
        skipped, at = self.skip(at, "]")
        folded = FoldedList(out)
        folded.total = count + skipped
        return folded, at

    def skip(self, at: int, close: str) -> tuple[int, int]:
        """Past the rest of an array's items (``close`` "]") or an object's members ("}")
        from ``at``, each parsed and let go: how many, and the index after ``close``."""
        text, space, scan, blank = self.text, _space.match, _scan, " \t\n\r"
        count = 0
        while True:
            if close == "}":
                if text[at] != '"':
                    raise ValueError(f"expected a key at {at}")
                at = scan(text, at)[1]  # the key
                if text[at] in blank:
                    at = space(text, at).end()  # type: ignore[union-attr]
                if text[at] != ":":
                    raise ValueError(f"expected ':' at {at}")
                at += 1
                if text[at] in blank:
                    at = space(text, at).end()  # type: ignore[union-attr]
            at = scan(text, at)[1]  # only its end is wanted
            count += 1
            sep = text[at]
            if sep in blank:
                at = space(text, at).end()  # type: ignore[union-attr]
                sep = text[at]
            at += 1
            if sep == close:
                return count, at
            if sep != ",":
                raise ValueError(f"expected ',' or {close!r} at {at - 1}")
            if text[at] in blank:
                at = space(text, at).end()  # type: ignore[union-attr]

    def object(self, at: int, depth: int) -> tuple[Any, int]:
        text, space = self.text, _space.match
        out: dict[str, Any] = {}
        at = space(text, at).end()  # type: ignore[union-attr]
        if text[at] == "}":
            return out, at + 1
        count = 0
        while count < self.items and self.left > 0:
            if text[at] != '"':
                raise ValueError(f"expected a key at {at}")
            if at in self.long:
                raise ValueError(_UNPLACED)
            key, at = _scan(text, at)
            at = space(text, at).end()  # type: ignore[union-attr]
            if text[at] != ":":
                raise ValueError(f"expected ':' at {at}")
            at = space(text, at + 1).end()  # type: ignore[union-attr]
            out[key], at = self.value(at, depth)  # a repeated key: the last one, as json
            count += 1
            at = space(text, at).end()  # type: ignore[union-attr]
            sep = text[at]
            at = space(text, at + 1).end()  # type: ignore[union-attr]
            if sep == "}":
                return out, at
            if sep != ",":
                raise ValueError(f"expected ',' or '}}' at {at}")
        skipped, at = self.skip(at, "}")
        folded = FoldedDict(out)
        folded.total = count + skipped
        return folded, at


def fold_frame(raw: bytes, items: int = FOLD_ITEMS, values: int = FOLD_VALUES) -> Any:
    """``fold_loads(raw.decode("utf-8"))``, but a long string (``LONG``; printable ASCII
    with the escapes ``unicode_escape`` reads as JSON does) is decoded from ``raw`` into
    its value in one pass, and the text decoded and scanned is the frame without it: a 1
    MB text result was held three times while it was parsed (the frame, its decoded text,
    the value), now twice. Raises what ``fold_loads`` and ``bytes.decode`` raise."""
    spans = _long_strings(raw)
    if 3 * sum(end - start for start, end in spans) < len(raw):
        # the rest of the frame decoded in pieces and joined is held twice: worth it only
        # when the long strings are a good part of it (a third: never more than before)
        return fold_loads(raw.decode("utf-8"), items, values)
    pieces: list[str] = []
    places: list[int] = []
    at = length = 0
    with memoryview(raw) as view:
        for start, end in spans:
            pieces.append(str(view[at:start], "utf-8"))
            length += len(pieces[-1])
            places.append(length)
            pieces.append('""')
            length += 2
            at = end
        pieces.append(str(view[at:], "utf-8"))
        text = "".join(pieces)
        del pieces  # then the values: the pieces and the text are not held beside them
        long = {
            place: codecs.unicode_escape_decode(view[start + 1 : end - 1])[0]
            for place, (start, end) in zip(places, spans, strict=True)
        }
    try:
        return fold_loads(text, items, values, long)
    except ValueError:  # a long key, one nested too deep, or bad JSON: said the usual way
        del long, text
        return fold_loads(raw.decode("utf-8"), items, values)


def _long_strings(raw: bytes) -> list[tuple[int, int]]:
    """The (start, end) of the string tokens of ``raw`` that ``fold_frame`` decodes itself:
    long, printable ASCII (``unicode_escape`` reads other bytes as Latin-1, and JSON has no
    control character in a string), and no escape ``_unlike_json``. None when a string is
    not closed (the parse then says what is wrong). Quotes are found by ``bytes.find``: a
    regular expression walking a 13 MB string took 110 ms."""
    spans: list[tuple[int, int]] = []
    printable = not raw.translate(None, _PRINTABLE)  # the common case: checked at once
    at = tokens = 0
    while (start := raw.find(b'"', at)) >= 0:
        tokens += 1
        if tokens > LONG_SCAN:
            return []  # many objects: parsed the usual way (folded)
        at = _string_end(raw, start)
        if at < 0:
            return []
        if at - start < LONG or not _escapes_as_json(raw, start + 1, at - 1):
            continue
        if printable or not raw[start:at].translate(None, _PRINTABLE):
            spans.append((start, at))
    return spans


def _string_end(raw: bytes, start: int) -> int:
    """The index after the string token opened by the quote at ``start``, or -1: its
    quotes found by ``bytes.find`` (memchr), past ``FIND_QUOTES`` escaped ones (a JSON
    text in a text result) in windows with their escapes blanked (a regular expression
    walking them took 30 ms a MB)."""
    at = start + 1
    for _ in range(FIND_QUOTES):
        quote = raw.find(b'"', at)
        if quote < 0:
            return -1
        if _backslashes(raw, quote, at) % 2 == 0:  # an odd run before it escapes it
            return quote + 1
        at = quote + 1
    for piece_at, piece in _windows(raw, at, len(raw)):
        quote = piece.find(b'"')
        if quote >= 0:
            return piece_at + quote + 1
    return -1


def _windows(raw: bytes, at: int, end: int) -> Iterator[tuple[int, bytes]]:
    """``raw[at:end]`` (``at`` where an escape may start) in windows of about ``WINDOW``
    bytes, each ``_unescaped``, with where it starts; none ends inside an escape."""
    while at < end:
        stop = min(end, at + WINDOW)
        while stop < end and raw[stop - 1] == 0x5C:
            stop += 1
        yield at, _unescaped(raw[at:stop])
        at = stop


def _unescaped(piece: bytes) -> bytes:
    """``piece`` (starting where an escape may) with its ``\\\\`` and ``\\"`` blanked, in
    place: what is left of a backslash or a quote is not escaped."""
    return piece.replace(b"\\\\", b"__").replace(b'\\"', b"__")


def _escapes_as_json(raw: bytes, start: int, end: int) -> bool:
    """No escape in ``raw[start:end]`` (a string's inside) is ``_unlike_json``; looked at
    in ``_windows`` when it has a ``\\\\`` (the second backslash of one, then a letter,
    is no escape: ``C:\\\\Users``)."""
    if raw.find(b"\\\\", start, end) < 0:
        return _unlike_json.search(raw, start, end) is None
    return not any(_unlike_json.search(piece) for _, piece in _windows(raw, start, end))


def _backslashes(raw: bytes, end: int, floor: int) -> int:
    """How many backslashes come right before ``end`` (none before ``floor``)."""
    run = 0
    while end > floor:
        piece = raw[max(floor, end - 64) : end]
        kept = len(piece.rstrip(b"\\"))
        run += len(piece) - kept
        if kept:
            break
        end -= len(piece)
    return run
