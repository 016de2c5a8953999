"""Two servers' catalogs compared: items paired by name (URI for resources), then field
by field; the server's info, protocol version and capabilities too.

A difference's path starts with the list's key and the item's name
(``("tools", "search", "inputSchema", ...)``), so ``--ignore $.tools[*].description``
reads as it does in ``replay``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from inspector.compare.changes import Difference
from inspector.compare.paths import PathTuple
from inspector.compare.schema import compare_schema
from inspector.engine.kinds import CATALOG_KINDS, KIND

Items = list[dict[str, Any]]
Ignored = Callable[[PathTuple], bool]

TEXT_FIELDS = frozenset({"description", "title", "icons"})
COSMETIC_FIELDS = frozenset({"size"})  # a resource's size moves with its content


@dataclass
class Catalog:
    """What a server offers: its initialize facts and its lists (all pages joined).

    A kind missing from ``lists`` was not listed (the server does not offer it);
    ``errors`` holds the message of a list the server refused."""

    server_info: dict[str, Any] = field(default_factory=dict)
    protocol_version: str | None = None
    capabilities: dict[str, Any] = field(default_factory=dict)
    instructions: str | None = None
    lists: dict[str, Items] = field(default_factory=dict)
    errors: dict[str, str] = field(default_factory=dict)
    unlisted: set[str] = field(default_factory=set)  # declared, never listed (a recording)

    @classmethod
    def from_initialize(cls, result: dict[str, Any] | None) -> Catalog:
        result = result or {}
        info, caps = result.get("serverInfo"), result.get("capabilities")
        version, instructions = result.get("protocolVersion"), result.get("instructions")
        return cls(
            server_info=info if isinstance(info, dict) else {},
            protocol_version=version if isinstance(version, str) else None,
            capabilities=caps if isinstance(caps, dict) else {},
            instructions=instructions if isinstance(instructions, str) else None,
        )


def compare_catalogs(
    old: Catalog, new: Catalog, ignored: Ignored | None = None
) -> list[Difference]:
    """Every classified difference from ``old`` to ``new`` (none at an ignored path)."""
    found: list[Difference] = []
    for key in dict.fromkeys([*old.server_info, *new.server_info]):
        before, after = old.server_info.get(key), new.server_info.get(key)
        if before != after:
            found.append(
                Difference(
                    "server-info-changed", _how(before, after), ("serverInfo", key), before, after
                )
            )
    if old.protocol_version != new.protocol_version:
        found.append(
            Difference(
                "protocol-changed",
                "changed",
                ("protocolVersion",),
                old.protocol_version,
                new.protocol_version,
            )
        )
    if old.instructions != new.instructions:
        found.append(
            Difference(
                "text-changed",
                _how(old.instructions, new.instructions),
                ("instructions",),
                old.instructions,
                new.instructions,
            )
        )
    found.extend(compare_capabilities(old.capabilities, new.capabilities, ("capabilities",)))
    for kind in CATALOG_KINDS:
        key = kind.key
        if kind.name in old.unlisted or kind.name in new.unlisted:
            continue  # unknown on one side: nothing to say (see :func:`not_compared`)
        if kind.name in new.errors and kind.name not in old.errors and kind.name in old.lists:
            found.append(Difference("list-failed", "changed", (key,), None, new.errors[kind.name]))
            continue
        found.extend(
            compare_lists(
                kind.name, old.lists.get(kind.name, []), new.lists.get(kind.name, []), (key,)
            )
        )
    return [d for d in found if ignored is None or not ignored(d.path)]


def not_compared(old: Catalog, new: Catalog) -> list[str]:
    """The kinds a side declares but never listed (a recording that did not list them):
    left out of the comparison rather than reported as added or removed."""
    return [
        kind.key for kind in CATALOG_KINDS if kind.name in old.unlisted or kind.name in new.unlisted
    ]


def _how(before: Any, after: Any) -> str:
    return "added" if before is None else "removed" if after is None else "changed"


def compare_capabilities(old: Any, new: Any, path: PathTuple) -> list[Difference]:
    """A capability (or a flag of one, ``listChanged``) dropped breaks; one added does not."""
    if isinstance(old, dict) and isinstance(new, dict):
        found: list[Difference] = []
        for key in dict.fromkeys([*old, *new]):
            where = (*path, key)
            if key not in new:
                found.append(Difference("capability-dropped", "removed", where, old[key], None))
            elif key not in old:
                found.append(Difference("capability-added", "added", where, None, new[key]))
            else:
                found.extend(compare_capabilities(old[key], new[key], where))
        return found
    if old == new:
        return []
    if old and not new:  # listChanged: true -> false
        return [Difference("capability-dropped", "changed", path, old, new)]
    rule = "capability-added" if new and not old else "field-changed"
    return [Difference(rule, "changed", path, old, new)]


def identity(kind: str, item: dict[str, Any]) -> str:
    """What names an item of ``kind``: a tool's name, a resource's URI..."""
    return str(item.get(KIND[kind].identity))


def compare_lists(kind: str, old: Items, new: Items, path: PathTuple) -> list[Difference]:
    """Items paired by identity whatever their order or pages: removed, added, changed."""
    before = {identity(kind, item): item for item in old}
    after = {identity(kind, item): item for item in new}
    found: list[Difference] = []
    for name, item in before.items():
        if name not in after:
            found.append(Difference("item-removed", "removed", (*path, name), item, None))
        else:
            found.extend(compare_item(kind, item, after[name], (*path, name)))
    for name, item in after.items():
        if name not in before:
            found.append(Difference("item-added", "added", (*path, name), None, item))
    common = [n for n in before if n in after]
    if common != [n for n in after if n in before]:
        found.append(Difference("order-changed", "changed", path, list(before), list(after)))
    return found


def compare_item(
    kind: str, old: dict[str, Any], new: dict[str, Any], path: PathTuple
) -> list[Difference]:
    """One item's fields: schemas and prompt arguments classified, text cosmetic."""
    found: list[Difference] = []
    for key in dict.fromkeys([*old, *new]):
        before, after = old.get(key), new.get(key)
        if before == after:
            continue
        where = (*path, key)
        if key == "inputSchema":
            found.extend(compare_schema(before, after, where, output=False))
        elif key == "outputSchema":
            if before is None or after is None:
                rule = "output-removed" if after is None else "output-added"
                found.append(Difference(rule, _how(before, after), where, before, after))
            else:
                found.extend(compare_schema(before, after, where, output=True))
        elif key == "arguments" and kind == "prompts":
            found.extend(compare_arguments(before, after, where))
        elif key == "annotations" and isinstance(before, dict) and isinstance(after, dict):
            for name in dict.fromkeys([*before, *after]):
                if before.get(name) != after.get(name):
                    rule = "text-changed" if name == "title" else "field-changed"
                    found.append(
                        Difference(
                            rule,
                            _how(before.get(name), after.get(name)),
                            (*where, name),
                            before.get(name),
                            after.get(name),
                        )
                    )
        else:
            rule = "text-changed" if key in TEXT_FIELDS else "field-changed"
            if key in COSMETIC_FIELDS:
                rule = "text-changed"
            found.append(Difference(rule, _how(before, after), where, before, after))
    return found


def compare_arguments(old: Any, new: Any, path: PathTuple) -> list[Difference]:
    """A prompt's arguments by name: removed or newly required breaks."""
    before = {str(a.get("name")): a for a in old or [] if isinstance(a, dict)}
    after = {str(a.get("name")): a for a in new or [] if isinstance(a, dict)}
    found: list[Difference] = []
    for name, argument in before.items():
        where = (*path, name)
        if name not in after:
            found.append(Difference("property-removed", "removed", where, argument, None))
            continue
        was, now = bool(argument.get("required")), bool(after[name].get("required"))
        if was != now:
            rule = "required-added" if now else "required-dropped"
            found.append(Difference(rule, "changed", (*where, "required"), was, now))
        for key in dict.fromkeys([*argument, *after[name]]):
            if key != "required" and argument.get(key) != after[name].get(key):
                rule = "text-changed" if key in TEXT_FIELDS else "field-changed"
                found.append(
                    Difference(
                        rule,
                        _how(argument.get(key), after[name].get(key)),
                        (*where, key),
                        argument.get(key),
                        after[name].get(key),
                    )
                )
    for name, argument in after.items():
        if name not in before:
            rule = "required-added" if argument.get("required") else "optional-added"
            found.append(Difference(rule, "added", (*path, name), None, argument))
    common = [n for n in before if n in after]
    if common != [n for n in after if n in before]:
        found.append(Difference("order-changed", "changed", path, list(before), list(after)))
    return found
