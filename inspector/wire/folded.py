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

import json
import re
from collections.abc import Callable
from json.scanner import make_scanner
from typing import Any

FOLD_ITEMS = 1_000  # items of one array or object kept (the views show 50 of them)
FOLD_VALUES = 20_000  # values kept in all; past this, containers keep no more items
FOLD_DEPTH = 64  # nesting walked item by item; a deeper value is parsed whole

# the C scanner: one value at an index, (value, index after it)
_scan: Callable[[str, int], tuple[Any, int]] = make_scanner(json.JSONDecoder())  # type: ignore[arg-type]
_space = re.compile(r"[ \t\n\r]*")


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


def fold_loads(text: str, items: int = FOLD_ITEMS, values: int = FOLD_VALUES) -> Any:
    """``text`` parsed as ``json.loads`` would, folded (see the module doc); raises
    ``ValueError`` where ``json.loads`` would raise (its message may differ)."""
    folder = _Folder(text, items, values)
    try:
        value, end = folder.value(_space.match(text, 0).end(), 0)  # type: ignore[union-attr]
    except (StopIteration, IndexError) as exc:
        raise ValueError("not JSON") from exc
    if _space.match(text, end).end() != len(text):  # type: ignore[union-attr]
        raise ValueError("extra data after the JSON value")
    return value


class _Folder:
    """One pass over a JSON text, containers walked item by item, values by the C scanner."""

    def __init__(self, text: str, items: int, values: int) -> None:
        self.text, self.items, self.left = text, items, values

    def value(self, at: int, depth: int) -> tuple[Any, int]:
        """The value starting at ``at`` (no blank before it) and the index after it."""
        first = self.text[at]
        self.left -= 1
        if first == "[" and depth < FOLD_DEPTH:
            return self.array(at + 1, depth + 1)
        if first == "{" and depth < FOLD_DEPTH:
            return self.object(at + 1, depth + 1)
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
