"""Read a JSON Schema for form building: local `$ref`, `allOf`, nullability, kinds.

Nothing here mutates the schema it is given: merged views are new dicts, so the
original stays intact for validation and display.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any
from urllib.parse import unquote

Schema = dict[str, Any]

JSON_TYPES = ("string", "number", "integer", "boolean", "object", "array", "null")
# Keywords that describe a field rather than constrain it: they may sit next to `$ref`.
_ANNOTATIONS = ("title", "description", "default", "examples", "deprecated", "readOnly")


class Kind(StrEnum):
    """What kind of input a schema needs."""

    STRING = "string"
    NUMBER = "number"
    INTEGER = "integer"
    BOOLEAN = "boolean"
    ENUM = "enum"
    CONST = "const"
    OBJECT = "object"
    ARRAY = "array"
    MULTI_ENUM = "multi_enum"
    UNION = "union"
    NULL = "null"
    ANY = "any"


@dataclass
class Variant:
    """One choice of a `oneOf`/`anyOf`/multi-type union."""

    title: str
    schema: Schema


@dataclass
class Shape:
    """A schema read for form purposes: its kind, nullability and the merged view."""

    kind: Kind
    schema: Schema  # merged effective schema (refs resolved, allOf folded)
    nullable: bool = False
    refs: tuple[str, ...] = ()  # the `$ref`s followed to get here
    variants: list[Variant] = field(default_factory=list)
    options: list[tuple[str, Any]] = field(default_factory=list)  # enum (label, value)
    unresolved: str | None = None  # a `$ref` we could not (or will not) follow


def as_schema(schema: Any) -> Schema:
    """Booleans are schemas too: `true` accepts anything, `false` nothing."""
    if isinstance(schema, dict):
        return schema
    if schema is False:
        return {"not": {}}
    return {}


def resolve_pointer(root: Schema, ref: str) -> Schema | None:
    """Follow a local reference (`#`, `#/json/pointer`, `#anchor`); None if not local/found."""
    if not ref.startswith("#"):
        return _by_id(root, ref)
    fragment = ref[1:]
    if fragment == "":
        return root
    if not fragment.startswith("/"):
        return _by_anchor(root, fragment)
    node: Any = root
    for raw in fragment[1:].split("/"):
        part = unquote(raw).replace("~1", "/").replace("~0", "~")
        if isinstance(node, dict) and part in node:
            node = node[part]
        elif isinstance(node, list) and part.isdigit() and int(part) < len(node):
            node = node[int(part)]
        else:
            return None
    return as_schema(node) if isinstance(node, dict | bool) else None


def _walk(schema: Any) -> list[Schema]:
    found: list[Schema] = []
    stack = [schema]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            found.append(item)
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return found


def _by_anchor(root: Schema, anchor: str) -> Schema | None:
    for sub in _walk(root):
        if sub.get("$anchor") == anchor or sub.get("$dynamicAnchor") == anchor:
            return sub
    return None


def _by_id(root: Schema, ref: str) -> Schema | None:
    """A `$ref` naming an embedded schema's `$id`; never fetched from the network."""
    base, _, fragment = ref.partition("#")
    for sub in _walk(root):
        if sub is not root and sub.get("$id") == base:
            return resolve_pointer(sub, "#" + fragment) if fragment else sub
    return None


def _deref(
    root: Schema, schema: Schema, refs: tuple[str, ...]
) -> tuple[Schema, tuple[str, ...], str | None]:
    """Follow `$ref` chains; keywords beside a `$ref` override the target's annotations."""
    seen: set[str] = set()  # loops inside one chain only; recursion through structure is fine
    while "$ref" in schema and isinstance(schema["$ref"], str):
        ref = schema["$ref"]
        target = resolve_pointer(root, ref)
        if target is None:
            return schema, refs, ref
        refs = (*refs, ref)
        siblings = {k: v for k, v in schema.items() if k != "$ref"}
        if ref in seen:
            # A reference loop with no structure in between (a -> b -> a): give up on it.
            return {**siblings}, refs, ref
        seen.add(ref)
        schema = {**target, **siblings} if siblings else target
    return schema, refs, None


def _merge_all_of(root: Schema, schema: Schema, refs: tuple[str, ...]) -> Schema:
    """Fold `allOf` into one view (best effort: properties and required are unioned)."""
    parts = schema.get("allOf")
    if not isinstance(parts, list):
        return schema
    merged: Schema = {k: v for k, v in schema.items() if k != "allOf"}
    props: dict[str, Any] = {}
    required: list[str] = []
    for raw in parts:
        part, _, _ = _deref(root, as_schema(raw), refs)
        part = _merge_all_of(root, part, refs)
        props.update(part.get("properties") or {})
        required.extend(r for r in part.get("required") or [] if isinstance(r, str))
        for key, value in part.items():
            if key not in ("properties", "required"):
                merged.setdefault(key, value)
    props.update(schema.get("properties") or {})
    required.extend(r for r in schema.get("required") or [] if isinstance(r, str))
    if props:
        merged["properties"] = props
    if required:
        merged["required"] = list(dict.fromkeys(required))
    return merged


def _is_null_schema(root: Schema, schema: Any) -> bool:
    sub, _, _ = _deref(root, as_schema(schema), ())
    return (
        sub.get("type") == "null"
        or ("const" in sub and sub["const"] is None)
        or (sub.get("enum") == [None])
    )


def _const_options(root: Schema, items: list[Any]) -> list[tuple[str, Any]] | None:
    """`oneOf: [{const, title}, ...]`: an enum with labels."""
    options: list[tuple[str, Any]] = []
    for raw in items:
        sub, _, _ = _deref(root, as_schema(raw), ())
        if "const" not in sub:
            return None
        title = sub.get("title")
        options.append((str(title) if title is not None else label_of(sub["const"]), sub["const"]))
    return options


def label_of(value: Any) -> str:
    """A short display text for a JSON value."""
    if isinstance(value, str):
        return value
    import json

    return json.dumps(value, ensure_ascii=False)


def variant_title(root: Schema, schema: Any, index: int) -> str:
    """Variant label: its `title`, else its type (or referenced name), else its index."""
    sub = as_schema(schema)
    if isinstance(sub.get("title"), str):
        return str(sub["title"])
    if isinstance(sub.get("$ref"), str):
        target = resolve_pointer(root, sub["$ref"])
        if target is not None and isinstance(target.get("title"), str):
            return str(target["title"])
        return str(sub["$ref"]).rsplit("/", 1)[-1]
    kind = sub.get("type")
    if isinstance(kind, str):
        return kind
    if isinstance(kind, list):
        return " | ".join(str(k) for k in kind)
    if "const" in sub:
        return label_of(sub["const"])
    return f"option {index + 1}"


def shape_of(root: Schema, schema: Any, refs: tuple[str, ...] = ()) -> Shape:
    """Classify a (sub)schema; `refs` are the references already followed above it."""
    start = as_schema(schema)
    eff, refs, unresolved = _deref(root, start, refs)
    eff = _merge_all_of(root, eff, refs)
    nullable = eff.get("nullable") is True
    if unresolved is not None and "$ref" in eff:
        return Shape(Kind.ANY, eff, nullable, refs, unresolved=unresolved)

    if "const" in eff:
        return Shape(Kind.CONST, eff, nullable, refs)
    if isinstance(eff.get("enum"), list) and eff["enum"]:
        values = list(eff["enum"])
        if None in values and len(values) > 1:
            nullable = True
            values = [v for v in values if v is not None]
        names = eff.get("enumNames") if isinstance(eff.get("enumNames"), list) else None
        options = [
            (str(names[i]) if names and i < len(names) else label_of(v), v)
            for i, v in enumerate(values)
        ]
        return Shape(Kind.ENUM, eff, nullable, refs, options=options)

    for word in ("oneOf", "anyOf"):
        alts = eff.get(word)
        if not isinstance(alts, list) or not alts:
            continue
        rest = [a for a in alts if not _is_null_schema(root, a)]
        if len(rest) < len(alts):
            nullable = True
        labelled = _const_options(root, rest)
        if labelled:
            return Shape(Kind.ENUM, eff, nullable, refs, options=labelled)
        outer = {k: v for k, v in eff.items() if k != word}
        if len(rest) == 1:
            inner = shape_of(root, rest[0], refs)
            # The wrapper's title/description/default describe the field better than the inner.
            merged = {**inner.schema, **{k: outer[k] for k in _ANNOTATIONS if k in outer}}
            inner.schema = merged
            inner.nullable = inner.nullable or nullable
            return inner
        if not rest:
            return Shape(Kind.NULL, eff, False, refs)
        variants = [Variant(variant_title(root, a, i), as_schema(a)) for i, a in enumerate(rest)]
        return Shape(Kind.UNION, eff, nullable, refs, variants=variants)

    kind = eff.get("type")
    if isinstance(kind, list):
        types = [t for t in kind if t in JSON_TYPES]
        if "null" in types:
            nullable = True
            types = [t for t in types if t != "null"]
        if not types:
            return Shape(Kind.NULL if nullable else Kind.ANY, eff, False, refs)
        if len(types) > 1:
            base = {k: v for k, v in eff.items() if k != "type"}
            variants = [Variant(t, {**base, "type": t}) for t in types]
            return Shape(Kind.UNION, eff, nullable, refs, variants=variants)
        kind = types[0]
        eff = {**eff, "type": kind}

    if kind is None:
        if "properties" in eff or "additionalProperties" in eff:
            kind = "object"
        elif "items" in eff or "prefixItems" in eff:
            kind = "array"
    if kind == "array":
        items = (
            shape_of(root, eff.get("items", {}), refs)
            if isinstance(eff.get("items"), dict)
            else None
        )
        if items is not None and items.kind is Kind.ENUM and "prefixItems" not in eff:
            return Shape(Kind.MULTI_ENUM, eff, nullable, refs, options=items.options)
        return Shape(Kind.ARRAY, eff, nullable, refs)
    simple = {
        "string": Kind.STRING,
        "number": Kind.NUMBER,
        "integer": Kind.INTEGER,
        "boolean": Kind.BOOLEAN,
        "object": Kind.OBJECT,
        "null": Kind.NULL,
    }
    if isinstance(kind, str) and kind in simple:
        return Shape(simple[kind], eff, nullable, refs)
    return Shape(Kind.ANY, eff, nullable, refs)
