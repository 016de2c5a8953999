"""Replay mode: a recorded session shown offline (status, catalog, server pane, indexing).

The app hands over a source and the widgets; this class fills them from the recording
and indexes the rest of the file in a background worker, so the first screen is there
at once and the log grows as the index does.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from inspector.engine.kinds import KIND
from inspector.record.indexed import IndexedSessionFile
from inspector.replay.recorded_catalog import RecordedCatalog, rebuild_catalog
from inspector.tui.widgets.catalog import Catalog
from inspector.tui.widgets.item_panel import ItemPanel
from inspector.tui.widgets.message_log import MessageLog
from inspector.tui.widgets.result_view import ResultView
from inspector.tui.widgets.server_pane import ServerPane
from inspector.tui.widgets.status_bar import StatusBar, server_label

if TYPE_CHECKING:
    from textual.app import App
    from textual.await_complete import AwaitComplete

HINT = (
    "replay: the recorded session, offline. Browse the catalog and the log (g, then "
    "up/down steps through events, Enter opens one). Calling is disabled: re-run it "
    "with `mcp-inspect replay FILE --against TARGET`."
)


class ReplayMode:
    """Wires one recorded session into the app's widgets."""

    def __init__(self, app: App[Any], source: IndexedSessionFile, title: str | None) -> None:
        self.app = app
        self.source = source
        self.title = title
        self._server_tab_ready: AwaitComplete | None = None
        self.indexed = False  # the whole file is known (index() sets it)

    @property
    def status(self) -> StatusBar:
        return self.app.query_one(StatusBar)

    def start(self, server_tab_ready: AwaitComplete) -> None:
        """Show what the first indexed chunk holds, then index the rest in a worker."""
        self._server_tab_ready = server_tab_ready
        status = self.status
        status.state = "replay"
        status.server = self.title or "replay"
        status.transport = "offline"
        self.app.query_one(ItemPanel).read_only = True
        self.app.query_one(ResultView).show_text(HINT, "cyan")
        # after the Server tab is mounted: what the first indexed chunk already shows
        self.app.call_after_refresh(self.show_catalog, None)
        self.app.run_worker(self.index(), group="replay-index", exclusive=True, exit_on_error=False)

    def _unknown(self, kind: str, catalog: RecordedCatalog, offered: Any) -> str | None:
        """Why a kind has no list: never listed here - unless the server offers none."""
        if catalog.recorded(kind):
            return None
        capability = KIND[kind].capability
        if isinstance(offered, dict) and capability not in offered:
            return None  # the server has no such capability: "(none)" is the truth
        more = " yet (indexing)" if not self.indexed else ""
        return f"not recorded{more}: this session never listed {KIND[kind].label.lower()}"

    async def index(self) -> None:
        """Index the rest of the file; the log grows as it goes."""
        source = self.source
        log = self.app.query_one(MessageLog)
        async for fraction in source.index_async():
            log.source_grew()
            self.status.extra = f"indexing {fraction:.0%}"
        log.source_grew()
        self.status.extra = ""
        self.indexed = True
        from anyio import to_thread

        catalog = await to_thread.run_sync(rebuild_catalog, source)
        if self._server_tab_ready is not None:
            await self._server_tab_ready
        self.apply_catalog(catalog)
        for warning in source.warnings:
            self.app.notify(warning, title="replay", severity="warning", timeout=10)

    def show_catalog(self, stop: int | None) -> None:
        """The catalog as recorded up to event ``stop`` (None: the whole file so far)."""
        self.apply_catalog(rebuild_catalog(self.source, stop))

    def apply_catalog(self, catalog: RecordedCatalog) -> None:
        init = catalog.initialize or {}
        offered = init.get("capabilities") if catalog.initialize is not None else None
        for kind in KIND:
            self.app.query_one(Catalog).set_items(
                kind,
                catalog.lists.get(kind, []),
                catalog.errors.get(kind) if kind not in catalog.lists else None,
                unknown=self._unknown(kind, catalog, offered),
            )
        info = init.get("serverInfo") or {}
        status = self.status
        if info:
            status.server = f"{server_label(info)} (replay of {self.title})"
        status.protocol = str(init.get("protocolVersion", ""))
        self.app.query_one(ServerPane).refresh_from(
            info=info,
            protocol=init.get("protocolVersion"),
            server_caps=init.get("capabilities") or {},
            client_caps={},
            instructions=init.get("instructions"),
            stderr_tail=[],
            target=f"recording {self.title}",
        )
