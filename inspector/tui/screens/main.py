"""The app's main screen: named accessors for its panes, and its size classes set
before a resize is laid out.

The app composes the panes onto this screen; the helpers that show things in them
(``call_runner``, ``connection_controller``, ``auth_ui``) ask this screen for a pane by
name (Posting's ``MainScreen`` pattern), not the app: ``app.query_one`` searches the
screen on top, which is a dialog while one is open.

Textual lays a resized screen out, draws it, and only then sets the new breakpoint
classes, which restyles every widget and lays the screen out and draws it once more.
Setting them first (``on_resize`` runs before ``Screen``'s own handler) makes one pass
of both; so does setting the screen's virtual size first. And a class only changes
when inspector.tcss reads it (``HORIZONTAL``, ``VERTICAL``): a restyle costs ~25 ms on
this DOM.
"""

from __future__ import annotations

from collections.abc import Sequence

from textual import events
from textual.screen import Screen
from textual.widget import Widget
from textual.widgets import DataTable, TabbedContent

from inspector.engine.kinds import KIND
from inspector.tui.focus_guard import shown
from inspector.tui.widgets.catalog import Catalog
from inspector.tui.widgets.inflight import InFlightView
from inspector.tui.widgets.item_panel import ItemPanel
from inspector.tui.widgets.message_detail import MessageDetail
from inspector.tui.widgets.message_log import MessageLog
from inspector.tui.widgets.parts import part
from inspector.tui.widgets.result_view import ResultView
from inspector.tui.widgets.server_pane import ServerPane
from inspector.tui.widgets.status_bar import StatusBar
from inspector.tui.widgets.tasks_view import TasksView

Breakpoints = Sequence[tuple[int, str]]

# what inspector.tcss reads (dialogs keep the app's own, finer, classes)
HORIZONTAL: Breakpoints = ((0, "-not-wide"), (180, "-wide"))
VERTICAL: Breakpoints = ((0, "-short"), (32, "-not-short"))

# what the focus goes to in each bottom tab
BOTTOM_FOCUS = {
    "log": "#log-lines",
    "inflight": "#inflight",
    "serverlog": "#serverlog",
    "tasks": "#tasks",
    "auth": "#auth",
}


def size_classes(cells: int, breakpoints: Breakpoints) -> dict[str, bool]:
    """Each class of ``breakpoints``: True for the one ``cells`` falls in."""
    chosen = max((b for b in breakpoints if cells >= b[0]), default=None)
    return {name: (start, name) == chosen for start, name in breakpoints}


class MainScreen(Screen[None]):
    """Status bar, catalog, work pane, log (composed by the app)."""

    HORIZONTAL_BREAKPOINTS = list(HORIZONTAL)  # noqa: RUF012 (Textual's own annotation)
    VERTICAL_BREAKPOINTS = list(VERTICAL)  # noqa: RUF012

    def on_resize(self, event: events.Resize) -> None:
        width, height = event.size
        classes = size_classes(width, HORIZONTAL) | size_classes(height, VERTICAL)
        self.update_classes(classes, animate=False)
        # The layout sets the screen's virtual size (its size: the screen does not scroll),
        # and a change of it asks for one more layout of the whole screen, drawn in a
        # frame that changes nothing. Set first, it is no change.
        self.set_reactive(Screen.virtual_size, event.virtual_size)

    # -- the panes, by name ---------------------------------------------------------------

    @property
    def status_bar(self) -> StatusBar:
        return self.query_one(StatusBar)

    @property
    def catalog(self) -> Catalog:
        return self.query_one(Catalog)

    @property
    def item_panel(self) -> ItemPanel:
        """The work pane: the selected item's form and its result."""
        return self.query_one(ItemPanel)

    @property
    def result_view(self) -> ResultView:
        return self.query_one(ResultView)

    @property
    def server_pane(self) -> ServerPane:
        return self.query_one(ServerPane)

    @property
    def bottom_tabs(self) -> TabbedContent:
        """Log, In flight, Server log, Tasks (and Auth)."""
        return self.query_one("#bottom-tabs", TabbedContent)

    def focus_bottom(self, pane: str) -> None:
        """Focus the bottom tab ``pane``'s first focusable widget (In flight: its oldest
        pending request)."""
        widget = self.query_one(BOTTOM_FOCUS[pane])
        focusable = [widget] if widget.can_focus else [w for w in widget.query("*") if w.focusable]
        if focusable:
            focusable[0].focus()
        if pane == "inflight" and isinstance(widget, InFlightView) and widget.pending():
            widget.refresh_rows()
            widget.query_one("#inflight-table", DataTable).move_cursor(row=0)

    @property
    def tasks_view(self) -> TasksView:
        return self.query_one(TasksView)

    @property
    def message_log(self) -> MessageLog:
        return self.query_one(MessageLog)

    @property
    def detail(self) -> MessageDetail:
        return self.query_one(MessageDetail)

    def _reset_focus(self, widget: Widget, avoiding: list[Widget] | None = None) -> None:
        """Textual hands the focus of a widget going hidden to a sibling whose own display
        is on, hidden or not (the catalog list's filter box: with the log maximized it
        took the keys; on the Server tab it took its own tab back and typed ``5`` into
        itself). A hidden widget's focus goes where the user can see it instead."""
        target = self.shown_focus()
        if (
            self.focused is widget
            and not shown(widget)
            and target is not None
            and target not in (avoiding or [])
        ):
            self.set_focus(target)
            return
        super()._reset_focus(widget, avoiding)

    def shown_focus(self) -> Widget | None:
        """Where a focus that went hidden moves (focus_guard): the catalog's list when
        it shows, else the log's rows; None when neither is there (the screen is being
        torn down)."""
        catalog = part(self, "Catalog", Catalog)
        if catalog is not None and catalog.active_kind in KIND:
            target = part(catalog, f"#list-{catalog.active_kind}", Widget)
            if target is not None and shown(target):
                return target
        log = part(self, "MessageLog", MessageLog)
        return log.lines if log is not None and shown(log.lines) else None
