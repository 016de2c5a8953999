"""Results kept to a size an agent's context can take.

A value over its budget is not dropped: long strings are cut (with how long they were),
long lists keep their first items (with how many there were), and the caller says where
the whole is (the frame's ``seq`` in the connection's log, which ``log {seq}`` pages).
"""

from __future__ import annotations

import json
from typing import Any

DEFAULT_MAX_CHARS = 20_000  # a tool result's JSON, as an agent gets it
STRING_CUT = 500  # characters kept of a long string in a shrunk value
LIST_CUT = 20  # items kept of a long list in a shrunk value


def json_size(value: Any) -> int:
    """Characters of ``value`` as compact JSON."""
    return len(json.dumps(value, ensure_ascii=False, separators=(",", ":")))


def shrink(value: Any, string_cut: int = STRING_CUT, list_cut: int = LIST_CUT) -> Any:
    """``value`` with long strings and lists cut, each cut saying what it left out."""
    if isinstance(value, str):
        if len(value) <= string_cut:
            return value
        return value[:string_cut] + f"... [cut: {len(value)} characters in all]"
    if isinstance(value, list):
        kept = [shrink(v, string_cut, list_cut) for v in value[:list_cut]]
        if len(value) > list_cut:
            kept.append(f"... [cut: {len(value)} items in all]")
        return kept
    if isinstance(value, dict):
        return {k: shrink(v, string_cut, list_cut) for k, v in value.items()}
    return value


def bounded(value: Any, max_chars: int) -> tuple[Any, int, bool]:
    """(``value`` or a shrunk copy within about ``max_chars``, its full size, cut?)."""
    size = json_size(value)
    if size <= max_chars:
        return value, size, False
    cut = STRING_CUT
    shrunk = shrink(value, cut)
    while json_size(shrunk) > max_chars and cut > 20:
        cut //= 4
        shrunk = shrink(value, cut, max(1, LIST_CUT * cut // STRING_CUT))
    return shrunk, size, True


def cut_text(text: str, offset: int, max_chars: int) -> tuple[str, int | None]:
    """``text[offset:offset+max_chars]`` and the next offset (None: the end was reached)."""
    offset = max(0, offset)
    end = offset + max(1, max_chars)
    return text[offset:end], (end if end < len(text) else None)


def bounded_list(items: list[Any], max_chars: int) -> tuple[list[Any], bool]:
    """The first items of ``items`` (each shrunk) that fit in about ``max_chars``, and
    whether any was left out or shrunk (the list's own schema holds: no marker item)."""
    kept: list[Any] = []
    used = 2
    cut = False
    for item in items:
        small = shrink(item)
        cut = cut or small != item
        size = json_size(small) + 1
        if used + size > max_chars and kept:
            return kept, True
        kept.append(small)
        used += size
    return kept, cut
