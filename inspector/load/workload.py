"""What a load run calls: one request given as ``--cli`` gives it, or a list of them.

The run takes the list's calls in turn, round and round (call N of the run is entry
N mod len), whichever user is free next. A call is a method and its
params as sent (``tools/call`` with ``{"name", "arguments"}``, ``resources/read`` with
``{"uri"}``...); its label names it in the report (``tools/call add``)."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from inspector.errors import InspectorError
from inspector.wire.stateless import NAME_PARAMS


class WorkloadError(InspectorError):
    """A workload file that cannot be used; the message names the file and the entry."""


@dataclass(frozen=True, slots=True)
class Call:
    method: str
    params: dict[str, Any] = field(default_factory=dict)

    @property
    def label(self) -> str:
        key = NAME_PARAMS.get(self.method)
        name = self.params.get(key) if key else None
        return f"{self.method} {name}" if isinstance(name, str) else self.method


def tool_call(name: str, arguments: dict[str, Any]) -> Call:
    return Call("tools/call", {"name": name, "arguments": arguments})


def read_workload(path: Path) -> list[Call]:
    """A JSON list of calls: ``[{"method": "tools/call", "params": {...}}, ...]`` or the
    short form ``{"tool": "add", "arguments": {...}}``."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise WorkloadError(f"{path}: cannot be read: {exc.strerror or exc}") from exc
    except ValueError as exc:
        raise WorkloadError(f"{path}: not JSON: {exc}") from exc
    if not isinstance(data, list) or not data:
        raise WorkloadError(f"{path}: a workload is a non-empty JSON list of calls")
    calls = []
    for index, item in enumerate(data):
        where = f"{path}: entry {index}"
        if not isinstance(item, dict):
            raise WorkloadError(f"{where}: a call is an object")
        if "tool" in item:
            arguments = item.get("arguments", {})
            if not isinstance(item["tool"], str) or not isinstance(arguments, dict):
                raise WorkloadError(f"{where}: 'tool' is a name, 'arguments' an object")
            calls.append(tool_call(item["tool"], arguments))
            continue
        method, params = item.get("method"), item.get("params", {})
        if not isinstance(method, str) or not isinstance(params, dict):
            raise WorkloadError(f"{where}: needs 'method' (a string) and 'params' (an object)")
        calls.append(Call(method, params))
    return calls
