"""A tool call's arguments checked against the tool's ``inputSchema`` before they are sent.

The values are checked by :func:`inspector.forms.validate.validate` (jsonschema's own
words). Names are checked too: JSON Schema lets an object carry properties it does not
declare unless it says ``additionalProperties: false``, but a tool's schema that lists
its properties almost never means "and anything else" - a misspelt argument is simply
ignored by most servers. So a name the schema neither declares nor allows
(``additionalProperties``/``patternProperties``) is reported as unknown.
"""

from __future__ import annotations

import re
from typing import Any

from inspector.forms.resolve import Kind, Schema, as_schema, shape_of
from inspector.forms.validate import ValidationIssue, validate


def _known_names(root: Schema, schema: Any) -> tuple[set[str], bool, list[str]]:
    """(declared names, anything goes?, name patterns) of an object schema or a union."""
    shape = shape_of(root, schema)
    if shape.kind is Kind.UNION:
        names: set[str] = set()
        patterns: list[str] = []
        for variant in shape.variants:
            more, open_, pats = _known_names(root, variant.schema)
            if open_:
                return set(), True, []
            names |= more
            patterns += pats
        return names, False, patterns
    eff = shape.schema
    if shape.kind is not Kind.OBJECT or "properties" not in eff:
        return set(), True, []  # the schema names nothing: nothing to call unknown
    if "additionalProperties" in eff or "unevaluatedProperties" in eff:
        return set(), True, []  # the schema says itself what else it takes: validate() tells
    props = eff.get("properties")
    patterns = list(eff.get("patternProperties") or {})
    return set(props) if isinstance(props, dict) else set(), False, patterns


def unknown_arguments(schema: Any, arguments: dict[str, Any]) -> list[ValidationIssue]:
    """The argument names the schema does not know, each as an issue naming the known ones."""
    root = as_schema(schema)
    names, open_, patterns = _known_names(root, root)
    if open_:
        return []
    issues = []
    for key in arguments:
        if key in names or any(_matches(p, key) for p in patterns):
            continue
        takes = ", ".join(sorted(names)) if names else "no arguments"
        issues.append(ValidationIssue((key,), f"unknown argument (the tool takes: {takes})"))
    return issues


def _matches(pattern: str, key: str) -> bool:
    try:
        return re.search(pattern, key) is not None
    except re.error:
        return True  # a broken pattern: do not blame the argument for it


def check_arguments(schema: Any, arguments: dict[str, Any]) -> list[ValidationIssue]:
    """Every problem of ``arguments`` against the tool's ``inputSchema``: values and names."""
    found = validate(as_schema(schema), arguments) + unknown_arguments(schema, arguments)
    return sorted(found, key=lambda i: [str(p) for p in i.path])
