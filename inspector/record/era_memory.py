"""Which era each target spoke, kept in the state folder (``eras.json``).

Keys are digests of a target (``engine.era_detect.target_key``), never its URL or
command: the file holds no secret. Values: the version the target was opened at, and
when. A damaged or unreadable file is treated as empty (the probe costs one round
trip; a state file must never stop a connection).
"""

from __future__ import annotations

import contextlib
import json
import os
import time
from pathlib import Path
from typing import Any

from inspector.record.private import open_private, private_dirs
from inspector.record.state import state_home

FILE_NAME = "eras.json"
MAX_ENTRIES = 500  # the oldest verdicts go first


class FileEraMemory:
    """``EraMemory`` over a JSON file; every change is written at once (atomically)."""

    def __init__(self, path: Path | None = None) -> None:
        self.path = path if path is not None else state_home() / FILE_NAME

    def recall(self, key: str) -> str | None:
        entry = self._load().get(key)
        version = entry.get("version") if isinstance(entry, dict) else None
        return version if isinstance(version, str) else None

    def remember(self, key: str, version: str) -> None:
        entries = self._load()
        entries[key] = {"version": version, "seen": round(time.time())}
        if len(entries) > MAX_ENTRIES:
            newest = sorted(entries.items(), key=lambda kv: _seen(kv[1]), reverse=True)
            entries = dict(newest[:MAX_ENTRIES])
        self._save(entries)

    def forget(self, key: str) -> None:
        entries = self._load()
        if entries.pop(key, None) is not None:
            self._save(entries)

    def _load(self) -> dict[str, Any]:
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return {}
        return data if isinstance(data, dict) else {}

    def _save(self, entries: dict[str, Any]) -> None:
        with contextlib.suppress(OSError):  # a read-only home: detection still works
            private_dirs(self.path.parent)
            partial = self.path.with_name(f".{self.path.name}.{os.getpid()}")
            with open_private(partial) as out:
                out.write(json.dumps(entries, indent=1, sort_keys=True).encode())
            os.replace(partial, self.path)


def _seen(entry: Any) -> float:
    seen = entry.get("seen") if isinstance(entry, dict) else None
    return float(seen) if isinstance(seen, int | float) else 0.0
