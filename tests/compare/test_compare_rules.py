"""The classifier on its own: schemas, prompt arguments, capabilities, server facts."""

from __future__ import annotations

from typing import Any

from inspector.compare.catalog import Catalog, compare_catalogs, compare_item, compare_lists
from inspector.compare.changes import counts, worst
from inspector.compare.paths import format_path
from inspector.compare.schema import compare_schema


def rules(old: Any, new: Any, output: bool = False) -> list[tuple[str, str]]:
    return [(d.rule, format_path(d.path)) for d in compare_schema(old, new, (), output)]


def test_type_sets_narrow_and_widen() -> None:
    assert rules({"type": ["string", "null"]}, {"type": "string"}) == [("type-narrowed", "$.type")]
    assert rules({"type": "integer"}, {"type": "number"}) == [("type-widened", "$.type")]
    assert rules({"type": "string"}, {}) == [("type-widened", "$.type")]
    assert rules({}, {"type": "string"}) == [("type-narrowed", "$.type")]
    assert rules({"type": "string"}, {"type": "number"}) == [("type-narrowed", "$.type")]
    assert rules({"type": "integer"}, {"type": "number"}, output=True) == [
        ("output-retyped", "$.type")
    ]


def test_const_and_enum() -> None:
    assert rules({"const": "a"}, {"const": "b"}) == [
        ("enum-removed", "$.const"),
        ("enum-added", "$.const"),
    ]
    assert rules({"enum": [1, 2]}, {"enum": [2, 1]}) == [("order-changed", "$.enum")]
    assert rules({}, {"enum": [1]}) == [("enum-removed", "$.enum")]  # a restriction added
    assert rules({"enum": [1]}, {}) == [("enum-added", "$.enum")]


def test_nested_items_and_required() -> None:
    old = {"type": "array", "items": {"type": "object", "properties": {"a": {}, "b": {}}}}
    new = {
        "type": "array",
        "items": {"type": "object", "properties": {"a": {}, "b": {}}, "required": ["b"]},
    }
    assert rules(old, new) == [("required-added", "$.items.required.b")]
    assert rules(new, old) == [("required-dropped", "$.items.required.b")]
    assert rules(new, old, output=True) == [("output-optional", "$.items.required.b")]


def test_text_keywords_are_cosmetic_and_property_order_too() -> None:
    old = {"properties": {"a": {"description": "x"}, "b": {}}}
    new = {"properties": {"b": {}, "a": {"description": "y", "title": "A"}}}
    assert sorted(rules(old, new)) == [
        ("order-changed", "$.properties"),
        ("text-changed", "$.properties.a.description"),
        ("text-changed", "$.properties.a.title"),
    ]


def test_prompt_arguments_by_name() -> None:
    old = {"name": "p", "arguments": [{"name": "a", "required": True}, {"name": "b"}]}
    new = {"name": "p", "arguments": [{"name": "b", "required": True}, {"name": "c"}]}
    found = [(d.rule, d.path) for d in compare_item("prompts", old, new, ())]
    assert found == [
        ("property-removed", ("arguments", "a")),
        ("required-added", ("arguments", "b", "required")),
        ("optional-added", ("arguments", "c")),
    ]


def test_lists_pair_by_identity_whatever_the_order() -> None:
    old = [{"uri": "a://1", "name": "one"}, {"uri": "a://2", "name": "two"}]
    new = [{"uri": "a://2", "name": "two"}, {"uri": "a://1", "name": "uno"}]
    found = [(d.rule, d.path) for d in compare_lists("resources", old, new, ("resources",))]
    assert found == [
        ("field-changed", ("resources", "a://1", "name")),
        ("order-changed", ("resources",)),
    ]


def test_server_facts_capabilities_and_ignore() -> None:
    old = Catalog(
        server_info={"name": "s", "version": "1"},
        protocol_version="2025-06-18",
        capabilities={"tools": {"listChanged": True}, "logging": {}},
        instructions="Hi",
    )
    new = Catalog(
        server_info={"name": "s", "version": "2"},
        protocol_version="2025-11-25",
        capabilities={"tools": {"listChanged": False}, "prompts": {}},
    )
    found = {d.rule: d.path for d in compare_catalogs(old, new)}
    assert found == {
        "server-info-changed": ("serverInfo", "version"),
        "protocol-changed": ("protocolVersion",),
        "text-changed": ("instructions",),
        "capability-dropped": ("capabilities", "logging"),
        "capability-added": ("capabilities", "prompts"),
    }
    dropped = [d for d in compare_catalogs(old, new) if d.rule == "capability-dropped"]
    assert [d.path for d in dropped] == [
        ("capabilities", "tools", "listChanged"),
        found["capability-dropped"],
    ]
    differences = compare_catalogs(old, new, lambda path: path[0] == "capabilities")
    assert worst(differences) == "compatible"
    assert counts(differences) == {"breaking": 0, "compatible": 1, "cosmetic": 2}
    assert compare_catalogs(old, old) == []
