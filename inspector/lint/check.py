"""The rules of :mod:`inspector.lint.rules` run over a survey: one :class:`Issue` a hit."""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass
from typing import Any

from inspector.engine.kinds import CATALOG_KINDS, KIND
from inspector.forms.resolve import resolve_pointer
from inspector.lint.rules import (
    BY_ID,
    DESCRIPTION_MAX,
    DROPPED_KEYWORDS,
    ERROR,
    INFO,
    LEVELS,
    NAME_CLIENT_MAX,
    NAME_MAX,
    WARNING,
)
from inspector.survey.survey import Survey

_NAME = re.compile(r"[A-Za-z0-9_.\-]*")
NAMED = ("tools", "prompts")  # the kinds whose names a model or a user types
SEVERITIES = {"error": ERROR, "warning": WARNING, "info": INFO}


@dataclass(frozen=True)
class Issue:
    """One rule hit: ``item`` is ``tools/search``, ``prompts/greet``, ``resources/URI``, or
    the frame a protocol finding was made on."""

    rule: str
    level: str
    message: str
    item: str

    def to_json(self) -> dict[str, str]:
        return {"rule": self.rule, "level": self.level, "item": self.item, "message": self.message}


def lint(survey: Survey) -> list[Issue]:
    """Every issue of ``survey``, catalog order then protocol findings."""
    issues: list[Issue] = []
    catalog = survey.catalog
    for kind in CATALOG_KINDS:
        items = catalog.lists.get(kind.name, [])
        if kind.name in catalog.errors:
            issues.append(
                _issue(
                    "list-failed", f"{kind.method} failed: {catalog.errors[kind.name]}", kind.method
                )
            )
        issues.extend(_duplicates(kind.name, items))
        for found in item_issues(kind.name, items):
            issues.extend(found)
    issues.extend(_structured(survey))
    for located in survey.findings:
        level = SEVERITIES.get(located.finding.severity, WARNING)
        issues.append(
            Issue(
                "protocol",
                level,
                f"[{located.finding.code}] {located.finding.message}",
                located.where,
            )
        )
    return issues


def item_issues(kind: str, items: list[dict[str, Any]]) -> list[list[Issue]]:
    """Each item's own issues (its name, description, schemas), in list order: what
    the TUI's catalog badges show. Duplicates are a list's issue (:func:`lint`)."""
    identity = KIND[kind].identity
    found: list[list[Issue]] = []
    for item in items:
        where = f"{kind}/{item.get(identity)}"
        issues = _names(item, where) if kind in NAMED else []
        if kind == "tools":
            issues.extend(_tool(item, where))
        found.append(issues)
    return found


def _issue(rule: str, message: str, item: str) -> Issue:
    return Issue(rule, BY_ID[rule].level, message, item)


def _duplicates(kind: str, items: list[dict[str, Any]]) -> list[Issue]:
    key = KIND[kind].identity
    seen = Counter(str(item.get(key)) for item in items)
    return [
        _issue("duplicate-name", f"{count} {kind} share the {key} {name!r}", f"{kind}/{name}")
        for name, count in seen.items()
        if count > 1
    ]


def _names(item: dict[str, Any], where: str) -> list[Issue]:
    found: list[Issue] = []
    name = item.get("name")
    text = name if isinstance(name, str) else ""
    if not text or len(text) > NAME_MAX:
        found.append(
            _issue("name-length", f"name is {len(text)} characters (1 to {NAME_MAX})", where)
        )
    elif len(text) > NAME_CLIENT_MAX:
        found.append(_issue("name-long", f"name is {len(text)} characters", where))
    bad = sorted(set(_NAME.sub("", text)))
    if bad:
        shown = " ".join(repr(c) for c in bad[:8])
        found.append(_issue("name-characters", f"name {text!r:.80} has {shown}", where))
    description = item.get("description")
    if not isinstance(description, str) or not description.strip():
        found.append(_issue("description-missing", "no description", where))
    elif len(description) > DESCRIPTION_MAX:
        found.append(
            _issue("description-huge", f"description is {len(description):,} characters", where)
        )
    return found


def _tool(tool: dict[str, Any], where: str) -> list[Issue]:
    found: list[Issue] = []
    schema = tool.get("inputSchema")
    if not isinstance(schema, dict) or schema.get("type") != "object":
        shown = schema.get("type") if isinstance(schema, dict) else type(schema).__name__
        found.append(_issue("input-schema-not-object", f"inputSchema type is {shown!r}", where))
    if isinstance(schema, dict):
        found.extend(_schema(schema, where, "inputSchema", input_side=True))
    output = tool.get("outputSchema")
    if output is not None:
        if not isinstance(output, dict) or output.get("type") != "object":
            shown = output.get("type") if isinstance(output, dict) else type(output).__name__
            found.append(
                _issue("output-schema-not-object", f"outputSchema type is {shown!r}", where)
            )
        if isinstance(output, dict):
            found.extend(_schema(output, where, "outputSchema", input_side=False))
    return found


def _schema(root: dict[str, Any], where: str, name: str, input_side: bool) -> list[Issue]:
    """$ref, required and (input side) dropped keywords, anywhere in ``root``."""
    found: list[Issue] = []
    refs: list[str] = []
    dropped: list[str] = []
    for path, node in _nodes(root, name):
        ref = node.get("$ref")
        if isinstance(ref, str):
            refs.append(ref)
            if resolve_pointer(root, ref) is None:
                found.append(
                    _issue("ref-unresolved", f"{path}: $ref {ref!r:.80} does not resolve", where)
                )
        properties = node.get("properties")
        required = node.get("required")
        if isinstance(required, list) and (
            isinstance(properties, dict) or node.get("type") == "object"
        ):
            defined = properties if isinstance(properties, dict) else {}
            for key in required:
                if key not in defined and node.get("additionalProperties") is not True:
                    found.append(
                        _issue(
                            "required-unknown",
                            f"{path}: required {key!r:.60} is not a property",
                            where,
                        )
                    )
        if input_side:
            dropped.extend(f"{path}.{k}" for k in DROPPED_KEYWORDS if k in node)
            if path == name and "anyOf" in node:
                dropped.append(f"{path}.anyOf")
    if dropped:
        found.append(
            _issue(
                "keyword-dropped",
                ", ".join(dropped[:6]) + (" ..." if len(dropped) > 6 else ""),
                where,
            )
        )
    if refs and input_side and not any(i.rule == "ref-unresolved" for i in found):
        found.append(_issue("ref-used", f"{name} uses $ref {len(refs)} time(s)", where))
    return found


def _nodes(node: Any, path: str) -> list[tuple[str, dict[str, Any]]]:
    """Every sub-schema (dict) with a path; ``enum``, ``const``, ``default`` and
    ``examples`` are values, not schemas."""
    out: list[tuple[str, dict[str, Any]]] = []
    stack: list[tuple[str, Any]] = [(path, node)]
    while stack:
        where, current = stack.pop()
        if isinstance(current, dict):
            out.append((where, current))
            for key, value in current.items():
                if key in ("enum", "const", "default", "examples"):
                    continue
                if key in (
                    "properties",
                    "$defs",
                    "definitions",
                    "patternProperties",
                ) and isinstance(value, dict):
                    stack.extend((f"{where}.{key}.{k}", v) for k, v in value.items())
                elif isinstance(value, dict):
                    stack.append((f"{where}.{key}", value))
                elif isinstance(value, list):
                    stack.extend((f"{where}.{key}[{i}]", v) for i, v in enumerate(value))
    return sorted(out, key=lambda pair: pair[0])


def _structured(survey: Survey) -> list[Issue]:
    """Recorded results of tools that declare an outputSchema, without structuredContent."""
    schemas = {
        str(t.get("name")): t.get("outputSchema") for t in survey.catalog.lists.get("tools", [])
    }
    found: list[Issue] = []
    for seen in survey.results:
        if schemas.get(seen.tool) is None or seen.result.get("isError"):
            continue
        if not isinstance(seen.result.get("structuredContent"), dict):
            found.append(
                _issue(
                    "output-without-structured",
                    f"result at {seen.where} has no structuredContent",
                    f"tools/{seen.tool}",
                )
            )
    return found


def worst(issues: list[Issue]) -> str | None:
    """The highest level among ``issues``."""
    levels = [LEVELS.index(i.level) for i in issues]
    return LEVELS[max(levels)] if levels else None
