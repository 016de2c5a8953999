"""Cached results of the 2026-07-28 era: a result with ``ttlMs`` may be reused while fresh.

A cacheable result says how long it stays fresh (``ttlMs``) and who may share it
(``cacheScope``: ``private`` or ``public``). One client with one set of credentials
reuses both kinds alike; a change notification for a list drops that list's pages.
Lifetimes are clamped to 24 hours, as the official SDK does.
"""

from __future__ import annotations

from dataclasses import dataclass
from time import monotonic
from typing import Any

MAX_TTL_MS = 24 * 60 * 60 * 1000


@dataclass(frozen=True, slots=True)
class Cached:
    """One stored result and how old it is."""

    value: Any
    stored: float  # monotonic seconds
    ttl_ms: int
    scope: str

    @property
    def age(self) -> float:
        return monotonic() - self.stored

    @property
    def fresh(self) -> bool:
        return self.age * 1000 < self.ttl_ms


class ResultCache:
    """Results by (method, key): the key is the page cursor of a list ("" for the first)."""

    def __init__(self) -> None:
        self._entries: dict[tuple[str, str], Cached] = {}

    def fresh(self, method: str, key: str = "") -> Cached | None:
        """The stored result while it is fresh (a stale one is dropped)."""
        entry = self._entries.get((method, key))
        if entry is None:
            return None
        if not entry.fresh:
            del self._entries[(method, key)]
            return None
        return entry

    def store(self, method: str, key: str, result: Any) -> None:
        """Keep ``result`` if it says it may be reused (a positive integer ``ttlMs``)."""
        ttl = result.get("ttlMs") if isinstance(result, dict) else None
        if not isinstance(ttl, int) or isinstance(ttl, bool) or ttl <= 0:
            self._entries.pop((method, key), None)
            return
        scope = result.get("cacheScope")
        self._entries[(method, key)] = Cached(
            result,
            monotonic(),
            min(ttl, MAX_TTL_MS),
            scope if isinstance(scope, str) else "private",
        )

    def drop(self, method: str) -> None:
        """Forget every page of ``method`` (the server said the list changed)."""
        for entry in [k for k in self._entries if k[0] == method]:
            del self._entries[entry]
