"""The loader's check of ``${var}``: each one is in ``vars`` or saved by an earlier step."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from inspector.collection.interpolate import PATTERN
from inspector.collection.model import Step
from inspector.collection.source import Source, Where


def _refs(value: Any, where: Where) -> Iterator[tuple[str, Where]]:
    if isinstance(value, str):
        for match in PATTERN.finditer(value):
            if match.group(1) is not None:
                yield match.group(1), where
    elif isinstance(value, dict):
        for key, item in value.items():
            yield from _refs(key, (*where, key))
            yield from _refs(item, (*where, key))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from _refs(item, (*where, index))


def check_references(source: Source, steps: list[Step], known: set[str]) -> None:
    """Raise at the first ``${name}`` no earlier step or ``vars`` gives a value."""
    saved_by = {name: step.index for step in steps for name in step.save}
    known = set(known)
    for step in steps:
        raw = source.data["steps"][step.index]
        for name, where in _refs(raw, ("steps", step.index)):
            if name in known or name.startswith("env:"):
                continue
            later = saved_by.get(name)
            if later is not None and later >= step.index:
                why = f"it is saved only by steps[{later}], which runs " + (
                    "after this one" if later > step.index else "this step itself: after it"
                )
            else:
                why = "no step saves it and vars does not set it"
            raise source.error(
                where, f"${{{name}}} has no value here: {why} (save: {{{name}: $.path}})"
            )
        known.update(step.save)
