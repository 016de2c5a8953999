"""A collection file's text as data, with the line of every key and item.

YAML is read with PyYAML's safe loader; its node tree (which keeps each node's start
mark) gives the lines. JSON is read with :mod:`json` and its lines taken from the same
node tree (JSON is YAML), so an error in either names the line of the key at fault.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import yaml

from inspector.collection.model import CollectionFileError

Where = tuple[str | int, ...]  # keys and indexes from the document's root


class Source:
    """The document and its lines: ``line(("steps", 2, "expect"))``."""

    def __init__(self, path: Path, data: Any, lines: dict[Where, int]) -> None:
        self.path = path
        self.data = data
        self._lines = lines

    def line(self, where: Where) -> int:
        """The line of ``where`` (1-based), else of its nearest parent that has one."""
        while where:
            if where in self._lines:
                return self._lines[where]
            where = where[:-1]
        return self._lines.get((), 1)

    def error(self, where: Where, message: str) -> CollectionFileError:
        """An error at ``where``: its line and its key written as ``steps[2].expect``."""
        return CollectionFileError(self.path, self.line(where), dotted(where), message)


def dotted(where: Where) -> str:
    """``("steps", 2, "expect")`` -> ``steps[2].expect``."""
    out = ""
    for part in where:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else part)
    return out


def read_source(path: Path) -> Source:
    """Read and parse ``path``; a file that is not YAML/JSON is a :class:`CollectionFileError`."""
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise CollectionFileError(path, 1, "", f"cannot read: {exc}") from exc
    is_json = path.suffix.lower() == ".json"
    if is_json:
        try:
            data = json.loads(text)
        except json.JSONDecodeError as exc:
            raise CollectionFileError(path, exc.lineno, "", f"not valid JSON: {exc.msg}") from exc
    node = None
    try:
        node, built = _compose(text)
    except yaml.YAMLError as exc:
        if not is_json:
            mark = getattr(exc, "problem_mark", None)
            line = mark.line + 1 if mark is not None else 1
            raise CollectionFileError(
                path, line, "", f"not valid YAML: {_yaml_problem(exc)}"
            ) from exc
        # valid JSON that YAML 1.1 reads otherwise: the data, without lines
    if not is_json:
        data = built
    lines: dict[Where, int] = {}
    if node is not None:
        _walk(node, (), lines)
    return Source(path, data, lines)


def _compose(text: str) -> tuple[yaml.Node | None, Any]:
    """The node tree (with marks) and the data built from it: one parse, with libyaml's
    parser when PyYAML has it (a thousand steps read in milliseconds, not seconds)."""
    loader_class = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    loader = loader_class(text)
    try:
        node = loader.get_single_node()
        return node, (loader.construct_document(node) if node is not None else None)
    finally:
        loader.dispose()


def _yaml_problem(exc: yaml.YAMLError) -> str:
    problem = getattr(exc, "problem", None)
    context = getattr(exc, "context", None)
    return " ".join(str(p) for p in (context, problem) if p) or str(exc)


def _walk(node: yaml.Node, where: Where, lines: dict[Where, int]) -> None:
    lines.setdefault(where, node.start_mark.line + 1)
    if isinstance(node, yaml.MappingNode):
        for key_node, value_node in node.value:
            key = key_node.value if isinstance(key_node, yaml.ScalarNode) else None
            if isinstance(key, str):
                lines[(*where, key)] = key_node.start_mark.line + 1
                _walk(value_node, (*where, key), lines)
    elif isinstance(node, yaml.SequenceNode):
        for index, item in enumerate(node.value):
            _walk(item, (*where, index), lines)
