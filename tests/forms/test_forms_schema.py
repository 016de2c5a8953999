"""The headless form model: JSON Schema -> field tree -> JSON, coercion and validation."""

from __future__ import annotations

import copy
import json
import socket
import subprocess
import sys
from typing import Annotated, Any, Literal

import anyio
import pytest
from pydantic import BaseModel, Field

from inspector.demo.schemas import SCHEDULE_EVENT
from inspector.forms.schema import (
    MISSING,
    UNFILLED,
    ArrayNode,
    BoolNode,
    ConstNode,
    EnumNode,
    FieldNode,
    Kind,
    MultiEnumNode,
    ObjectNode,
    ScalarNode,
    UnionNode,
    ValidationIssue,
    build_form,
    check_form,
    coerce_cli_arg,
    validate,
)


def scalar(form: FieldNode, *path: str | int) -> ScalarNode:
    node = form.find(path)
    assert isinstance(node, ScalarNode), node
    return node


def round_trip(schema: dict[str, Any], value: Any) -> Any:
    """form(value) -> JSON -> form -> JSON; both JSONs must agree."""
    first = build_form(schema, value).value()
    second = build_form(schema, first).value()
    assert first == second
    return first


# --- headless ------------------------------------------------------------------------
def test_forms_package_never_imports_textual() -> None:
    code = (
        "import sys, inspector.forms.schema as s; s.build_form({'type': 'object'}); "
        "print('textual' in sys.modules)"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True
    )
    assert out.stdout.strip() == "False"


# --- scalars, coercion of typed text ---------------------------------------------------
SCALARS = {
    "type": "object",
    "properties": {
        "s": {
            "type": "string",
            "format": "email",
            "minLength": 3,
            "title": "Mail",
            "description": "where to write",
        },
        "i": {"type": "integer", "minimum": 0, "maximum": 10},
        "n": {"type": "number"},
        "b": {"type": "boolean"},
        "any": {},
        "d": {"type": "string", "format": "date-time"},
        "u": {"type": "string", "format": "uuid", "pattern": "^[0-9a-f-]+$"},
    },
    "required": ["s", "i"],
}


def test_scalar_kinds_hints_and_required() -> None:
    form = build_form(SCALARS)
    assert isinstance(form, ObjectNode)
    kinds = {name: node.kind for name, node in form.fields.items()}
    assert kinds == {
        "s": Kind.STRING,
        "i": Kind.INTEGER,
        "n": Kind.NUMBER,
        "b": Kind.BOOLEAN,
        "any": Kind.ANY,
        "d": Kind.STRING,
        "u": Kind.STRING,
    }
    s = form.fields["s"]
    assert s.required and not form.fields["n"].required
    assert s.title == "Mail" and s.description == "where to write"
    assert s.format == "email" and s.hints == {"format": "email", "minLength": 3}
    assert "email" in s.type_text
    assert "≥ 0" in form.fields["i"].type_text and "≤ 10" in form.fields["i"].type_text
    assert form.fields["u"].hints["pattern"] == "^[0-9a-f-]+$"
    assert form.fields["d"].format == "date-time"


def test_empty_optional_fields_are_omitted_required_strings_are_sent_empty() -> None:
    form = build_form(SCALARS)
    assert form.value() == {"s": ""}  # i is required but empty: validation says so
    assert set(validate(SCALARS, form.value())) == {
        ValidationIssue(("i",), "required"),
        ValidationIssue(("s",), "too short: at least 3 characters (got 0)"),
        ValidationIssue(("s",), 'not a valid email, like name@example.com (got "")'),
    }


def test_a_blank_required_string_is_one_issue_until_given() -> None:
    """The form (not the schema) knows the user never typed in it: it says so, once."""
    schema = {
        "type": "object",
        "properties": {
            "title": {"type": "string"},  # the schema accepts ""
            "mail": {"type": "string", "format": "email"},
            "note": {"type": "string"},  # optional: left out
            "when": {"oneOf": [{"type": "string"}, {"type": "integer"}]},
            "tags": {"type": "array", "items": {"type": "string"}},
            "meta": {"type": "object", "additionalProperties": {"type": "string"}},
        },
        "required": ["title", "mail", "when"],
    }
    form = build_form(schema)
    value, issues = check_form(form, schema)
    assert value == {"title": "", "mail": "", "when": ""}
    assert issues == [  # in the form's order
        ValidationIssue(("title",), UNFILLED),
        ValidationIssue(("mail",), UNFILLED),  # not also "not a valid email"
        ValidationIssue(("when",), UNFILLED),  # a union's variant stands for it
    ]
    # typed, then deleted: empty on purpose; loaded as "": given; items and map values
    # are required only by construction
    scalar(form, "title").set_text("x")
    scalar(form, "title").set_text("")
    form.find(("mail",)).set_value("")
    tags = form.find(("tags",))
    assert isinstance(tags, ArrayNode)
    tags.add()
    meta = form.find(("meta",))
    assert isinstance(meta, ObjectNode)
    meta.add_row("k")
    value, issues = check_form(form, schema)
    assert value["title"] == "" and value["tags"] == [""] and value["meta"] == {"k": ""}
    assert [i.path for i in issues] == [("mail",), ("when",)]
    assert issues[0].message != UNFILLED  # "" is not an email: the schema says so
    # a cleared form is blank again
    form.set_value({})
    assert ("title",) in [i.path for i in check_form(form, schema)[1]]


def test_an_optional_union_nobody_touched_is_left_out() -> None:
    """Its first variant is only what the form shows; picking one, or editing inside
    it, sends it (a required union is always sent, a loaded one too)."""
    form = build_form(SCHEDULE_EVENT)
    value, issues = check_form(form, SCHEDULE_EVENT)
    assert "location" not in value and "recurrence" not in value
    assert [i.path for i in issues] == [("title",), ("when",)]
    location = form.find(("location",))
    assert isinstance(location, UnionNode)
    location.select(1)
    assert form.value()["location"] == {"kind": "in_person", "room": ""}
    form.set_value({"title": "t", "when": "x", "location": {"kind": "online", "url": "u:"}})
    assert form.value()["location"] == {"kind": "online", "url": "u:"}
    form.set_value({"title": "t", "when": "x"})
    assert "location" not in form.value()
    recurrence = form.find(("recurrence",))
    assert isinstance(recurrence, UnionNode)
    recurrence.select(1)  # Custom: {every, unit}, every defaults to 1
    assert form.value()["recurrence"] == {"every": 1}


def test_messages_say_what_is_wanted_and_what_was_given() -> None:
    schema = {
        "type": "object",
        "properties": {
            "n": {"type": "integer", "minimum": 1, "maximum": 10},
            "x": {"type": "number", "exclusiveMaximum": 1},
            "s": {"type": "string", "minLength": 1, "maxLength": 3, "pattern": "^[a-z]+$"},
            "d": {"type": "string", "format": "date"},
            "e": {"enum": ["a", "b"]},
            "o": {"type": ["string", "null"]},
        },
    }

    def says(value: dict[str, object]) -> list[str]:
        return [i.message for i in validate(schema, value)]

    assert says({"n": 11}) == ["must be at most 10 (got 11)"]
    assert says({"n": 0}) == ["must be at least 1 (got 0)"]
    assert says({"n": "abc"}) == ['must be an integer (got "abc")']
    assert says({"x": 1}) == ["must be less than 1 (got 1)"]
    assert says({"s": ""})[0] == "must not be empty"
    assert says({"s": "abcd"}) == ["too long: at most 3 characters (got 4)"]
    assert says({"s": "A"}) == ['must match the pattern ^[a-z]+$ (got "A")']
    assert says({"d": "tomorrow"}) == ['not a valid date, like YYYY-MM-DD (got "tomorrow")']
    assert says({"e": "c"}) == ['must be one of "a", "b" (got "c")']
    assert says({"o": 3}) == ["must be a string or null (got 3)"]
    draft4 = {
        "$schema": "http://json-schema.org/draft-04/schema#",
        "maximum": 3,
        "exclusiveMaximum": True,
    }
    assert [i.message for i in validate(draft4, 3)] == ["must be less than 3 (got 3)"]


def test_text_is_coerced_by_type() -> None:
    form = build_form(SCALARS)
    scalar(form, "s").set_text("a@b.c")
    scalar(form, "i").set_text("3")
    scalar(form, "n").set_text("2.5")
    scalar(form, "any").set_text('{"k": [1, true]}')
    b = form.find(("b",))
    assert isinstance(b, BoolNode)
    b.set_state(True)
    assert form.value() == {"s": "a@b.c", "i": 3, "n": 2.5, "b": True, "any": {"k": [1, True]}}
    scalar(form, "n").set_text("1e3")
    scalar(form, "i").set_text("4.0")
    scalar(form, "any").set_text("bare words")
    value = form.value()
    assert value["n"] == 1000.0 and value["i"] == 4 and value["any"] == "bare words"


def test_text_that_does_not_fit_is_kept_and_reported_on_its_field() -> None:
    form = build_form(SCALARS)
    scalar(form, "s").set_text("abc@d")
    scalar(form, "i").set_text("three")
    value = form.value()
    assert value["i"] == "three"
    issues = validate(SCALARS, value)
    assert [i.path for i in issues] == [("i",)]
    assert form.find(issues[0].path) is form.fields["i"]


def test_optional_boolean_unset_is_omitted_required_is_false() -> None:
    schema = {
        "type": "object",
        "properties": {"a": {"type": "boolean"}, "b": {"type": "boolean"}},
        "required": ["b"],
    }
    assert build_form(schema).value() == {"b": False}


# --- enums, const --------------------------------------------------------------------
def test_enum_const_and_titled_one_of() -> None:
    schema = {
        "type": "object",
        "properties": {
            "color": {"enum": ["red", "green", 3, None]},
            "size": {
                "type": "string",
                "oneOf": [{"const": "s", "title": "Small"}, {"const": "l", "title": "Large"}],
            },
            "legacy": {"type": "string", "enum": ["a", "b"], "enumNames": ["Alpha", "Beta"]},
            "kind": {"const": "fixed"},
            "tags": {"type": "array", "items": {"enum": ["x", "y", "z"]}},
            "picks": {
                "type": "array",
                "items": {"anyOf": [{"const": "p", "title": "P"}, {"const": "q", "title": "Q"}]},
            },
        },
    }
    form = build_form(schema)
    color, size, legacy = (form.find((k,)) for k in ("color", "size", "legacy"))
    assert isinstance(color, EnumNode) and color.nullable
    assert [label for label, _ in color.options] == ["red", "green", "3"]
    assert isinstance(size, EnumNode) and size.options == [("Small", "s"), ("Large", "l")]
    assert isinstance(legacy, EnumNode) and legacy.options[1] == ("Beta", "b")
    assert isinstance(form.find(("kind",)), ConstNode)
    tags = form.find(("tags",))
    picks = form.find(("picks",))
    assert isinstance(tags, MultiEnumNode) and isinstance(picks, MultiEnumNode)
    assert picks.options == [("P", "p"), ("Q", "q")]
    assert form.value() == {"kind": "fixed"}
    color.select(2)
    size.select(1)
    tags.set_chosen([2, 0])
    assert form.value() == {"color": 3, "size": "l", "kind": "fixed", "tags": ["z", "x"]}
    assert validate(schema, form.value()) == []
    color.set_null(True)
    assert form.value()["color"] is None
    assert round_trip(schema, form.value()) == form.value()


def test_enum_values_match_as_json_true_is_not_one() -> None:
    schema = {"type": "object", "properties": {"e": {"enum": [1, True, "1"]}}}
    for value in (1, True, "1"):
        form = build_form(schema, {"e": value})
        got = form.value()["e"]
        assert got == value and type(got) is type(value)


# --- unions --------------------------------------------------------------------------
UNION = {
    "type": "object",
    "properties": {
        "shape": {
            "oneOf": [
                {
                    "title": "Circle",
                    "type": "object",
                    "properties": {"kind": {"const": "circle"}, "r": {"type": "number"}},
                    "required": ["kind", "r"],
                },
                {"$ref": "#/$defs/Square"},
                {"type": "string"},
                {"type": "object", "properties": {"kind": {"const": "blob"}}},
            ],
        },
        "id": {"type": ["integer", "string"]},
    },
    "$defs": {
        "Square": {
            "type": "object",
            "properties": {"kind": {"const": "square"}, "side": {"type": "number"}},
            "required": ["kind"],
        }
    },
}


def test_union_variant_titles_and_picking() -> None:
    form = build_form(UNION)
    shape = form.find(("shape",))
    assert isinstance(shape, UnionNode)
    assert [v.title for v in shape.variants] == ["Circle", "Square", "string", "object"]
    assert isinstance(shape.current, ObjectNode)
    scalar(form, "shape", "r").set_text("2")
    assert form.value()["shape"] == {"kind": "circle", "r": 2}
    square = shape.select(1)
    assert isinstance(square, ObjectNode) and "side" in square.fields
    scalar(form, "shape", "side").set_text("4")
    assert form.value()["shape"] == {"kind": "square", "side": 4}
    shape.select(0)  # input kept per variant
    assert form.value()["shape"] == {"kind": "circle", "r": 2}
    ident = form.find(("id",))
    assert isinstance(ident, UnionNode) and [v.title for v in ident.variants] == [
        "integer",
        "string",
    ]


def test_union_set_value_picks_the_valid_variant() -> None:
    for value, index in (
        ({"kind": "square", "side": 3}, 1),
        ("text", 2),
        ({"kind": "circle", "r": 1.5}, 0),
        ({"kind": "blob"}, 3),
    ):
        form = build_form(UNION, {"shape": value, "id": "x7"})
        shape = form.find(("shape",))
        assert isinstance(shape, UnionNode) and shape.selected == index, value
        assert form.value() == {"shape": value, "id": "x7"}
    ident = build_form(UNION, {"id": 7}).find(("id",))
    assert isinstance(ident, UnionNode) and ident.selected == 0


# --- nullable ------------------------------------------------------------------------
@pytest.mark.parametrize(
    "prop",
    [
        {"type": ["string", "null"]},
        {"anyOf": [{"type": "string"}, {"type": "null"}]},
        {"oneOf": [{"type": "null"}, {"type": "string"}]},
        {"type": "string", "nullable": True},
    ],
)
def test_nullable_forms(prop: dict[str, Any]) -> None:
    schema = {"type": "object", "properties": {"x": prop}}
    form = build_form(schema)
    x = form.find(("x",))
    assert isinstance(x, ScalarNode) and x.kind is Kind.STRING and x.nullable
    assert form.value() == {}
    x.set_null(True)
    assert form.value() == {"x": None}
    x.set_null(False)
    x.set_text("hi")
    assert form.value() == {"x": "hi"}
    assert build_form(schema, {"x": None}).find(("x",)).is_null


def test_nullable_wrapper_keeps_title_description_and_default() -> None:
    prop = {
        "anyOf": [{"type": "integer"}, {"type": "null"}],
        "default": 5,
        "title": "Count",
        "description": "how many",
    }
    form = build_form({"type": "object", "properties": {"n": prop}})
    n = form.find(("n",))
    assert n.kind is Kind.INTEGER and n.title == "Count" and n.description == "how many"
    assert form.value() == {"n": 5}


# --- arrays --------------------------------------------------------------------------
def test_array_add_remove_move() -> None:
    schema = {
        "type": "object",
        "properties": {"xs": {"type": "array", "items": {"type": "integer"}}},
    }
    form = build_form(schema)
    xs = form.find(("xs",))
    assert isinstance(xs, ArrayNode)
    assert form.value() == {}
    for text in ("1", "2", "3"):
        item = xs.add()
        assert isinstance(item, ScalarNode)
        item.set_text(text)
    assert form.value() == {"xs": [1, 2, 3]}
    assert xs.move(2, -1) == 1
    assert form.value() == {"xs": [1, 3, 2]}
    assert xs.items[1].path == ("xs", 1) and xs.items[1].label == "item 2"
    xs.move(0, -1)  # already first
    xs.remove(0)
    assert form.value() == {"xs": [3, 2]}
    xs.remove(0)
    xs.remove(0)
    assert form.value() == {"xs": []}  # the user touched it: an empty list is sent


def test_array_of_objects_and_arrays() -> None:
    schema = {
        "type": "object",
        "properties": {
            "rows": {
                "type": "array",
                "items": {
                    "type": "object",
                    "properties": {
                        "name": {"type": "string"},
                        "vals": {"type": "array", "items": {}},
                    },
                    "required": ["name"],
                },
            }
        },
    }
    form = build_form(schema)
    rows = form.find(("rows",))
    assert isinstance(rows, ArrayNode)
    row = rows.add()
    scalar(form, "rows", 0, "name").set_text("a")
    vals = row.find(("vals",))
    assert isinstance(vals, ArrayNode)
    vals.add(value={"deep": [1]})
    assert form.value() == {"rows": [{"name": "a", "vals": [{"deep": [1]}]}]}
    assert round_trip(schema, form.value()) == form.value()


def test_tuple_prefix_items_and_limits() -> None:
    schema = {
        "type": "object",
        "properties": {
            "pt": {
                "type": "array",
                "prefixItems": [{"type": "number"}, {"type": "string"}],
                "items": False,
            }
        },
    }
    form = build_form(schema)
    pt = form.find(("pt",))
    assert isinstance(pt, ArrayNode)
    first, second = pt.add(), pt.add()
    assert first.kind is Kind.NUMBER and second.kind is Kind.STRING
    assert not pt.can_add
    assert isinstance(first, ScalarNode)
    first.set_text("1.5")
    assert form.value() == {"pt": [1.5, ""]}
    draft7 = {
        "$schema": "http://json-schema.org/draft-07/schema#",
        "type": "array",
        "items": [{"type": "integer"}],
        "additionalItems": {"type": "boolean"},
        "maxItems": 3,
    }
    tup = build_form({"type": "object", "properties": {"t": draft7}}).find(("t",))
    assert isinstance(tup, ArrayNode)
    assert [tup.add().kind for _ in range(3)] == [Kind.INTEGER, Kind.BOOLEAN, Kind.BOOLEAN]
    assert not tup.can_add


# --- objects and maps ----------------------------------------------------------------
def test_nested_objects_and_maps() -> None:
    schema = {
        "type": "object",
        "properties": {
            "address": {
                "type": "object",
                "properties": {
                    "city": {"type": "string"},
                    "geo": {"type": "object", "properties": {"lat": {"type": "number"}}},
                },
            },
            "env": {"type": "object", "additionalProperties": {"type": "integer"}},
            "free": {"type": "object"},
            "closed": {
                "type": "object",
                "properties": {"a": {"type": "string"}},
                "additionalProperties": False,
            },
        },
    }
    form = build_form(schema)
    assert form.value() == {}
    scalar(form, "address", "geo", "lat").set_text("48.85")
    assert form.value() == {"address": {"geo": {"lat": 48.85}}}
    env = form.find(("env",))
    assert isinstance(env, ObjectNode) and env.allows_extra
    row = env.add_row("PORT")
    assert isinstance(row.node, ScalarNode) and row.node.kind is Kind.INTEGER
    row.node.set_text("8080")
    env.add_row()  # a blank row is not sent
    assert form.value()["env"] == {"PORT": 8080}
    env.set_row_key(0, "HTTP_PORT")
    assert form.value()["env"] == {"HTTP_PORT": 8080}
    assert form.find(("env", "HTTP_PORT")) is row.node
    free = form.find(("free",))
    assert isinstance(free, ObjectNode) and free.allows_extra
    closed = form.find(("closed",))
    assert isinstance(closed, ObjectNode) and not closed.allows_extra


def test_optional_object_untouched_is_omitted_even_with_defaults_inside() -> None:
    schema = {
        "type": "object",
        "properties": {
            "addr": {
                "type": "object",
                "properties": {
                    "street": {"type": "string"},
                    "city": {"type": "string", "default": "Paris"},
                    "on": {"type": "boolean"},
                },
                "required": ["street", "on"],
            }
        },
    }
    form = build_form(schema)
    assert form.value() == {}
    scalar(form, "addr", "street").set_text("Elm")
    assert form.value() == {"addr": {"street": "Elm", "city": "Paris", "on": False}}


def test_unknown_keys_are_kept_not_lost() -> None:
    schema = {"type": "object", "properties": {"a": {"type": "string"}}}
    value = {"a": "x", "extra": {"deep": [1, 2]}, "n": 3}
    assert round_trip(schema, value) == value


def test_values_a_field_cannot_show_are_kept() -> None:
    schema = {
        "type": "object",
        "properties": {
            "i": {"type": "integer"},
            "b": {"type": "boolean"},
            "e": {"enum": ["a"]},
            "o": {"type": "object", "properties": {}},
        },
    }
    value = {"i": "not a number", "b": "yes", "e": "zzz", "o": [1]}
    form = build_form(schema, value)
    assert form.value() == value
    node = form.find(("b",))
    assert node.foreign == "yes"
    assert isinstance(node, BoolNode)
    node.set_state(False)  # an edit replaces the kept value
    assert form.value()["b"] is False


# --- refs and cycles -----------------------------------------------------------------
def test_local_refs_defs_definitions_and_siblings() -> None:
    schema = {
        "type": "object",
        "properties": {
            "a": {"$ref": "#/$defs/Pos", "description": "where"},
            "b": {"$ref": "#/definitions/Name"},
            "c": {"$ref": "#/$defs/Pos/properties/x"},
            "d": {"$ref": "#named"},
            "e": {
                "allOf": [
                    {"$ref": "#/$defs/Pos"},
                    {"properties": {"z": {"type": "number"}}, "required": ["z"]},
                ]
            },
        },
        "$defs": {
            "Pos": {
                "type": "object",
                "title": "Position",
                "properties": {"x": {"type": "integer"}},
                "required": ["x"],
            },
            "Anchored": {"$anchor": "named", "type": "boolean"},
        },
        "definitions": {"Name": {"type": "string", "minLength": 1}},
    }
    form = build_form(schema)
    a = form.find(("a",))
    assert isinstance(a, ObjectNode) and a.description == "where" and a.title == "Position"
    assert form.find(("b",)).kind is Kind.STRING and form.find(("b",)).hints["minLength"] == 1
    assert form.find(("c",)).kind is Kind.INTEGER
    assert form.find(("d",)).kind is Kind.BOOLEAN
    e = form.find(("e",))
    assert isinstance(e, ObjectNode) and set(e.fields) == {"x", "z"}
    assert e.fields["z"].required and e.fields["x"].required


def test_recursive_schema_is_expanded_only_on_demand() -> None:
    schema = {
        "$ref": "#/$defs/Node",
        "$defs": {
            "Node": {
                "type": "object",
                "properties": {
                    "value": {"type": "integer"},
                    "next": {"$ref": "#/$defs/Node"},
                    "children": {"type": "array", "items": {"$ref": "#/$defs/Node"}},
                },
                "required": ["value"],
            }
        },
    }
    form = build_form(schema)
    assert isinstance(form, ObjectNode)
    nxt = form.find(("next",))
    assert isinstance(nxt, ObjectNode) and nxt.lazy and not nxt.expanded and not nxt.fields
    assert form.value() == {}
    nxt.expand()
    assert isinstance(nxt.fields["next"], ObjectNode) and not nxt.fields["next"].expanded
    scalar(form, "next", "value").set_text("2")
    scalar(form, "value").set_text("1")
    children = form.find(("children",))
    assert isinstance(children, ArrayNode)
    child = children.add()
    assert isinstance(child, ObjectNode) and child.expanded  # an added item is built
    scalar(form, "children", 0, "value").set_text("3")
    assert form.value() == {"value": 1, "next": {"value": 2}, "children": [{"value": 3}]}
    deep: dict[str, Any] = {"value": 0}
    for i in range(1, 30):
        deep = {"value": i, "next": deep}
    assert round_trip(schema, deep) == deep
    assert validate(schema, deep) == []


def test_reference_loops_without_structure_do_not_hang() -> None:
    schema = {
        "type": "object",
        "properties": {"a": {"$ref": "#/$defs/A"}},
        "$defs": {"A": {"$ref": "#/$defs/B"}, "B": {"$ref": "#/$defs/A"}},
    }
    form = build_form(schema)
    assert form.find(("a",)).kind is Kind.ANY
    remote = build_form(
        {"type": "object", "properties": {"r": {"$ref": "https://example.com/schema.json"}}}
    )
    r = remote.find(("r",))
    assert r.kind is Kind.ANY and r.unresolved == "https://example.com/schema.json"


# --- defaults, set_value, round trips, schema untouched ----------------------------------
DEFAULTS = {
    "type": "object",
    "properties": {
        "name": {"type": "string", "default": "anon"},
        "n": {"type": "integer", "default": 2},
        "on": {"type": "boolean", "default": True},
        "mode": {"enum": ["a", "b"], "default": "b"},
        "tags": {"type": "array", "items": {"type": "string"}, "default": ["x"]},
        "opts": {"type": "object", "default": {"k": 1}},
        "maybe": {"type": ["string", "null"], "default": None},
        "plain": {"type": "string"},
    },
}


def test_defaults_are_prefilled_and_sent() -> None:
    form = build_form(DEFAULTS)
    assert form.value() == {
        "name": "anon",
        "n": 2,
        "on": True,
        "mode": "b",
        "tags": ["x"],
        "opts": {"k": 1},
        "maybe": None,
    }
    scalar(form, "name").set_text("")
    assert "name" not in form.value()  # cleared by the user: omitted
    node = form.find(("name",))
    node.reset()
    assert form.value()["name"] == "anon"


def test_set_value_replaces_input_and_loads_last_arguments() -> None:
    form = build_form(DEFAULTS)
    form.set_value({"plain": "p", "n": 9})
    assert form.value() == {"plain": "p", "n": 9}
    assert build_form(DEFAULTS, {"tags": []}).value() == {"tags": []}


ROUND_TRIPS: list[tuple[dict[str, Any], Any]] = [
    (
        SCALARS,
        {
            "s": "a@b.c",
            "i": 0,
            "n": -1.25,
            "b": False,
            "any": [None, {"x": "1"}],
            "d": "2024-01-01T00:00:00Z",
        },
    ),
    (SCALARS, {"s": "x", "i": 10, "n": 3.0, "any": "3"}),  # "3" must stay a string
    (SCALARS, {"s": "", "i": 1, "any": "plain text", "n": 1e300}),
    (UNION, {"shape": {"kind": "square", "side": 1}, "id": 5}),
    (UNION, {"shape": "str", "id": "five"}),
    (DEFAULTS, {"name": "z", "tags": ["a", "b"], "opts": {}, "maybe": "m", "on": False}),
    (DEFAULTS, {}),
    (
        {
            "type": "object",
            "properties": {
                "m": {
                    "type": "object",
                    "additionalProperties": {"type": "array", "items": {"type": "integer"}},
                }
            },
        },
        {"m": {"a": [1], "b": []}},
    ),
]


@pytest.mark.parametrize(("schema", "value"), ROUND_TRIPS)
def test_round_trip_is_stable(schema: dict[str, Any], value: Any) -> None:
    assert round_trip(schema, value) == value


def test_the_schema_is_never_rewritten() -> None:
    for schema, value in ROUND_TRIPS:
        before = copy.deepcopy(schema)
        form = build_form(schema, value)
        for node in form.walk():
            if isinstance(node, ArrayNode):
                node.add()
            if isinstance(node, ObjectNode) and node.allows_extra:
                node.add_row("k")
        form.value()
        validate(schema, form.value())
        assert schema == before


# --- CLI coercion --------------------------------------------------------------------
CLI = {
    "type": "object",
    "properties": {
        "i": {"type": "integer"},
        "n": {"type": "number"},
        "b": {"type": "boolean"},
        "z": {"type": "null"},
        "s": {"type": "string"},
        "a": {"type": "array"},
        "o": {"type": "object"},
        "u": {"type": ["integer", "string"]},
        "nb": {"anyOf": [{"type": "number"}, {"type": "null"}]},
        "e": {"enum": ["1", 2]},
        "ref": {"$ref": "#/$defs/Int"},
        "multi": {"type": "array", "items": {"enum": ["x", "y"]}},
    },
    "additionalProperties": {"type": "boolean"},
    "$defs": {"Int": {"type": "integer"}},
}


@pytest.mark.parametrize(
    ("key", "text", "expected"),
    [
        ("i", "42", 42),
        ("i", "-3", -3),
        ("i", "4x", "4x"),
        ("n", "2.5", 2.5),
        ("n", "7", 7),
        ("b", "true", True),
        ("b", "False", False),
        ("b", "yes", True),
        ("b", "maybe", "maybe"),
        ("z", "null", None),
        ("s", "42", "42"),
        ("s", "true", "true"),
        ("a", "[1, 2]", [1, 2]),
        ("o", '{"k": "v"}', {"k": "v"}),
        ("u", "7", 7),
        ("u", "seven", "seven"),
        ("nb", "null", None),
        ("nb", "1.5", 1.5),
        ("e", "1", "1"),
        ("e", "2", 2),
        ("ref", "12", 12),
        ("multi", "x,y", ["x", "y"]),
        ("multi", '["y"]', ["y"]),
        ("unknown", "true", True),
        ("s", "", ""),
    ],
)
def test_coerce_cli_arg(key: str, text: str, expected: Any) -> None:
    got = coerce_cli_arg(CLI, key, text)
    assert got == expected and type(got) is type(expected)


def test_coerce_cli_arg_untyped_property() -> None:
    schema = {"type": "object", "properties": {"x": {}}}
    assert coerce_cli_arg(schema, "x", "[1]") == [1]
    assert coerce_cli_arg(schema, "x", "hello") == "hello"
    assert coerce_cli_arg({}, "y", "3") == 3


# --- validation dialects -------------------------------------------------------------
def test_dialects_follow_dollar_schema() -> None:
    d4 = {
        "$schema": "http://json-schema.org/draft-04/schema#",
        "type": "object",
        "properties": {"x": {"type": "number", "minimum": 0, "exclusiveMinimum": True}},
    }
    assert [i.path for i in validate(d4, {"x": 0})] == [("x",)]
    d6 = {
        "$schema": "http://json-schema.org/draft-06/schema#",
        "type": "object",
        "properties": {"x": {"exclusiveMinimum": 0}},
    }
    assert validate(d6, {"x": 1}) == [] and validate(d6, {"x": 0})
    d7 = {
        "$schema": "http://json-schema.org/draft-07/schema#",
        "if": {"properties": {"a": {"const": 1}}},
        "then": {"required": ["b"]},
    }
    assert validate(d7, {"a": 1}) == [ValidationIssue(("b",), "required")]
    d2019 = {
        "$schema": "https://json-schema.org/draft/2019-09/schema",
        "dependentRequired": {"a": ["b"]},
    }
    assert validate(d2019, {"a": 1}) and validate(d2019, {"a": 1, "b": 2}) == []
    tuple_schema = {"type": "array", "prefixItems": [{"type": "integer"}], "items": False}
    assert validate(tuple_schema, [1]) == []
    assert validate(tuple_schema, ["x"])  # no $schema: 2020-12, prefixItems applies
    assert validate(tuple_schema, [1, 2])
    # draft-07 has no prefixItems: the same keywords mean nothing there
    draft7 = {
        "$schema": "http://json-schema.org/draft-07/schema#",
        "type": "array",
        "prefixItems": [{"type": "integer"}],
    }
    assert validate(draft7, ["x"]) == []


def test_network_refs_are_never_fetched(monkeypatch: pytest.MonkeyPatch) -> None:
    def no_network(*args: Any, **kwargs: Any) -> None:
        raise AssertionError("network used")

    monkeypatch.setattr(socket, "create_connection", no_network)
    monkeypatch.setattr(socket.socket, "connect", no_network)
    schema = {"type": "object", "properties": {"a": {"$ref": "https://example.com/s.json"}}}
    issues = validate(schema, {"a": 1})
    assert len(issues) == 1 and "never fetched" in issues[0].message


def test_invalid_schema_is_one_issue_not_a_crash() -> None:
    for bad in (
        {"type": "object", "properties": {"a": {"type": "nope"}}},
        {"type": "object", "required": "a"},
        {"type": "string", "pattern": "("},
    ):
        issues = validate(bad, {"a": 1})
        assert len(issues) == 1 and "invalid input schema" in issues[0].message, bad
        assert issues[0].path == ()
        build_form(bad)  # the form still builds


def test_nested_issue_paths_map_to_form_fields() -> None:
    schema = {
        "type": "object",
        "properties": {
            "rows": {
                "type": "array",
                "items": {
                    "type": "object",
                    "properties": {"n": {"type": "integer", "maximum": 3}},
                    "required": ["n"],
                },
            }
        },
    }
    form = build_form(schema, {"rows": [{"n": 1}, {"n": 9}, {}]})
    issues = validate(schema, form.value())
    assert [i.path for i in issues] == [("rows", 1, "n"), ("rows", 2, "n")]
    assert form.find(issues[0].path) is form.find(("rows", 1)).find(("n",))
    assert issues[0].message == "must be at most 3 (got 9)"


def test_union_issue_names_the_inner_field() -> None:
    issues = validate(UNION, {"shape": {"kind": "square", "side": "wide"}})
    assert issues and issues[0].path == ("shape", "side")


def test_a_value_no_variant_takes_names_the_closest_in_json() -> None:
    """No variant meant (each one's type or discriminator differs): the closest one and
    why it failed, the value as JSON (it was `{'name': 'Bob', ...} is not valid under
    any of the given schemas`)."""
    nullable = {
        "type": "object",
        "properties": {"m": {"anyOf": [{"type": "string", "format": "email"}, {"type": "null"}]}},
    }
    [issue] = validate(nullable, {"m": {"name": "Bob", "ok": True}})
    assert issue.path == ("m",)
    assert issue.message == (
        "matches none of its 2 options (anyOf); the closest, option 1 (a string, format "
        'email): must be a string (got {"name": "Bob", "ok": true})'
    )
    [issue] = validate(UNION, {"shape": {"kind": "hexagon"}})
    assert issue.message == (
        "matches none of its 4 options (oneOf); the closest, option 2 (Square): "
        'kind: must be "square" (got "hexagon")'
    )
    [issue] = validate({"oneOf": [{"type": "number"}, {"type": "integer", "title": "Whole"}]}, 3)
    assert issue.message == (
        "matches more than one of its 2 options (oneOf takes exactly one): "
        'option 1 (a number) and "Whole" (option 2)'
    )
    assert "'" not in validate({"type": "array", "uniqueItems": True}, ["a", "a"])[0].message


def test_format_is_checked_where_a_checker_exists() -> None:
    schema = {"type": "object", "properties": {"e": {"type": "string", "format": "email"}}}
    assert validate(schema, {"e": "nope"})[0].path == ("e",)
    assert validate(schema, {"e": "a@b.c"}) == []


# --- real peers: schemas generated by the official Python SDK (pydantic) ----------------
class Address(BaseModel):
    street: str
    city: str = "Paris"
    zip: str | None = None


class Cat(BaseModel):
    kind: Literal["cat"] = "cat"
    lives: int = 9


class Dog(BaseModel):
    kind: Literal["dog"] = "dog"
    good: bool = True


class Tree(BaseModel):
    value: int
    children: list[Tree] = []


def sdk_server() -> Any:
    from mcp.server.mcpserver import MCPServer

    server = MCPServer("forms-test")

    @server.tool()
    def create_user(
        name: str,
        age: int,
        address: Address,
        tags: list[str] = [],  # noqa: B006
        email: str | None = None,
        pet: Cat | Dog | None = None,
        role: Literal["admin", "user"] = "user",
        meta: dict[str, int] = {},  # noqa: B006
        tree: Tree | None = None,
        score: Annotated[float, Field(ge=0, le=1, description="0..1")] = 0.5,
    ) -> str:
        """Create a user."""
        return json.dumps(
            {
                "name": name,
                "age": age,
                "address": address.model_dump(),
                "tags": tags,
                "email": email,
                "pet": pet.model_dump() if pet else None,
                "role": role,
                "meta": meta,
                "tree": tree.model_dump() if tree else None,
                "score": score,
            }
        )

    @server.tool()
    def plain(a: int, b: float = 1.5, flag: bool = False, note: str | None = None) -> str:
        """Simple scalars."""
        return json.dumps([a, b, flag, note])

    return server


async def sdk_tools() -> tuple[Any, dict[str, dict[str, Any]]]:
    server = sdk_server()
    tools = await server.list_tools()
    return server, {t.name: t.input_schema for t in tools}


async def call(server: Any, name: str, arguments: dict[str, Any]) -> Any:
    result = await server.call_tool(name, arguments)
    assert not result.is_error, result
    return json.loads(result.content[0].text)


async def test_sdk_schemas_fill_validate_and_call_the_real_tool() -> None:
    with anyio.fail_after(30):
        server, schemas = await sdk_tools()
        schema = schemas["create_user"]
        before = copy.deepcopy(schema)
        form = build_form(schema)
        # pydantic's shapes: $defs, anyOf-null, titles, defaults
        assert form.find(("address",)).title == "Address"
        assert form.find(("email",)).nullable and form.find(("email",)).is_null
        pet = form.find(("pet",))
        assert isinstance(pet, UnionNode) and [v.title for v in pet.variants] == ["Cat", "Dog"]
        tree = form.find(("tree",))
        assert isinstance(tree, ObjectNode) and tree.is_null
        assert isinstance(form.find(("role",)), EnumNode)
        assert form.find(("score",)).hints == {"minimum": 0, "maximum": 1}
        issues = validate(schema, form.value())
        assert issues == [ValidationIssue(("age",), "required")]  # empty strings are sent
        scalar(form, "name").set_text("Ada")
        scalar(form, "age").set_text("36")
        scalar(form, "address", "street").set_text("1 rue X")
        pet.set_null(False)
        pet.select(1)
        tree.set_null(False)
        scalar(form, "tree", "value").set_text("1")
        children = form.find(("tree", "children"))
        assert isinstance(children, ArrayNode)
        children.add()
        scalar(form, "tree", "children", 0, "value").set_text("2")
        meta = form.find(("meta",))
        assert isinstance(meta, ObjectNode)
        meta.add_row("k", 3)
        arguments = form.value()
        assert validate(schema, arguments) == []
        assert arguments["pet"] == {"kind": "dog", "good": True}
        assert round_trip(schema, arguments) == arguments
        echoed = await call(server, "create_user", arguments)
        assert echoed["age"] == 36 and echoed["pet"] == {"kind": "dog", "good": True}
        assert echoed["tree"] == {"value": 1, "children": [{"value": 2, "children": []}]}
        assert echoed["meta"] == {"k": 3} and echoed["address"]["city"] == "Paris"
        assert schema == before

        plain_schema = schemas["plain"]
        arguments = {
            "a": coerce_cli_arg(plain_schema, "a", "4"),
            "flag": coerce_cli_arg(plain_schema, "flag", "true"),
            "note": coerce_cli_arg(plain_schema, "note", "null"),
        }
        assert arguments == {"a": 4, "flag": True, "note": None}
        assert await call(server, "plain", arguments) == [4, 1.5, True, None]


# --- real peer: @modelcontextprotocol/server-everything (zod schemas, over stdio) --------


async def test_server_everything_schemas_over_stdio() -> None:
    from inspector.engine.client import McpClient
    from inspector.engine.session import Session
    from inspector.transports.stdio import StdioTransport
    from tests.everything import everything_command

    command, args = everything_command()
    with anyio.fail_after(60):
        async with Session(StdioTransport(command, args)) as session:
            await session.initialize()
            client = McpClient(session)
            tools = {t["name"]: t for t in await client.list_tools()}
            assert "echo" in tools and "get-sum" in tools
            for tool in tools.values():
                schema = tool["inputSchema"]
                before = copy.deepcopy(schema)
                form = build_form(schema)
                assert form.kind is Kind.OBJECT
                value = form.value()
                assert round_trip(schema, value) == value
                validate(schema, value)
                assert schema == before
            sum_form = build_form(tools["get-sum"]["inputSchema"])
            scalar(sum_form, "a").set_text("2")
            scalar(sum_form, "b").set_text("3.5")
            assert validate(tools["get-sum"]["inputSchema"], sum_form.value()) == []
            result = await client.call_tool("get-sum", sum_form.value())
            assert "5.5" in result["content"][0]["text"]
            echo_schema = tools["echo"]["inputSchema"]
            echo = build_form(echo_schema)
            assert echo.find(("message",)).required
            scalar(echo, "message").set_text("hi [b]x[/b]")
            result = await client.call_tool("echo", echo.value())
            assert "hi [b]x[/b]" in result["content"][0]["text"]
            missing = validate(echo_schema, {})
            assert missing == [ValidationIssue(("message",), "required")]


def test_missing_is_falsy_and_unique() -> None:
    assert not MISSING and repr(MISSING) == "MISSING"
