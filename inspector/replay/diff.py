"""Structural diff of two JSON values, with ignore rules in a small JSONPath form.

Paths: ``$.result.content[*].text``, ``result.meta.timestamp`` (the ``$.`` is
optional), ``$..timestamp`` (any depth), ``$.result.tools[0]``, ``$["odd key"]``.
``*`` matches any one key or index; ``..`` any number of levels (zero or more).

A change at an ignored path is not a difference, but it is still reported apart
(``ignored``): replay uses those to learn how volatile ids map (old -> new).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from inspector.compare.paths import PathTuple, format_path
from inspector.engine.era import ENVELOPE_KEYS
from inspector.errors import InspectorError

ANY = object()  # one level, any key or index
DEEP = object()  # any number of levels

# Volatile fields that differ from run to run on a healthy server.
DEFAULT_IGNORES: tuple[str, ...] = (
    "$.id",  # ids are remapped
    "$..timestamp",
    "$..createdAt",
    "$..updatedAt",
    "$..lastModified",
    "$..sessionId",
    "$..progressToken",
    "$..requestId",
    "$..taskId",
    "$..nextCursor",  # opaque; learnt and mapped into the next page's request
    # the 2026-07-28 stateless era: the per-request _meta envelope (the client's own
    # facts, stamped on every request) and the opaque state a multi-round-trip carries
    *(f'$.._meta["{key}"]' for key in ENVELOPE_KEYS),
    "$..requestState",
)


class PathError(InspectorError, ValueError):
    """An ignore path that cannot be parsed; the message shows where."""


_SEGMENT = re.compile(
    r"""
    \.\.                                 # deep
  | \.(?P<key>[^.\[\]]+)                  # .key or .*
  | \[(?P<index>\d+|\*)\]                 # [0] or [*]
  | \[(?P<quoted>"(?:[^"\\]|\\.)*"|'[^']*')\]   # ["key"] or ['key']
""",
    re.VERBOSE,
)


@dataclass(frozen=True)
class IgnoreRule:
    """One parsed ignore path."""

    text: str
    segments: tuple[object, ...]

    @classmethod
    def parse(cls, text: str) -> IgnoreRule:
        source = text.strip()
        if not source:
            raise PathError("an empty ignore path")
        body = source[1:] if source.startswith("$") else source
        if body and not body.startswith((".", "[")):
            body = "." + body
        segments: list[object] = []
        pos = 0
        while pos < len(body):
            m = _SEGMENT.match(body, pos)
            if m is None:
                raise PathError(
                    f"ignore path {text!r}: cannot read {body[pos:]!r} "
                    "(use $.a.b[*].c or a.b.c, $..name for any depth)"
                )
            if m.group(0) == "..":
                segments.append(DEEP)
                # "$..name": the key that follows the deep step has no dot of its own
                nxt = body[m.end() :]
                if nxt and nxt[0] not in ".[":
                    body = body[: m.end()] + "." + nxt
            elif m.group("key") is not None:
                key = m.group("key")
                segments.append(ANY if key == "*" else key)
            elif m.group("index") is not None:
                index = m.group("index")
                segments.append(ANY if index == "*" else int(index))
            else:
                quoted = m.group("quoted")
                segments.append(json.loads(quoted) if quoted.startswith('"') else quoted[1:-1])
            pos = m.end()
        if segments and segments[-1] is DEEP:
            raise PathError(f"ignore path {text!r} ends with '..'; name a key after it")
        return cls(text, tuple(segments))

    def matches(self, path: PathTuple) -> bool:
        """True when ``path`` or one of its ancestors is covered by this rule."""
        return _match(self.segments, 0, path, 0)


def _match(segs: tuple[object, ...], si: int, path: PathTuple, pi: int) -> bool:
    if si == len(segs):
        return True  # a rule covers everything below the node it names
    seg = segs[si]
    if seg is DEEP:
        return any(_match(segs, si + 1, path, k) for k in range(pi, len(path) + 1))
    if pi == len(path):
        return False
    key = path[pi]
    if seg is ANY or (seg == key and type(seg) is type(key)):
        return _match(segs, si + 1, path, pi + 1)
    return False


def parse_rules(texts: Iterable[str], defaults: bool = True) -> list[IgnoreRule]:
    """Rules from ``--ignore`` values, after the defaults unless they are turned off."""
    rules = [IgnoreRule.parse(t) for t in DEFAULT_IGNORES] if defaults else []
    rules.extend(IgnoreRule.parse(t) for t in texts)
    return rules


@dataclass(frozen=True)
class Change:
    """One difference: ``kind`` is changed, added, removed or type."""

    path: str
    kind: str
    old: Any = None
    new: Any = None

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {"path": self.path, "kind": self.kind}
        if self.kind != "added":
            data["old"] = self.old
        if self.kind != "removed":
            data["new"] = self.new
        return data


@dataclass
class DiffResult:
    changes: list[Change] = field(default_factory=list)
    ignored: list[Change] = field(default_factory=list)

    @property
    def same(self) -> bool:
        return not self.changes


_MISSING = object()


def diff(old: Any, new: Any, rules: Sequence[IgnoreRule] = ()) -> DiffResult:
    """Every difference between two JSON values, split into counted and ignored."""
    result = DiffResult()
    _walk(old, new, (), rules, result)
    return result


def _walk(
    old: Any, new: Any, path: PathTuple, rules: Sequence[IgnoreRule], out: DiffResult
) -> None:
    if isinstance(old, dict) and isinstance(new, dict):
        for key in old:
            _walk(old[key], new.get(key, _MISSING), (*path, key), rules, out)
        for key in new:
            if key not in old:
                _walk(_MISSING, new[key], (*path, key), rules, out)
        return
    if isinstance(old, list) and isinstance(new, list):
        key = _list_key(old, new)
        if key is not None:
            _walk_keyed(old, new, key, path, rules, out)
            return
        for i in range(max(len(old), len(new))):
            _walk(
                old[i] if i < len(old) else _MISSING,
                new[i] if i < len(new) else _MISSING,
                (*path, i),
                rules,
                out,
            )
        return
    if old is _MISSING:
        change = Change(format_path(path), "added", None, new)
    elif new is _MISSING:
        change = Change(format_path(path), "removed", old, None)
    elif _same_scalar(old, new):
        return
    elif _json_type(old) != _json_type(new):
        change = Change(format_path(path), "type", old, new)
    else:
        change = Change(format_path(path), "changed", old, new)
    ignored = any(rule.matches(path) for rule in rules)
    (out.ignored if ignored else out.changes).append(change)


def _list_key(old: list[Any], new: list[Any]) -> str | None:
    """ "name" or "uri" when both lists are objects unique by it (tools, resources...):
    then a removed tool is one removal, not a shift of every tool after it."""
    for key in ("name", "uri"):
        ok = True
        for items in (old, new):
            values = [x.get(key) if isinstance(x, dict) else None for x in items]
            if not all(isinstance(v, str) for v in values) or len(set(values)) != len(values):
                ok = False
                break
        if ok and old and new:
            return key
    return None


def _walk_keyed(
    old: list[Any],
    new: list[Any],
    key: str,
    path: PathTuple,
    rules: Sequence[IgnoreRule],
    out: DiffResult,
) -> None:
    """Pair items by ``key``; paths keep the old index (the new one for additions)."""
    new_at = {item[key]: i for i, item in enumerate(new)}
    for i, item in enumerate(old):
        j = new_at.pop(item[key], None)
        _walk(item, new[j] if j is not None else _MISSING, (*path, i), rules, out)
    for j in sorted(new_at.values()):
        _walk(_MISSING, new[j], (*path, j), rules, out)


def _same_scalar(old: Any, new: Any) -> bool:
    # JSON has no bool/int distinction problem in Python: True == 1, so compare types too
    return (type(old) is type(new) and bool(old == new)) or (
        _json_type(old) == "number" == _json_type(new) and old == new
    )


def _json_type(value: Any) -> str:
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int | float):
        return "number"
    if isinstance(value, str):
        return "string"
    if value is None:
        return "null"
    if isinstance(value, list):
        return "array"
    if isinstance(value, dict):
        return "object"
    return type(value).__name__
