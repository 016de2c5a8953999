"""Which era each target spoke, kept in the state folder (``eras.json``).

Keys are digests of a target (``engine.era_detect.target_key``), never its URL or
command: the file holds no secret. Values: the version the target was opened at, and
when. A file that cannot be read (a FIFO, a device, too large, damaged) or written is
said once on stderr and otherwise treated as empty: the probe costs one round trip, and
a state file must never stop (or hang) a connection. What this process learned is kept
in memory too, so a second start in the same command recalls it even then.
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

from inspector.record.state import StateFileError, read_state, say_once, state_home, write_state

FILE_NAME = "eras.json"
MAX_ENTRIES = 500  # the oldest verdicts go first
UNREAD = "ignored: every server's era is probed"
UNSAVED = "not saved: era verdicts are kept for this run only"


class FileEraMemory:
    """``EraMemory`` over a JSON file; every change is written at once (atomically)."""

    def __init__(self, path: Path | None = None) -> None:
        self.path = path if path is not None else state_home() / FILE_NAME
        self._mine: dict[str, Any] = {}  # this process's verdicts (None: forgotten)

    def recall(self, key: str) -> str | None:
        entry = self._mine[key] if key in self._mine else self._load().get(key)
        version = entry.get("version") if isinstance(entry, dict) else None
        return version if isinstance(version, str) else None

    def remember(self, key: str, version: str) -> None:
        entry = {"version": version, "seen": round(time.time())}
        self._mine[key] = entry
        entries = self._load()
        entries[key] = entry
        if len(entries) > MAX_ENTRIES:
            newest = sorted(entries.items(), key=lambda kv: _seen(kv[1]), reverse=True)
            entries = dict(newest[:MAX_ENTRIES])
        self._save(entries)

    def forget(self, key: str) -> None:
        self._mine[key] = None
        entries = self._load()
        if entries.pop(key, None) is not None:
            self._save(entries)

    def _load(self) -> dict[str, Any]:
        try:
            data = read_state(self.path)
        except StateFileError as exc:
            say_once(exc, UNREAD)
            return {}
        if data is None:
            return {}
        try:
            entries = json.loads(data)
        except ValueError:
            entries = None
        if not isinstance(entries, dict):
            damaged = StateFileError(f"{self.path}: damaged (not a JSON object)")
            say_once(damaged, f"{UNREAD}, and it is replaced by the next verdict")
            return {}
        return entries

    def _save(self, entries: dict[str, Any]) -> None:
        try:
            write_state(self.path, json.dumps(entries, indent=1, sort_keys=True).encode())
        except StateFileError as exc:  # a read-only home: detection still works
            say_once(exc, UNSAVED)


def _seen(entry: Any) -> float:
    seen = entry.get("seen") if isinstance(entry, dict) else None
    return float(seen) if isinstance(seen, int | float) else 0.0
