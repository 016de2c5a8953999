"""Two JSON Schemas compared keyword by keyword, each change classified.

An input schema (what a client sends) breaks a client when it asks for more: a required
argument, a narrower type, fewer enum values, a property gone. An output schema (what a
client reads) breaks it when it gives less: a field gone, retyped, or no longer required.
"""

from __future__ import annotations

from typing import Any

from inspector.compare.changes import Difference
from inspector.compare.paths import PathTuple

TEXT_KEYWORDS = frozenset({"description", "title", "examples", "$comment"})
_HANDLED = frozenset({"type", "enum", "const", "properties", "required", "items"})


def compare_schema(old: Any, new: Any, path: PathTuple, output: bool) -> list[Difference]:
    """Every classified difference from schema ``old`` to ``new`` at ``path``."""
    found: list[Difference] = []
    _compare(old, new, path, output, found)
    return found


def _compare(old: Any, new: Any, path: PathTuple, output: bool, out: list[Difference]) -> None:
    if not isinstance(old, dict) or not isinstance(new, dict):
        if old != new:
            rule = "output-retyped" if output else "type-narrowed"
            out.append(Difference(rule, "changed", path, old, new))
        return
    _types(old, new, path, output, out)
    _enum(old, new, path, out)
    _properties(old, new, path, output, out)
    _required(old, new, path, output, out)
    if "items" in old or "items" in new:
        if "items" in old and "items" in new:
            _compare(old["items"], new["items"], (*path, "items"), output, out)
        else:
            _keyword("items", old, new, path, out)
    for key in dict.fromkeys([*old, *new]):
        if key not in _HANDLED and old.get(key, _GONE) != new.get(key, _GONE):
            _keyword(key, old, new, path, out)


_GONE = object()


def _keyword(
    key: str, old: dict[str, Any], new: dict[str, Any], path: PathTuple, out: list[Difference]
) -> None:
    rule = "text-changed" if key in TEXT_KEYWORDS else "schema-changed"
    change = "added" if key not in old else "removed" if key not in new else "changed"
    out.append(Difference(rule, change, (*path, key), old.get(key), new.get(key)))


def types_of(schema: dict[str, Any]) -> frozenset[str] | None:
    """The JSON types a schema's ``type`` allows (integer within number); None: any."""
    value = schema.get("type")
    if value is None:
        return None
    names = [value] if isinstance(value, str) else value if isinstance(value, list) else []
    return frozenset(str(name) for name in names)


def _covers(wide: frozenset[str] | None, narrow: frozenset[str] | None) -> bool:
    """Every value ``narrow`` allows, ``wide`` allows too."""
    if wide is None:
        return True
    if narrow is None:
        return False
    return all(t in wide or (t == "integer" and "number" in wide) for t in narrow)


def _types(
    old: dict[str, Any], new: dict[str, Any], path: PathTuple, output: bool, out: list[Difference]
) -> None:
    before, after = types_of(old), types_of(new)
    if before == after:
        return
    where = (*path, "type")
    if output:
        rule = "output-retyped"
    elif _covers(after, before):
        rule = "type-widened"
    else:
        rule = "type-narrowed"
    out.append(Difference(rule, "changed", where, old.get("type"), new.get("type")))


def _values(schema: dict[str, Any]) -> list[Any] | None:
    if "const" in schema:
        return [schema["const"]]
    enum = schema.get("enum")
    return list(enum) if isinstance(enum, list) else None


def _enum(old: dict[str, Any], new: dict[str, Any], path: PathTuple, out: list[Difference]) -> None:
    before, after = _values(old), _values(new)
    if before == after:
        return
    key = "const" if "const" in old or "const" in new else "enum"
    where = (*path, key)
    if before is None or after is None:  # a restriction added or lifted
        rule = "enum-removed" if before is None else "enum-added"
        out.append(Difference(rule, "changed", where, old.get(key), new.get(key)))
        return
    removed = [v for v in before if v not in after]
    added = [v for v in after if v not in before]
    if removed:
        out.append(Difference("enum-removed", "removed", where, removed, None))
    if added:
        out.append(Difference("enum-added", "added", where, None, added))
    if not removed and not added:
        out.append(Difference("order-changed", "changed", where, before, after))


def _props(schema: dict[str, Any]) -> dict[str, Any]:
    props = schema.get("properties")
    return props if isinstance(props, dict) else {}


def required_of(schema: dict[str, Any]) -> list[str]:
    required = schema.get("required")
    return [str(r) for r in required] if isinstance(required, list) else []


def _properties(
    old: dict[str, Any], new: dict[str, Any], path: PathTuple, output: bool, out: list[Difference]
) -> None:
    before, after = _props(old), _props(new)
    required = required_of(new)
    for name, schema in before.items():
        where = (*path, "properties", name)
        if name not in after:
            rule = "output-removed" if output else "property-removed"
            out.append(Difference(rule, "removed", where, schema, None))
        else:
            _compare(schema, after[name], where, output, out)
    for name, schema in after.items():
        if name not in before:
            where = (*path, "properties", name)
            if output:
                rule = "output-added"
            else:
                rule = "required-added" if name in required else "optional-added"
            out.append(Difference(rule, "added", where, None, schema))
    common = [n for n in before if n in after]
    if common != [n for n in after if n in before]:
        out.append(
            Difference("order-changed", "changed", (*path, "properties"), list(before), list(after))
        )


def _required(
    old: dict[str, Any], new: dict[str, Any], path: PathTuple, output: bool, out: list[Difference]
) -> None:
    before, after = required_of(old), required_of(new)
    if before == after:
        return
    props_before, props_after = _props(old), _props(new)
    where = (*path, "required")
    for name in before:
        if name not in after and name in props_after:
            rule = "output-optional" if output else "required-dropped"
            out.append(Difference(rule, "removed", (*where, name), name, None))
    for name in after:
        # a new property's own difference already says it is required
        if name not in before and name in props_before:
            rule = "output-added" if output else "required-added"
            out.append(Difference(rule, "added", (*where, name), None, name))
    if sorted(before) == sorted(after):
        out.append(Difference("order-changed", "changed", where, before, after))
