"""Following a server's lists: re-fetches coalesced, and what changed between two fetches.

A server may say ``list_changed`` several times in a row (server-everything says it five
times while its first ``tools/list`` is being answered). One re-list per notice floods the
wire and the screen; here one fetch per kind is in flight at a time, and notices that
arrive meanwhile ask for exactly one more after it, so the last state is always fetched.
Each fetch is compared with the one before (names added, removed, redefined).
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

from inspector.engine.kinds import KIND

log = logging.getLogger(__name__)

Items = list[dict[str, Any]]
NAMES_SHOWN = 3  # in a description; the rest are counted


@dataclass(frozen=True)
class ListChange:
    """How a list differs from the one fetched before it (identities, in list order)."""

    added: tuple[str, ...] = ()
    removed: tuple[str, ...] = ()
    redefined: tuple[str, ...] = ()  # same identity, different definition

    def __bool__(self) -> bool:
        return bool(self.added or self.removed or self.redefined)

    def describe(self) -> str:
        """``added extra_tool; removed a, b, c and 2 more`` (empty when nothing changed)."""
        parts = [
            f"{verb} {_names(names)}"
            for verb, names in (
                ("added", self.added),
                ("removed", self.removed),
                ("changed", self.redefined),
            )
            if names
        ]
        return "; ".join(parts)


def _names(names: tuple[str, ...]) -> str:
    shown = ", ".join(names[:NAMES_SHOWN])
    more = len(names) - NAMES_SHOWN
    return f"{shown} and {more} more" if more > 0 else shown


def compare(kind: str, old: Items, new: Items) -> ListChange:
    """What changed from ``old`` to ``new``, items matched by their name (URI for resources)."""
    before, after = _by_identity(kind, old), _by_identity(kind, new)
    return ListChange(
        added=tuple(k for k in after if k not in before),
        removed=tuple(k for k in before if k not in after),
        redefined=tuple(k for k in after if k in before and before[k] != after[k]),
    )


def _by_identity(kind: str, items: Items) -> dict[str, list[dict[str, Any]]]:
    key = KIND[kind].identity if kind in KIND else "name"
    found: dict[str, list[dict[str, Any]]] = {}
    for item in items:  # a server may repeat a name: both definitions count
        found.setdefault(str(item.get(key)), []).append(item)
    return found


@dataclass
class ListUpdate:
    """A list as just fetched; ``change`` is None for the first list of a session."""

    kind: str
    items: Items
    change: ListChange | None


Watcher = Callable[[ListUpdate], Any]


@dataclass
class _Following:
    """One kind's state: the last list, whether a fetch runs, whether one more is due."""

    watchers: list[Watcher] = field(default_factory=list)
    items: Items | None = None
    busy: bool = False
    again: bool = False


class ListFollower:
    """Fetches lists on request, at most one fetch per kind at a time, and hands each
    result with its change to the kind's watchers.

    ``fetch(kind)`` lists every page; ``spawn(func, *args)`` runs a background task for
    the session's life; ``warn(text)`` tells the user about a re-list that failed."""

    def __init__(
        self,
        fetch: Callable[[str], Awaitable[Items]],
        spawn: Callable[..., None],
        warn: Callable[[str], None],
    ) -> None:
        self._fetch_list = fetch
        self._spawn = spawn
        self._warn = warn
        self._kinds: dict[str, _Following] = {}

    def watch(self, kind: str, watcher: Watcher) -> None:
        self._state(kind).watchers.append(watcher)

    def watched(self) -> list[str]:
        return [kind for kind, state in self._kinds.items() if state.watchers]

    def busy(self, kind: str) -> bool:
        """Whether a fetch of ``kind`` runs or is due."""
        state = self._kinds.get(kind)
        return state is not None and state.busy

    def _state(self, kind: str) -> _Following:
        return self._kinds.setdefault(kind, _Following())

    async def refresh(self, kind: str) -> bool:
        """Fetch ``kind`` now and hand it to the watchers; raises what the fetch raised.

        When a fetch of ``kind`` is already in flight, nothing is sent: one more fetch is
        due after it (however many times this is called meanwhile) and False returned."""
        state = self._state(kind)
        if state.busy:
            state.again = True
            return False
        state.busy = True
        try:
            await self._fetch(kind, state)
        finally:
            self._after(kind, state)
        return True

    def seen(self, kind: str, items: Items) -> None:
        """A list of ``kind`` obtained another way (a proxy's host listed it): the
        watchers get it, with its change, as if fetched."""
        state = self._state(kind)
        self._spawn(self._hand_over, kind, state, items)

    async def _hand_over(self, kind: str, state: _Following, items: Items) -> None:
        previous, state.items = state.items, items
        change = compare(kind, previous, items) if previous is not None else None
        await self._tell(state, ListUpdate(kind, items, change))

    def changed(self, kind: str) -> None:
        """The server said ``kind`` changed: re-list it in the background (coalesced)."""
        state = self._state(kind)
        if state.busy:
            state.again = True
        else:
            self._spawn(self._refresh_quietly, kind)

    async def _refresh_quietly(self, kind: str) -> None:
        try:
            await self.refresh(kind)
        except Exception as exc:
            self._warn(f"re-listing {kind} after list_changed failed: {exc}")

    def _after(self, kind: str, state: _Following) -> None:
        """A fetch ended: run the one more that was asked for meanwhile (still busy, so
        notices arriving until it starts join it), or become idle."""
        if state.again:
            state.again = False
            self._spawn(self._fetch_again, kind)
        else:
            state.busy = False

    async def _fetch_again(self, kind: str) -> None:
        state = self._state(kind)
        try:
            await self._fetch(kind, state)
        except Exception as exc:
            self._warn(f"re-listing {kind} after list_changed failed: {exc}")
        finally:
            self._after(kind, state)

    async def _fetch(self, kind: str, state: _Following) -> None:
        items = await self._fetch_list(kind)
        previous, state.items = state.items, items
        change = compare(kind, previous, items) if previous is not None else None
        await self._tell(state, ListUpdate(kind, items, change))

    async def _tell(self, state: _Following, update: ListUpdate) -> None:
        for watcher in list(state.watchers):
            try:
                outcome = watcher(update)
                if hasattr(outcome, "__await__"):
                    await outcome
            except Exception:
                log.exception("list watcher failed")
