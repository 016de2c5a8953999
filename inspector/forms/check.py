"""What a form says before it sends: the schema's issues, and required text fields left
blank.

    value, issues = check_form(form, tool["inputSchema"])

A required string the user never typed in is sent as ``""``, which the schema may well
accept: the form says so on the field instead ("required: nothing typed yet"), as it
does for any other issue. Emptied on purpose (typed, then deleted) or loaded as ``""``,
it is what the user meant and passes.
"""

from __future__ import annotations

from typing import Any

from inspector.forms.containers import ObjectNode, UnionNode
from inspector.forms.nodes import MISSING, FieldNode, Path, ScalarNode
from inspector.forms.resolve import Kind
from inspector.forms.validate import ValidationIssue, validate

UNFILLED = "required: nothing typed yet"


def check_form(root: FieldNode, schema: Any) -> tuple[Any, list[ValidationIssue]]:
    """(the arguments the form holds, every issue with them, in the form's order)."""
    value = root.value()
    issues = validate(schema, value, form_validator(root, schema))
    blank = [node.path for node in root.walk() if _blank_required(node, value)]
    if blank:
        # on a blank field, "required" says it all: not also "must not be empty"
        issues = [i for i in issues if i.path not in blank]
        issues += [ValidationIssue(path, UNFILLED) for path in blank]
    return value, in_form_order(root, issues)


def in_form_order(root: FieldNode, issues: list[ValidationIssue]) -> list[ValidationIssue]:
    """The issues in the order the form shows their fields (the schema's), not
    alphabetical; those of no field last."""
    shown = {id(node): index for index, node in enumerate(root.walk())}
    return sorted(issues, key=lambda i: shown.get(id(root.find(i.path)), len(shown)))


def form_validator(root: FieldNode, schema: Any) -> Any:
    """The validator the form built once with its tree, when `schema` is its root (None
    otherwise: `validate` then builds one, or says why the schema is broken)."""
    return root.ctx.validator if root.ctx.root is schema else None


def _blank_required(node: FieldNode, value: Any) -> bool:
    """A required string property never given a value, about to be sent as ""."""
    return (
        isinstance(node, ScalarNode)
        and node.kind is Kind.STRING
        and not node.given
        and node.text == ""
        and _required_property(node)
        and _at(value, node.path) == ""
    )


def _required_property(node: FieldNode) -> bool:
    """Is `node` (or the union it is a variant of) a required property of its object?
    Array items and map values are required only by construction."""
    while isinstance(node.parent, UnionNode):
        node = node.parent
    parent = node.parent
    return (
        node.required
        and isinstance(parent, ObjectNode)
        and isinstance(node.key, str)
        and parent.fields.get(node.key) is node
    )


def _at(value: Any, path: Path) -> Any:
    for segment in path:
        in_object = isinstance(value, dict) and isinstance(segment, str) and segment in value
        in_array = isinstance(value, list) and isinstance(segment, int) and segment < len(value)
        if not (in_object or in_array):
            return MISSING
        value = value[segment]
    return value
