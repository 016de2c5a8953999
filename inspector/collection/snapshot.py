"""``snapshot: true``: a step's response compared with a golden copy kept next to the file.

The copies of one collection are one JSON file, ``__snapshots__/NAME.json`` beside it,
keyed by step (its name, else ``call add``; ``#2``... for repeats). A copy is the
response's body (``{"result": ...}`` or ``{"error": ...}``), compared with
:func:`inspector.replay.diff.diff` and ``replay --against``'s default ignore paths (ids,
timestamps, cursors...). ``--update`` writes the copies instead of comparing them.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from inspector.collection.expect import Failure, Outcome, shown
from inspector.collection.model import Collection, Step
from inspector.replay.diff import IgnoreRule, parse_rules

CHANGES_SHOWN = 5


def snapshot_keys(collection: Collection) -> dict[int, str]:
    """step index -> its key in the snapshot file."""
    seen: dict[str, int] = {}
    keys: dict[int, str] = {}
    for step in collection.steps:
        title = step.title
        seen[title] = seen.get(title, 0) + 1
        keys[step.index] = title if seen[title] == 1 else f"{title} #{seen[title]}"
    return keys


class Snapshots:
    """The golden copies of one collection: read once, written when ``--update`` changed any."""

    def __init__(self, collection: Collection, update: bool = False) -> None:
        self.path: Path = collection.snapshot_path
        self.update = update
        self.keys = snapshot_keys(collection)
        self._stored: dict[str, Any] | None = None
        self._changed = False
        self._rules: list[IgnoreRule] = parse_rules([])

    def _load(self) -> dict[str, Any]:
        """The stored copies; ``ValueError`` saying why when the file cannot be read."""
        if self._stored is None:
            try:
                data = json.loads(self.path.read_text(encoding="utf-8"))
            except FileNotFoundError:
                data = {}
            except (OSError, ValueError) as exc:
                raise ValueError(f"cannot read {self.path}: {exc}") from None
            if not isinstance(data, dict):
                raise ValueError(f"{self.path} is not a JSON object of golden copies")
            self._stored = data
        return self._stored

    def check(self, step: Step, outcome: Outcome) -> list[Failure]:
        """Compare (or with ``update``, store) the step's response body."""
        from inspector.replay.diff import diff

        key = self.keys[step.index]
        try:
            stored = self._load()
        except ValueError as exc:
            if not self.update:
                return [Failure("snapshot", f"snapshot: {exc} (--update writes it anew)")]
            stored = self._stored = {}
        body = outcome.body()
        if self.update:
            if stored.get(key) != body:
                stored[key] = body
                self._changed = True
            return []
        if key not in stored:
            return [
                Failure(
                    "snapshot",
                    f"snapshot: no golden copy of {key!r} in {self.path} yet (run with "
                    "--update to write it)",
                )
            ]
        found = diff(stored[key], body, self._rules)
        if found.same:
            return []
        listed = "; ".join(
            f"{c.path} {c.kind}: {shown(c.old)} -> {shown(c.new)}"
            for c in found.changes[:CHANGES_SHOWN]
        )
        more = len(found.changes) - CHANGES_SHOWN
        return [
            Failure(
                "snapshot",
                f"snapshot: {len(found.changes)} difference(s) from the golden copy: {listed}"
                + (f"; and {more} more" if more > 0 else "")
                + " (--update accepts the new answer)",
                stored[key],
                body,
            )
        ]

    def save(self) -> Path | None:
        """Write the file when ``--update`` changed it; its path, else None."""
        if not self._changed or self._stored is None:
            return None
        self.path.parent.mkdir(parents=True, exist_ok=True)
        text = json.dumps(self._stored, indent=2, ensure_ascii=False, sort_keys=True)
        self.path.write_text(text + "\n", encoding="utf-8")
        self._changed = False
        return self.path
