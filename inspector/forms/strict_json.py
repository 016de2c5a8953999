"""JSON typed by the user, held to what the wire may carry (RFC 8259).

Python's ``json`` reads more than JSON: ``NaN``, ``Infinity`` and ``1e400`` (read as
infinity) load, and ``json.dumps`` then writes them back as ``NaN`` / ``Infinity``,
which no peer can parse. A number of more than 4,300 digits stops ``int()`` with a
ValueError, and deep nesting ends in a RecursionError (at ~1,000 levels, sooner in the
validators that walk the value after). :func:`loads` refuses all of these with a
sentence saying what is wrong, so a command line can call it a usage error and send
nothing.
"""

from __future__ import annotations

import json
import math
import sys
from typing import Any

from inspector.errors import InspectorError

MAX_DEPTH = 100  # nesting levels of arrays and objects; deeper is refused
MAX_DIGITS = sys.get_int_max_str_digits() or 4300  # what int() reads from a string


class NotJson(InspectorError, ValueError):
    """Text that is not JSON the wire takes; the message says why."""


def _no_constant(name: str) -> Any:
    raise NotJson(f"{name} is not JSON (JSON has no NaN or Infinity; quote it to send a string)")


def _finite_float(text: str) -> float:
    number = float(text)
    if not math.isfinite(number):
        raise NotJson(f"the number {text[:20]}{'…' if len(text) > 20 else ''} is too large")
    return number


def too_many_digits(text: str) -> NotJson:
    """The error for an integer of more digits than ``int()`` reads."""
    return NotJson(
        f"a number of {len(text.strip().lstrip('+-')):,} digits (at most {MAX_DIGITS:,} are read)"
    )


def depth(value: Any) -> int:
    """How deeply arrays and objects nest in ``value`` (walked without recursion)."""
    deepest = 0
    stack: list[tuple[Any, int]] = [(value, 0)]
    while stack:
        item, level = stack.pop()
        if isinstance(item, dict):
            items: Any = item.values()
        elif isinstance(item, list):
            items = item
        else:
            continue
        level += 1
        deepest = max(deepest, level)
        if level > MAX_DEPTH:
            break  # deep enough to refuse: no need to walk the rest
        stack.extend((child, level) for child in items)
    return deepest


def loads(text: str) -> Any:
    """``text`` as JSON, or :class:`NotJson` (``json.JSONDecodeError`` for a syntax error,
    kept as it is so callers can fall back to a bare string)."""
    try:
        value = json.loads(text, parse_constant=_no_constant, parse_float=_finite_float)
    except RecursionError:
        raise NotJson(f"nested more than {MAX_DEPTH} levels deep") from None
    except (NotJson, json.JSONDecodeError):
        raise
    except ValueError as exc:  # int(): more digits than it reads
        if "digits" in str(exc):
            raise NotJson(f"holds a number of more than {MAX_DIGITS:,} digits") from None
        raise NotJson(str(exc)) from None
    if depth(value) > MAX_DEPTH:
        raise NotJson(f"nested more than {MAX_DEPTH} levels deep")
    return value
