"""Two workspace servers' catalogs compared, as ``mcp-inspect diff`` compares them: each
catalog rebuilt from the server's own frames (``survey.from_source``: the wire is the
truth, every page joined), then ``compare.compare_catalogs``' classified differences.

    comparison = compare_servers("staging", staging_events, "production", prod_events)
    comparison.mark("tools", "search")   # ("changed", "breaking") / ("added", ...) / None
    comparison.items(comparison.old)     # [(kind, [identities])]: one side's lists
"""

from __future__ import annotations

from dataclasses import dataclass, field

from inspector.compare.catalog import Catalog, compare_catalogs, identity
from inspector.compare.changes import RANK, Difference, counts, worst
from inspector.engine.kinds import CATALOG_KINDS
from inspector.logstore.store import EventSource
from inspector.survey.survey import from_source

BY_KEY = {kind.key: kind for kind in CATALOG_KINDS}  # a difference's path starts with it


@dataclass
class Side:
    name: str
    catalog: Catalog


@dataclass
class Comparison:
    """OLD (left) against NEW (right): every difference, and each item's mark."""

    old: Side
    new: Side
    differences: list[Difference]
    _marks: dict[tuple[str, str], tuple[str, str]] = field(default_factory=dict)

    def __post_init__(self) -> None:
        for difference in self.differences:
            path = difference.path
            if len(path) < 2 or path[0] not in BY_KEY:
                continue
            key = (BY_KEY[str(path[0])].name, str(path[1]))
            change = difference.change if len(path) == 2 else "changed"
            known = self._marks.get(key)
            if known is None or difference.rank > RANK[known[1]]:
                self._marks[key] = (change, difference.level)

    def mark(self, kind: str, identity: str) -> tuple[str, str] | None:
        """How item ``identity`` of ``kind`` differs: (added/removed/changed, its worst
        level), or None when it is the same on both sides."""
        return self._marks.get((kind, identity))

    def items(self, side: Side) -> list[tuple[str, list[str]]]:
        """One side's lists: each kind's item identities, in the server's order."""
        out = []
        for kind in CATALOG_KINDS:
            listed = side.catalog.lists.get(kind.name)
            if listed is not None:
                out.append((kind.name, [identity(kind.name, item) for item in listed]))
        return out

    @property
    def worst(self) -> str | None:
        return worst(self.differences)

    @property
    def counts(self) -> dict[str, int]:
        return counts(self.differences)

    def swapped(self) -> Comparison:
        """NEW against OLD."""
        return compare_catalogs_of(self.new, self.old)


def compare_catalogs_of(old: Side, new: Side) -> Comparison:
    return Comparison(old, new, compare_catalogs(old.catalog, new.catalog))


def compare_servers(
    old_name: str, old_events: EventSource, new_name: str, new_events: EventSource
) -> Comparison:
    """The two servers' catalogs, as their frames so far hold them, compared."""
    old = Side(old_name, from_source(old_events, old_name).catalog)
    new = Side(new_name, from_source(new_events, new_name).catalog)
    return compare_catalogs_of(old, new)
