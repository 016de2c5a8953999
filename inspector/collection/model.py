"""What a collection file holds, once read and checked (:mod:`inspector.collection.load`)."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from inspector.errors import InspectorError

VERBS = ("call", "read", "prompt", "request", "list")
LIST_KINDS = {  # list: WORD -> the engine's list kind
    "tools": "tools",
    "resources": "resources",
    "prompts": "prompts",
    "templates": "resource_templates",
}


class CollectionFileError(InspectorError):
    """A collection file that cannot be run: where (file, line, key) and what to do."""

    def __init__(self, path: Path | str, line: int, key: str, message: str) -> None:
        self.path = str(path)
        self.line = line
        self.key = key
        self.message = message
        super().__init__(f"{self.path}:{line}: " + (f"{key}: {message}" if key else message))


@dataclass
class ServerSpec:
    """The ``server`` block: a stdio ``command``, a ``url``, or a ``config`` + ``name``."""

    command: list[str] = field(default_factory=list)
    env: dict[str, str] = field(default_factory=dict)
    cwd: str | None = None
    url: str | None = None
    headers: dict[str, str] = field(default_factory=dict)
    transport: str = "auto"
    config: str | None = None
    name: str | None = None


@dataclass
class Answers:
    """How a step answers the server's requests made while it runs."""

    elicit: str | dict[str, Any] | None = None  # a policy, or the content to accept
    sample: str | None = None
    roots: list[str] | None = None


@dataclass
class Step:
    """One step: a verb and its target, what to expect, what to save."""

    index: int  # 0-based
    line: int
    verb: str
    target: Any  # the tool/URI/prompt name, the request {method, params}, or the list kind
    arguments: dict[str, Any] = field(default_factory=dict)
    name: str = ""
    expect: dict[str, Any] = field(default_factory=dict)
    expect_lines: dict[str, int] = field(default_factory=dict)  # expectation -> its line
    save: dict[str, str] = field(default_factory=dict)  # var -> JSONPath
    answers: Answers = field(default_factory=Answers)

    @property
    def title(self) -> str:
        """The name given, else ``call add`` / ``list tools``."""
        if self.name:
            return self.name
        shown = self.target.get("method") if isinstance(self.target, dict) else self.target
        return f"{self.verb} {shown}"


@dataclass
class Collection:
    """A checked collection file."""

    path: Path
    server: ServerSpec | None
    server_line: int
    vars: dict[str, Any]
    steps: list[Step]
    secrets: list[str] = field(default_factory=list)  # ${env:...} values: never shown

    @property
    def snapshot_path(self) -> Path:
        """The golden copies of the ``snapshot: true`` steps, next to the file."""
        return self.path.parent / "__snapshots__" / f"{self.path.name}.json"
