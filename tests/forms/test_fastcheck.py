"""The quick output check agrees with jsonschema on every instance, for every schema it
compiles, and leaves the others to jsonschema."""

from __future__ import annotations

import random
from typing import Any

import pytest

from inspector.forms.fastcheck import compile_check, surely_conforms
from inspector.forms.output import OutputStatus, check_output
from inspector.forms.validate import make_validator

ROW = {
    "type": "object",
    "properties": {
        "id": {"type": "integer", "minimum": 0},
        "name": {"type": "string", "minLength": 1, "maxLength": 5},
        "ok": {"type": "boolean"},
        "score": {"type": ["number", "null"], "exclusiveMaximum": 10},
    },
    "required": ["id", "name"],
    "additionalProperties": False,
}

SCHEMAS: list[Any] = [
    ROW,
    {"type": "object", "properties": {"rows": {"type": "array", "items": ROW, "maxItems": 3}}},
    {"type": "integer"},
    {"type": "number", "minimum": 1, "maximum": 2},
    {"enum": [1, "a", None, [1, 2], {"k": True}]},
    {"enum": [1.0, False]},
    {"const": {"a": [1, True]}},
    {"type": "string", "pattern": "^a+$"},
    {"type": "string", "format": "email"},
    {"format": "date-time"},
    {"anyOf": [{"type": "string"}, {"type": "null"}]},
    {"oneOf": [{"type": "number"}, {"type": "integer"}]},  # an integer matches both
    {"allOf": [{"type": "object", "required": ["a"]}, {"required": ["b"]}]},
    {"additionalProperties": {"type": "integer"}, "properties": {"s": {"type": "string"}}},
    {
        "$defs": {
            "node": {
                "type": "object",
                "properties": {
                    "v": {"type": "integer"},
                    "kids": {"items": {"$ref": "#/$defs/node"}},
                },
                "required": ["v"],
            }
        },
        "$ref": "#/$defs/node",
    },
    {  # draft-07: the keywords beside $ref do not apply
        "$schema": "http://json-schema.org/draft-07/schema#",
        "definitions": {"n": {"type": "integer"}},
        "$ref": "#/definitions/n",
        "minimum": 100,
    },
    {  # 2020-12: they do
        "$defs": {"n": {"type": "integer"}},
        "$ref": "#/$defs/n",
        "minimum": 100,
    },
    {"items": {"minItems": 1, "items": True}, "minItems": 2},
    {"title": "annotations only", "description": "anything", "default": 3},
    True,
    False,
]

UNSUPPORTED: list[Any] = [
    {"type": "object", "patternProperties": {"^x": {"type": "integer"}}},
    {"$schema": "http://json-schema.org/draft-04/schema#", "exclusiveMinimum": True, "minimum": 1},
    {"items": [{"type": "integer"}]},
    {"$id": "https://example.com/s", "type": "object"},
    {"not": {"type": "string"}},
    {"type": "array", "uniqueItems": True},
    {"$ref": "https://example.com/remote.json"},
    {"type": "number", "multipleOf": 0.5},
    {"x-vendor": 1, "type": "string"},
    {"type": "no-such-type"},
]

SCALARS: list[Any] = [None, True, False, 0, 1, 1.0, 1.5, 2, 9.5, 10, -3, 100, 150.0]
STRINGS = ["", "a", "aaa", "abcdefg", "x@example.com", "2026-11-24T01:00:00Z", "not a date"]
KEYS = ["id", "name", "ok", "score", "rows", "a", "b", "s", "v", "kids", "k", "extra"]


def random_value(rng: random.Random, depth: int = 0) -> Any:
    roll = rng.random()
    if depth > 3 or roll < 0.45:
        return rng.choice(SCALARS + STRINGS)
    if roll < 0.7:
        return [random_value(rng, depth + 1) for _ in range(rng.randint(0, 4))]
    return {k: random_value(rng, depth + 1) for k in rng.sample(KEYS, rng.randint(0, 5))}


def instances(rng: random.Random) -> list[Any]:
    known = [
        {"id": 1, "name": "ab"},
        {"id": 1.0, "name": "ab", "ok": True, "score": None},
        {"id": True, "name": "ab"},
        {"id": 1, "name": "ab", "more": 1},
        {"rows": [{"id": 0, "name": "a"}] * 3},
        {"rows": [{"id": 0, "name": "a"}] * 4},
        [1, 2],
        [1.0, 2.0],
        {"k": True},
        {"k": 1},
        {"a": [1, True]},
        {"a": [1.0, True]},
        {"a": [1, 1]},
        {"a": 1, "b": 2},
        {"s": "x", "t": 1, "u": 1.0},
        {"s": 1},
        {"v": 1, "kids": [{"v": 2, "kids": [{"v": 3}]}]},
        {"v": 1, "kids": [{"v": 2, "kids": [{"w": 3}]}]},
        [[1], [2]],
        [[1], []],
    ]
    return known + SCALARS + STRINGS + [random_value(rng) for _ in range(400)]


@pytest.mark.parametrize("schema", SCHEMAS, ids=range(len(SCHEMAS)))
def test_agrees_with_jsonschema_on_every_instance(schema: Any) -> None:
    check = compile_check(schema)
    assert check is not None, "this schema is in the handled set"
    validator = make_validator(schema)
    rng = random.Random(20261124)
    outcomes = set()
    for instance in instances(rng):
        expected = validator.is_valid(instance)
        assert check(instance) is expected, (schema, instance)
        outcomes.add(expected)
    if schema not in (True, False) and "annotations only" not in str(schema):
        assert outcomes == {True, False}, "the instances try both ways"


@pytest.mark.parametrize("schema", UNSUPPORTED, ids=range(len(UNSUPPORTED)))
def test_leaves_other_schemas_to_jsonschema(schema: Any) -> None:
    assert compile_check(schema) is None
    assert not surely_conforms(schema, "anything")


@pytest.mark.slow
def test_a_big_result_that_does_not_match_still_gets_jsonschemas_words() -> None:
    schema = {"type": "object", "properties": {"rows": {"type": "array", "items": ROW}}}
    rows = [{"id": n, "name": "ok"} for n in range(20_000)]
    assert check_output(schema, {"structuredContent": {"rows": rows}}).status is (
        OutputStatus.MATCHES
    )
    rows[12_345] = {"id": -1, "name": "ok"}
    checked = check_output(schema, {"structuredContent": {"rows": rows}})
    assert checked.status is OutputStatus.MISMATCH
    assert checked.describe() == (
        "structuredContent does not match the outputSchema: rows/12345/id: "
        "must be at least 0 (got -1)"
    )
