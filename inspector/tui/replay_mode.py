"""Replay mode: a recorded session shown offline, fed into the same ``LiveState``.

The recording is the state's event source; this class indexes the rest of the file
in a background worker (the feed tells the log as it grows, so the first screen is
there at once) and rebuilds the catalog and server facts as recorded, which it posts
(``ReplayCatalog``; indexing progress: ``Indexing``) to the widgets through the feed.
"""

from __future__ import annotations

from functools import partial
from typing import TYPE_CHECKING, Any

from inspector.engine.kinds import KIND
from inspector.live.state import LiveState
from inspector.record.indexed import IndexedSessionFile
from inspector.replay.recorded_catalog import RecordedCatalog, rebuild_catalog
from inspector.tui import messages
from inspector.tui.live_feed import LiveFeed

if TYPE_CHECKING:
    from textual.app import App

HINT = (
    "replay: the recorded session, offline. Browse the catalog and the log (g, then "
    "up/down steps through events, Enter opens one). Calling is disabled: re-run it "
    "with `mcp-inspect replay FILE --against TARGET`."
)


class ReplayMode:
    """Feeds one recorded session into the state and posts what it finds."""

    def __init__(
        self,
        app: App[Any],
        state: LiveState,
        source: IndexedSessionFile,
        feed: LiveFeed,
        title: str | None,
    ) -> None:
        """``state`` shows ``source`` (its event source); ``app`` runs the indexing
        worker; ``feed`` tells the widgets what was found."""
        self.app = app
        self.state = state
        self.source = source
        self.feed = feed
        self.title = title
        self.indexed = False  # the whole file is known (index() sets it)

    def start(self) -> None:
        """Show what the first indexed chunk holds, then index the rest in a worker."""
        # after the panes are laid out: what the first indexed chunk already shows
        self.app.call_after_refresh(self.show_catalog, None)
        self.app.run_worker(
            self.index(), group=f"replay-index-{id(self)}", exclusive=True, exit_on_error=False
        )

    def unknown(self, kind: str, catalog: RecordedCatalog, offered: Any) -> str | None:
        """Why a kind has no list: never listed here - unless the server offers none."""
        if catalog.recorded(kind):
            return None
        capability = KIND[kind].capability
        if isinstance(offered, dict) and capability not in offered:
            return None  # the server has no such capability: "(none)" is the truth
        more = " yet (indexing)" if not self.indexed else ""
        return f"not recorded{more}: this session never listed {KIND[kind].label.lower()}"

    async def index(self) -> None:
        """Index the rest of the file; the log grows as it goes (the feed tells it)."""
        source = self.source
        async for fraction in source.index_async():
            self.feed.broadcast(partial(messages.Indexing, fraction))
        self.feed.broadcast(partial(messages.Indexing, None))
        self.indexed = True
        from anyio import to_thread

        catalog = await to_thread.run_sync(rebuild_catalog, source)
        self.apply_catalog(catalog)
        for warning in source.warnings:
            self.app.notify(warning, title="replay", severity="warning", timeout=10)

    def show_catalog(self, stop: int | None) -> None:
        """The catalog as recorded up to event ``stop`` (None: the whole file so far)."""
        self.apply_catalog(rebuild_catalog(self.source, stop))

    def apply_catalog(self, catalog: RecordedCatalog) -> None:
        init = catalog.initialize or {}
        offered = init.get("capabilities") if catalog.initialize is not None else None
        self.state.catalog = {kind: catalog.lists.get(kind, []) for kind in KIND}
        unknown = {kind: self.unknown(kind, catalog, offered) for kind in KIND}
        self.feed.broadcast(partial(messages.ReplayCatalog, catalog, unknown, self.title))
