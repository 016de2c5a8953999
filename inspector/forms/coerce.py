"""Turn typed text into JSON values by schema type (form inputs and `--tool-arg k=v`).

Text that does not fit its type is returned unchanged, so validation reports it on
the field instead of the input being lost.
"""

from __future__ import annotations

import json
import math
import re
from typing import Any

from inspector.forms import strict_json
from inspector.forms.resolve import Kind, Schema, as_schema, shape_of
from inspector.forms.validate import is_valid, make_validator

_TRUE = {"true", "yes", "on", "1", "y", "t"}
_FALSE = {"false", "no", "off", "0", "n", "f"}
_INT = re.compile(r"[+-]?\d+")


def same_json(a: Any, b: Any) -> bool:
    """JSON equality: `true` is not `1`, but `1` equals `1.0`."""
    if isinstance(a, bool) or isinstance(b, bool):
        return isinstance(a, bool) and isinstance(b, bool) and a == b
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(same_json(a[k], b[k]) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(same_json(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, int | float) and isinstance(b, int | float):
        return a == b
    return type(a) is type(b) and bool(a == b)


def parse_number(text: str, *, strict: bool = False) -> int | float | None:
    """`3` -> 3, `2.5` / `1e3` -> float; None if not a finite number. An integer of more
    digits than `int()` reads is None too, or with `strict` a NotJson saying so."""
    text = text.strip()
    if _INT.fullmatch(text):
        try:
            return int(text)
        except ValueError:
            if strict:
                raise strict_json.too_many_digits(text) from None
            return None
    try:
        number = float(text)
    except ValueError:
        return None
    return number if math.isfinite(number) else None


def parse_bool(text: str) -> bool | None:
    lowered = text.strip().lower()
    if lowered in _TRUE:
        return True
    if lowered in _FALSE:
        return False
    return None


def coerce_text(kind: str, text: str, *, strict: bool = False) -> Any:
    """Coerce one form input by its kind (`integer`, `number`, `boolean`, `null`, `any`...).

    Text that is JSON only to Python (NaN, 1e400, 5,000 digits, nesting past
    `strict_json.MAX_DEPTH`) stays text; with `strict` it raises NotJson instead."""
    if kind == Kind.STRING:
        return text
    if kind == Kind.INTEGER:
        number = parse_number(text, strict=strict)
        if isinstance(number, float) and number.is_integer():
            return int(number)
        return number if isinstance(number, int) else text
    if kind == Kind.NUMBER:
        number = parse_number(text, strict=strict)
        return text if number is None else number
    if kind == Kind.BOOLEAN:
        flag = parse_bool(text)
        return text if flag is None else flag
    if kind == Kind.NULL:
        return None if text.strip() in ("", "null") else text
    # any / object / array / enum values typed as text: JSON, else the bare string
    try:
        return strict_json.loads(text)
    except json.JSONDecodeError:
        return text
    except strict_json.NotJson:
        if strict:
            raise
        return text


def property_schema(schema: Schema, key: str) -> Any:
    """The schema of property `key` of an object schema (refs/allOf/patterns honoured)."""
    shape = shape_of(schema, schema)
    eff = shape.schema
    props = eff.get("properties") or {}
    if key in props:
        return props[key]
    for pattern, sub in (eff.get("patternProperties") or {}).items():
        try:
            if re.search(pattern, key):
                return sub
        except re.error:
            continue
    extra = eff.get("additionalProperties", True)
    return extra if isinstance(extra, dict) else {}


def coerce_value(root: Schema, schema: Any, text: str, *, strict: bool = False) -> Any:
    """Coerce `text` by `schema` (resolved within `root`); unions try variants in order.
    `strict`: see :func:`coerce_text`."""
    shape = shape_of(root, as_schema(schema))
    if shape.nullable and text.strip() == "null":
        return None
    if shape.kind is Kind.CONST:
        const = shape.schema["const"]
        if isinstance(const, str) and text == const:
            return const
        return coerce_text("any", text, strict=strict)
    if shape.kind in (Kind.ENUM, Kind.MULTI_ENUM):
        options = [value for _, value in shape.options]
        if shape.kind is Kind.ENUM and text in options:
            return text  # a string option, typed bare
        parsed = coerce_text("any", text, strict=strict)
        if shape.kind is Kind.MULTI_ENUM and not isinstance(parsed, list):
            # `a,b,c` for a multi-select of strings
            return [part.strip() for part in text.split(",")] if text else []
        return parsed
    if shape.kind is Kind.UNION:
        try:
            validator = make_validator(root)
        except Exception:
            validator = None
        candidates = [coerce_value(root, v.schema, text) for v in shape.variants]
        for variant, candidate in zip(shape.variants, candidates, strict=True):
            if is_valid(validator, variant.schema, candidate):
                return candidate
        if not candidates:
            return text
        # none fits: the first variant's reading, which `strict` refuses if it is not JSON
        return coerce_value(root, shape.variants[0].schema, text, strict=strict)
    if shape.kind in (Kind.OBJECT, Kind.ARRAY, Kind.ANY):
        return coerce_text("any", text, strict=strict)
    return coerce_text(shape.kind.value, text, strict=strict)


def coerce_cli_arg(schema: Schema, key: str, text: str) -> Any:
    """Coerce a headless `--tool-arg key=value` by the property's schema.

    integer/number/boolean/null are parsed; arrays and objects are given as JSON;
    strings stay as typed; for unions the first variant the value is valid for wins.
    A value that is JSON only to Python raises :class:`strict_json.NotJson`.
    """
    root = as_schema(schema)
    return coerce_value(root, property_schema(root, key), text, strict=True)
