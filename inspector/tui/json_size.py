"""How big a parsed JSON value is, without serializing it again: a 50 MB result is not
copied (nor the GIL held for a whole ``json.dumps``) to print its size."""

from __future__ import annotations

import json
import math
import re
from typing import Any

_ESCAPES = re.compile('[\x00-\x1f"\\\\]')
_SLICE = 1 << 16  # big strings are counted in slices (other threads get the GIL between;
# each slice's JSON is a small copy, not one of the whole string)
_SEPARATOR = 2  # ", " and ": "


def _string_length(text: str) -> int:
    """``len(json.dumps(text, ensure_ascii=False))``; a big string a slice at a time (an
    escape never spans two characters, so the slices add up)."""
    if len(text) <= _SLICE:
        if _ESCAPES.search(text) is None:
            return len(text) + 2  # most strings: nothing escaped
        return len(json.dumps(text, ensure_ascii=False))
    return 2 + sum(
        len(json.dumps(text[start : start + _SLICE], ensure_ascii=False)) - 2
        for start in range(0, len(text), _SLICE)
    )


def _scalar_length(value: Any) -> int:
    if value is None or value is True:
        return 4
    if value is False:
        return 5
    if isinstance(value, int):
        return len(int.__repr__(value))
    if isinstance(value, float):
        if math.isfinite(value):
            return len(float.__repr__(value))
        return 3 if math.isnan(value) else len("Infinity") + (value < 0)
    return _string_length(str(value))  # what json.dumps(default=str) would write


def json_length(value: Any) -> int:
    """``len(json.dumps(value, ensure_ascii=False))``, worked out without building it."""
    total, todo = 0, [value]
    while todo:
        item = todo.pop()
        if isinstance(item, str):
            total += _string_length(item)
        elif isinstance(item, dict):
            total += 2 + max(0, len(item) - 1) * _SEPARATOR
            for key, sub in item.items():
                if isinstance(key, str):
                    total += _string_length(key)
                else:  # a non-string key is written as a string of its JSON form
                    total += _scalar_length(key) + 2
                total += _SEPARATOR
                todo.append(sub)
        elif isinstance(item, list | tuple):
            total += 2 + max(0, len(item) - 1) * _SEPARATOR
            todo.extend(item)
        else:
            total += _scalar_length(item)
    return total


def rough_size(value: Any, limit: int, max_parts: int = 20_000) -> int:
    """Roughly the characters of ``value`` as JSON, counted only up to ``limit`` (a number
    above it means "bigger"); a value of more than ``max_parts`` parts counts as bigger."""
    total, parts, todo = 0, 0, [value]
    while todo and total <= limit:
        item = todo.pop()
        parts += 1
        if parts > max_parts:
            return limit + 1
        if isinstance(item, str):
            total += len(item) + 2
        elif isinstance(item, dict):
            total += 2
            for key, sub in item.items():
                total += len(str(key)) + 4
                todo.append(sub)
        elif isinstance(item, list):
            total += 2
            todo.extend(item)
        else:
            total += 8
    return total
