"""What one difference is, and the rules that classify it.

A rule names one kind of change and its level: **breaking** (a client that worked may
fail), **compatible** (a client that worked still works), **cosmetic** (only what a
person reads differs). :data:`RULES` is the documented table (the README's is printed
from it).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from inspector.compare.paths import PathTuple, format_path

BREAKING, COMPATIBLE, COSMETIC = "breaking", "compatible", "cosmetic"
LEVELS = (COSMETIC, COMPATIBLE, BREAKING)  # lowest first
RANK = {level: n for n, level in enumerate(LEVELS)}


@dataclass(frozen=True)
class Rule:
    id: str
    level: str
    summary: str


RULES: dict[str, Rule] = {
    rule.id: rule
    for rule in (
        Rule("item-removed", BREAKING, "a tool, prompt, resource or template removed"),
        Rule("list-failed", BREAKING, "a list the old server answered now fails"),
        Rule("required-added", BREAKING, "a required argument added (or made required)"),
        Rule("property-removed", BREAKING, "an argument (input property) removed"),
        Rule("type-narrowed", BREAKING, "an argument's type narrowed or changed"),
        Rule("enum-removed", BREAKING, "an enum value removed (or a const changed)"),
        Rule("output-removed", BREAKING, "an outputSchema field (or the outputSchema) removed"),
        Rule("output-retyped", BREAKING, "an outputSchema field's type changed"),
        Rule("output-optional", BREAKING, "an outputSchema field no longer required"),
        Rule("capability-dropped", BREAKING, "a server capability (or a flag of one) dropped"),
        Rule("item-added", COMPATIBLE, "a tool, prompt, resource or template added"),
        Rule("optional-added", COMPATIBLE, "an optional argument added"),
        Rule("required-dropped", COMPATIBLE, "an argument no longer required"),
        Rule("type-widened", COMPATIBLE, "an argument's type widened"),
        Rule("enum-added", COMPATIBLE, "an enum value added"),
        Rule("output-added", COMPATIBLE, "an outputSchema field (or an outputSchema) added"),
        Rule("capability-added", COMPATIBLE, "a server capability (or a flag of one) added"),
        Rule("schema-changed", COMPATIBLE, "another schema keyword changed (bounds, format...)"),
        Rule("field-changed", COMPATIBLE, "another field changed (mimeType, annotations...)"),
        Rule("protocol-changed", COMPATIBLE, "the protocol version (era) changed"),
        Rule("text-changed", COSMETIC, "a description, title or icon changed"),
        Rule("order-changed", COSMETIC, "the same items (or values) in another order"),
        Rule("server-info-changed", COSMETIC, "the server's name, version or title changed"),
    )
}


@dataclass(frozen=True)
class Difference:
    """One classified change. ``path`` locates it in the catalog document
    (``("tools", "search", "inputSchema", "properties", "q")``); ``change`` is added,
    removed or changed."""

    rule: str
    change: str
    path: PathTuple
    old: Any = None
    new: Any = None

    @property
    def level(self) -> str:
        return RULES[self.rule].level

    @property
    def rank(self) -> int:
        return RANK[self.level]

    def to_json(self, prefix: PathTuple = ()) -> dict[str, Any]:
        data: dict[str, Any] = {
            "path": format_path((*prefix, *self.path)),
            "kind": self.change,
            "level": self.level,
            "rule": self.rule,
        }
        if self.change != "added":
            data["old"] = self.old
        if self.change != "removed":
            data["new"] = self.new
        return data


def worst(differences: list[Difference]) -> str | None:
    """The highest level among ``differences`` (None: there are none)."""
    if not differences:
        return None
    return max(differences, key=lambda d: d.rank).level


def counts(differences: list[Difference]) -> dict[str, int]:
    """How many differences of each level, breaking first."""
    found = dict.fromkeys(reversed(LEVELS), 0)
    for difference in differences:
        found[difference.level] += 1
    return found
