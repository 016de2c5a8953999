"""JSON Schema -> form field tree; coercion of typed text; validation (headless).

    form = build_form(tool["inputSchema"])
    form.find(("address", "city")).set_text("Paris")
    arguments = form.value()
    issues = validate(tool["inputSchema"], arguments)
    arguments, issues = check_form(form, tool["inputSchema"])  # plus blank required text

The schema given is kept as is (never rewritten): nodes point into it.
"""

from __future__ import annotations

from typing import Any

from inspector.forms.check import UNFILLED, check_form, form_validator, in_form_order
from inspector.forms.coerce import coerce_cli_arg, coerce_text, coerce_value
from inspector.forms.containers import ArrayNode, MapRow, ObjectNode, UnionNode, build_node
from inspector.forms.nodes import (
    MISSING,
    BoolNode,
    ConstNode,
    EnumNode,
    FieldNode,
    FormContext,
    MultiEnumNode,
    NullNode,
    ScalarNode,
)
from inspector.forms.resolve import Kind, as_schema
from inspector.forms.validate import ValidationIssue, validate

__all__ = [
    "MISSING",
    "UNFILLED",
    "ArrayNode",
    "BoolNode",
    "ConstNode",
    "EnumNode",
    "FieldNode",
    "Kind",
    "MapRow",
    "MultiEnumNode",
    "NullNode",
    "ObjectNode",
    "ScalarNode",
    "UnionNode",
    "ValidationIssue",
    "build_form",
    "check_form",
    "coerce_cli_arg",
    "coerce_text",
    "coerce_value",
    "form_validator",
    "in_form_order",
    "validate",
]


def build_form(schema: Any, initial: Any = MISSING) -> FieldNode:
    """The field tree for a tool's `inputSchema` (usually an ObjectNode).

    Defaults are pre-filled; `initial` (e.g. the last arguments) is loaded over them.
    """
    root = as_schema(schema)
    node = build_node(FormContext(root), root, None, None, True, ())
    if initial is not MISSING:
        node.set_value(initial)
    return node
