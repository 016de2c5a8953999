"""A quick "it conforms" for big instances, before jsonschema.

jsonschema walks an instance at a few microseconds a node: a 13 MB ``structuredContent``
took two seconds to check, longer than the call. Most output schemas use a small set of
keywords (what pydantic and zod emit), so this compiles such a schema into plain Python
checks that follow jsonschema's rules for each of those keywords (its types, its
equality, draft-07's ``$ref`` that hides its siblings). Only a True is used: a False goes
on to jsonschema, which also words the problems. A schema with any keyword outside the
set, or a dialect whose meanings differ (draft-04's boolean ``exclusiveMinimum``), is not
compiled: jsonschema alone decides.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sized
from typing import Any
from urllib.parse import unquote

from jsonschema import exceptions as js_exc

from inspector.errors import InspectorError
from inspector.forms.formats import format_checker
from inspector.forms.validate import validator_class

Check = Callable[[Any], bool]

# keywords that never make an instance invalid
_ANNOTATIONS = frozenset(
    {
        "$schema",
        "$comment",
        "$defs",
        "definitions",
        "title",
        "description",
        "default",
        "examples",
        "deprecated",
        "readOnly",
        "writeOnly",
        "contentMediaType",
        "contentEncoding",
    }
)
_OBJECT_KEYWORDS = frozenset({"properties", "required", "additionalProperties"})
_HANDLED = _OBJECT_KEYWORDS | frozenset(
    {
        "type",
        "enum",
        "const",
        "items",
        "minItems",
        "maxItems",
        "minLength",
        "maxLength",
        "pattern",
        "format",
        "minimum",
        "maximum",
        "exclusiveMinimum",
        "exclusiveMaximum",
        "anyOf",
        "oneOf",
        "allOf",
        "$ref",
    }
)
# dialects whose meaning of the handled keywords is the one below (True: ``$ref`` hides
# the keywords beside it)
_DIALECTS = {
    "https://json-schema.org/draft/2020-12/schema": False,
    "https://json-schema.org/draft/2019-09/schema": False,
    "http://json-schema.org/draft-07/schema": True,
    "http://json-schema.org/draft-06/schema": True,
}


class UnsupportedSchema(InspectorError):
    """The schema uses something this module does not check exactly (never leaves it)."""


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


# jsonschema's type checker: a bool is no number; 1.0 is an integer
_TYPES: dict[str, Check] = {
    "null": lambda v: v is None,
    "boolean": lambda v: isinstance(v, bool),
    "string": lambda v: isinstance(v, str),
    "array": lambda v: isinstance(v, list),
    "object": lambda v: isinstance(v, dict),
    "number": _is_number,
    "integer": lambda v: (
        (isinstance(v, int) and not isinstance(v, bool))
        or (isinstance(v, float) and v.is_integer())
    ),
}


def _equal(one: Any, two: Any) -> bool:
    """jsonschema's equality (``enum``, ``const``): a bool equals only a bool, 1 equals
    1.0, lists and objects item by item."""
    if one is two:
        return True
    if isinstance(one, str) or isinstance(two, str):
        return bool(one == two)
    if isinstance(one, list) and isinstance(two, list):
        return len(one) == len(two) and all(map(_equal, one, two))
    if isinstance(one, dict) and isinstance(two, dict):
        return len(one) == len(two) and all(k in two and _equal(v, two[k]) for k, v in one.items())
    if isinstance(one, bool) or isinstance(two, bool):
        return isinstance(one, bool) and isinstance(two, bool) and one == two
    return bool(one == two)


class _Compiler:
    def __init__(self, root: Any, formats: Any, ref_hides_siblings: bool) -> None:
        self.root = root
        self.formats = formats
        self.ref_hides_siblings = ref_hides_siblings  # draft-06/07
        self.refs: dict[str, Check] = {}

    def compile(self, schema: Any) -> Check:
        if schema is True or schema == {}:
            return lambda _: True
        if schema is False:
            return lambda _: False
        if not isinstance(schema, dict):
            raise UnsupportedSchema
        if schema.keys() - _HANDLED - _ANNOTATIONS:
            raise UnsupportedSchema
        if self.ref_hides_siblings and "$ref" in schema:
            return self._ref(schema["$ref"])
        checks = [
            self._keyword(key, value)
            for key, value in schema.items()
            if key not in _ANNOTATIONS and key not in _OBJECT_KEYWORDS
        ]
        if schema.keys() & _OBJECT_KEYWORDS:
            checks.append(self._object(schema))
        if not checks:
            return lambda _: True
        if len(checks) == 1:
            return checks[0]
        return lambda v: all(check(v) for check in checks)

    def _keyword(self, key: str, value: Any) -> Check:
        if key == "type":
            names = value if isinstance(value, list) else [value]
            if not all(isinstance(n, str) and n in _TYPES for n in names):
                raise UnsupportedSchema
            kinds = [_TYPES[n] for n in names]
            return kinds[0] if len(kinds) == 1 else (lambda v: any(k(v) for k in kinds))
        if key == "enum":
            options = list(value)
            return lambda v: any(_equal(o, v) for o in options)
        if key == "const":
            return lambda v: _equal(v, value)
        if key == "items":
            if isinstance(value, list):  # draft-07 tuples
                raise UnsupportedSchema
            item = self.compile(value)
            return lambda v: not isinstance(v, list) or all(map(item, v))
        if key in ("minItems", "maxItems"):
            return _bound(key, value, list)
        if key in ("minLength", "maxLength"):
            return _bound(key, value, str)
        if key == "pattern":
            regex = re.compile(value)
            return lambda v: not isinstance(v, str) or regex.search(v) is not None
        if key == "format":
            formats, name = self.formats, value
            return lambda v: bool(formats.conforms(v, name))
        if key in ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"):
            return _limit(key, value)
        if key in ("anyOf", "oneOf", "allOf"):
            parts = [self.compile(s) for s in value]
            if key == "allOf":
                return lambda v: all(p(v) for p in parts)
            if key == "anyOf":
                return lambda v: any(p(v) for p in parts)
            return lambda v: sum(1 for p in parts if p(v)) == 1
        if key == "$ref":
            return self._ref(value)
        raise UnsupportedSchema

    def _object(self, schema: dict[str, Any]) -> Check:
        """properties, required and additionalProperties, in one pass over the keys."""
        properties = {name: self.compile(s) for name, s in schema.get("properties", {}).items()}
        required = list(schema.get("required", []))
        extra = schema.get("additionalProperties", True)
        others = None if extra is True else self.compile(extra)

        def check(v: Any) -> bool:
            if not isinstance(v, dict):
                return True
            for name in required:
                if name not in v:
                    return False
            for name, item in v.items():
                known = properties.get(name)
                if known is not None:
                    if not known(item):
                        return False
                elif others is not None and not others(item):
                    return False
            return True

        return check

    def _ref(self, ref: Any) -> Check:
        """A ``#/...`` pointer into the root (others are jsonschema's); compiled once,
        looked up when called, so a recursive schema compiles."""
        if not isinstance(ref, str) or not ref.startswith("#"):
            raise UnsupportedSchema
        if ref not in self.refs:
            self.refs[ref] = lambda _: False  # while compiling it: never "surely valid"
            self.refs[ref] = self.compile(self._resolve(ref))
        refs = self.refs
        return lambda v: refs[ref](v)

    def _resolve(self, ref: str) -> Any:
        target = self.root
        pointer = unquote(ref[1:])
        if pointer and not pointer.startswith("/"):
            raise UnsupportedSchema  # an anchor
        for part in pointer.split("/")[1:]:
            part = part.replace("~1", "/").replace("~0", "~")
            if isinstance(target, dict) and part in target:
                target = target[part]
            elif isinstance(target, list) and part.isdigit() and int(part) < len(target):
                target = target[int(part)]
            else:
                raise UnsupportedSchema
        return target


def _bound(key: str, limit: Any, kind: type[Sized]) -> Check:
    if not isinstance(limit, int) or isinstance(limit, bool):
        raise UnsupportedSchema
    if key.startswith("min"):
        return lambda v: not isinstance(v, kind) or len(v) >= limit
    return lambda v: not isinstance(v, kind) or len(v) <= limit


def _limit(key: str, limit: Any) -> Check:
    if not _is_number(limit):
        raise UnsupportedSchema
    compare: Callable[[Any], bool] = {
        "minimum": lambda v: v >= limit,
        "maximum": lambda v: v <= limit,
        "exclusiveMinimum": lambda v: v > limit,
        "exclusiveMaximum": lambda v: v < limit,
    }[key]
    return lambda v: not _is_number(v) or compare(v)


def compile_check(schema: Any) -> Check | None:
    """A check that is True only for instances that conform to ``schema``; None for a
    schema it does not handle exactly (or an invalid one: jsonschema reports that)."""
    dialect = schema.get("$schema") if isinstance(schema, dict) else None
    if dialect is None:
        hides = False  # 2020-12, as MCP says
    elif isinstance(dialect, str) and dialect.rstrip("#") in _DIALECTS:
        hides = _DIALECTS[dialect.rstrip("#")]
    else:
        return None
    cls = validator_class(schema)
    try:
        cls.check_schema(schema)
        return _Compiler(schema, format_checker(cls.FORMAT_CHECKER), hides).compile(schema)
    except (UnsupportedSchema, js_exc.SchemaError, re.error, TypeError):
        return None


def surely_conforms(schema: Any, instance: Any) -> bool:
    """True when ``instance`` conforms to ``schema`` as jsonschema would say; False when it
    does not, or when only jsonschema can tell."""
    check = compile_check(schema)
    if check is None:
        return False
    try:
        return check(instance)
    except RecursionError:
        return False
