"""A call made by hand, kept as a collection step: the call as sent, and its result's
state as the expectation (``isError``, and the structured fields, else ``snapshot: true``
with the golden copy written at once, so the kept step passes as it stands).

A step is appended to the file as YAML text after its last step when ``steps`` is the
file's last key (comments and layout kept), else the file is written anew from its data;
either way the file is read back and checked before it replaces the old one.
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any

import yaml

from inspector.collection.expect import Outcome
from inspector.collection.load import load_collection
from inspector.collection.model import Collection
from inspector.collection.snapshot import Snapshots
from inspector.collection.source import read_source

IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def step_from_call(
    verb: str, target: str, arguments: dict[str, Any] | None, outcome: Outcome
) -> dict[str, Any]:
    """The step that makes the call again and expects what came."""
    step: dict[str, Any] = {verb: target}
    if arguments:
        step["arguments"] = arguments
    expect: dict[str, Any] = {}
    if outcome.error is not None:
        expect["error"] = {"code": outcome.error.get("code")}
    else:
        result = outcome.result if isinstance(outcome.result, dict) else {}
        if verb == "call":
            expect["isError"] = result.get("isError") is True
        structured = result.get("structuredContent")
        fields = _fields(structured)
        if fields:
            expect["jsonpath"] = fields
        else:
            expect["snapshot"] = True
    step["expect"] = expect
    return step


def _fields(structured: Any) -> dict[str, Any] | None:
    """``{"$.structuredContent.city": "Paris", ...}``: one path per field (whose name a
    plain path can spell; else None: the step takes a snapshot)."""
    if not isinstance(structured, dict) or not structured:
        return None
    if not all(IDENTIFIER.fullmatch(k) for k in structured):
        return None
    return {f"$.structuredContent.{key}": value for key, value in structured.items()}


def keep_step(
    path: Path, step: dict[str, Any], outcome: Outcome, server: dict[str, Any] | None = None
) -> Collection:
    """Append ``step`` to the collection at ``path`` (made with ``server`` when it does not
    exist yet), write its golden copy when it expects a snapshot; the collection as read
    back. ``ValueError`` (the file left as it was) when that would break the file."""
    dumped = yaml.safe_dump([step], sort_keys=False, allow_unicode=True, width=100)
    if path.exists():
        before = path.read_text(encoding="utf-8")
        text = _appended(path, before, step, dumped)
    else:
        before = None
        head = {"server": server} if server else {}
        text = yaml.safe_dump(
            {**head, "steps": [step]}, sort_keys=False, allow_unicode=True, width=100
        )
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    try:
        collection = load_collection(path, environ=_any_env())
    except Exception as exc:
        if before is None:
            path.unlink()
        else:
            path.write_text(before, encoding="utf-8")
        raise ValueError(f"{path}: the step would break the file: {exc}") from None
    if step.get("expect", {}).get("snapshot"):
        snapshots = Snapshots(collection, update=True)
        snapshots.check(collection.steps[-1], outcome)
        snapshots.save()
    return collection


def _appended(path: Path, text: str, step: dict[str, Any], dumped: str) -> str:
    source = read_source(path)
    data = source.data
    if not isinstance(data, dict) or not isinstance(data.get("steps"), list):
        raise ValueError(f"{path} is not a collection (no steps list)")
    steps = data["steps"]
    if list(data)[-1] == "steps" and steps:
        column = _dash_column(text, source.line(("steps", 0)))
        if column is not None:
            indented = "".join(" " * column + line for line in dumped.splitlines(keepends=True))
            return text + ("" if text.endswith("\n") else "\n") + indented
    data["steps"] = [*steps, step]
    return yaml.safe_dump(data, sort_keys=False, allow_unicode=True, width=100)


def _dash_column(text: str, line: int) -> int | None:
    """Where the first step's ``-`` is (its indentation), when it is a block list."""
    lines = text.splitlines()
    if not 0 < line <= len(lines):
        return None
    found = re.match(r"(\s*)- ", lines[line - 1])
    return len(found.group(1)) if found else None


class _AnyEnv(dict[str, str]):
    """Every ``${env:NAME}`` has a value: checking a file needs no secret."""

    def __contains__(self, key: object) -> bool:
        return True

    def __missing__(self, key: str) -> str:
        return os.environ.get(key, "«checked without it»")


def _any_env() -> dict[str, str]:
    return _AnyEnv()
