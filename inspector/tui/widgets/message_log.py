"""The message log: one row per wire event, fast at a million events.

``LogLines`` is a Line API ``ScrollView`` (after Textualize/toolong's LogLines):
it keeps no widgets and no text per event, only reads an ``EventSource`` (and an
optional ``FilteredView`` index list), renders the visible rows on demand and
keeps rendered rows in an LRU cache. ``MessageLog`` wraps it with the filter bar.

The log does not own its events: it is given a source (a live session's ``EventStore``,
kept by ``LiveState``, or a recording) and told when it grew (``EventsAdded``, posted
in batches every 50 ms by the ``LiveFeed``).
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import ClassVar

from rich.style import Style
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.cache import LRUCache
from textual.containers import Vertical
from textual.events import Click
from textual.geometry import Region, Size
from textual.message import Message
from textual.scroll_view import ScrollView
from textual.strip import Strip

from inspector.engine.summary import RowSummary, summarize
from inspector.logstore.store import EventSource, FilteredView, LogFilter
from inspector.safe_text import visible
from inspector.tui import messages
from inspector.tui.masked import RowMask, row_mask
from inspector.tui.widgets.log_filter import LogFilterBar
from inspector.tui.widgets.log_row import SERVER_WIDTH, row_strip
from inspector.wire.events import SERVER_KEY, WireEvent

SCAN_STEP = 4_000  # events per filter step
SCAN_SLICE = 0.008  # seconds of filter steps before yielding to the UI
# A real pause, not sleep(0): a key press hops App -> Screen -> widget, one loop turn each.
SCAN_PAUSE = 0.002
SYNC_SCAN_LIMIT = 5_000  # new events filtered inline on append (more: in the worker)
GROW_EVERY = 0.2  # seconds between two re-sizes of the log as it grows (a flood's batches)
BIG_FRAME = 64 * 1024  # a frame this big is summarized as it arrives, parsed


class LogLines(ScrollView, can_focus=True):
    """The virtualized rows; see the module docstring."""

    DEFAULT_CSS = """
    LogLines {
        height: 1fr;
        overflow-x: hidden;
        overflow-y: scroll;
        background: $surface;
    }
    LogLines > .log-lines--cursor { background: $primary 40%; }
    LogLines:focus > .log-lines--cursor { background: $primary 70%; }
    """
    COMPONENT_CLASSES: ClassVar[set[str]] = {"log-lines--cursor"}

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("up", "cursor_up", "Up", show=False),
        Binding("down", "cursor_down", "Down", show=False),
        Binding("pageup", "page_up", "Page up", show=False),
        Binding("pagedown", "page_down", "Page down", show=False),
        Binding("home", "first", "First", show=False),
        Binding("end", "last", "Last / follow", show=False),
        Binding("enter", "select", "Open", show=False),
    ]

    def __init__(
        self, source: EventSource, *, id: str | None = None, server_width: int = 0
    ) -> None:
        """``server_width``: a column of each frame's server (a workspace's merged log)."""
        super().__init__(id=id)
        self.source = source
        self.server_width = server_width
        self.view: FilteredView | None = None
        self.follow = True
        self.cursor_row: int | None = None
        self._rows = 0
        self._strips: LRUCache[tuple[int, int, int], tuple[Strip, Strip]] = LRUCache(1024)
        self._summaries: LRUCache[int, RowSummary] = LRUCache(2048)
        # Rows of big frames, summarized once from the parsed event as it arrived: reading
        # them back from the source parses the whole frame (100 ms for 13 MB) on the UI
        # thread at every paint that missed the cache.
        self._big_summaries: dict[int, RowSummary] = {}
        self._seq_width = 5
        self._base_style = Style()
        self._cursor_style = Style()
        self._mask: RowMask | None = None  # the session's secrets out of the rows
        self.rendered_rows = 0  # rows rendered since mount (for tests and the bench)

    # -- rows and indices ----------------------------------------------------------

    @property
    def row_count(self) -> int:
        return self._rows

    def index_at(self, row: int) -> int:
        return self.view.indices[row] if self.view is not None else row

    def row_of(self, index: int) -> int | None:
        if self.view is None:
            return index if 0 <= index < len(self.source) else None
        return self.view.row_of(index)

    @property
    def cursor_index(self) -> int | None:
        row = self.cursor_row
        return None if row is None or row >= self._rows else self.index_at(row)

    def summary(self, index: int) -> RowSummary:
        found = self._big_summaries.get(index) or self._summaries.get(index)
        if found is None:
            # a session file reads a huge line by its head for its row (whole: its detail)
            found = summarize(self.summary_event(index))
            self._summaries[index] = found
        return found

    def _server_of(self, index: int) -> str:
        """Event ``index``'s server (its meta's), without parsing its frame when the
        source keeps metas apart (the live store)."""
        meta = getattr(self.source, "meta", None)
        found = (meta(index) if meta else self.summary_event(index).meta).get(SERVER_KEY)
        return visible(found) if isinstance(found, str) else ""

    def summary_event(self, index: int) -> WireEvent:
        peek = getattr(self.source, "summary_event", self.source.event)
        event: WireEvent = peek(index)
        return event

    # -- growth --------------------------------------------------------------------

    def rows_changed(self) -> None:
        """The source grew or the view changed: resize, follow the tail, repaint."""
        total = len(self.source)
        if total:
            last_seq = self.source.seq(total - 1) or total
            width = max(5, len(str(last_seq)))
            if width != self._seq_width:
                self._seq_width = width
                self._strips.clear()
        old_rows = self._rows
        self._rows = len(self.view) if self.view is not None else total
        size = Size(0, self._rows)
        height = self.size.height
        if self.show_vertical_scrollbar and min(old_rows, self._rows) > height > 0:
            # taller than the view before and after: the scrollbar stays and only its
            # range changes, so no layout (a layout re-lays the whole screen out: ~60 ms
            # that a flood would ask for on every batch, holding the keys back)
            self.set_reactive(LogLines.virtual_size, size)
            self._scroll_update(size)
        else:
            self.virtual_size = size
        if self.follow:
            self.scroll_to_tail()
        if self._rows != old_rows or self.follow:
            self.refresh()

    def scroll_to_tail(self) -> None:
        self.scroll_to(y=self.max_scroll_y, animate=False, immediate=True)
        # Keep the target in step, or the next wheel/scroll_up starts from a stale target.
        self.scroll_target_y = self.scroll_y

    def on_resize(self) -> None:
        if self.follow:
            self.scroll_to_tail()

    # -- rendering -----------------------------------------------------------------

    def remember_big(self, first: int, events: Sequence[WireEvent]) -> None:
        """Summarize the big frames among ``events`` (indexes from ``first``) while they
        are parsed at hand."""
        for offset, event in enumerate(events):
            if len(event.raw) > BIG_FRAME:
                self._big_summaries[first + offset] = summarize(event)

    def forget(self, index: int) -> None:
        """Drop the cached row of event ``index`` and repaint it."""
        stale = [k for k in self._strips.keys() if k[0] == index]  # noqa: SIM118 (LRUCache)
        for key in stale:
            self._strips.discard(key)
        self._summaries.discard(index)  # (a big frame's summary stays: findings are not in it)
        row = self.row_of(index)
        if row is not None:
            self.refresh_line(row)

    def render_lines(self, crop: Region) -> list[Strip]:
        # Styles are looked up once per paint, not once per row (rich_style is not cheap).
        base = self.rich_style
        if base != self._base_style:
            self._base_style = base
            self._strips.clear()
        self._cursor_style = self.get_component_rich_style("log-lines--cursor")
        mask = row_mask(self.app)
        if mask != self._mask:  # a secret learned since (a token): no row cached unmasked
            self._mask = mask
            self._strips.clear()
        return super().render_lines(crop)

    def render_line(self, y: int) -> Strip:
        width = self.scrollable_content_region.width
        row = self.scroll_offset.y + y
        base = self._base_style
        if row >= self._rows or width <= 0:
            return Strip.blank(width, base)
        index = self.index_at(row)
        key = (index, width, self._seq_width)
        cached = self._strips.get(key)
        if cached is None:
            plain = self.render_row(index, width)
            cached = self._strips[key] = (plain, plain.apply_style(base))
        if row == self.cursor_row:  # under the row's own colours (badges keep theirs)
            return cached[0].apply_style(self._cursor_style).apply_style(base)
        return cached[1]

    def render_row(self, index: int, width: int) -> Strip:
        """One event as a row of fixed columns and a summary that takes the rest."""
        self.rendered_rows += 1
        server = self._server_of(index) if self.server_width else ""
        return row_strip(
            self.source,
            index,
            self.summary(index),
            width,
            seq_width=self._seq_width,
            server=server,
            server_width=self.server_width,
            mask=self._mask,
        )

    # -- cursor and follow -----------------------------------------------------------

    def watch_scroll_y(self, old_value: float, new_value: float) -> None:
        super().watch_scroll_y(old_value, new_value)
        # Scrolling up (wheel, scrollbar, keys) stops following; back at the bottom resumes.
        if new_value < old_value and new_value < self.max_scroll_y:
            self.follow = False
        elif new_value >= self.max_scroll_y and new_value > old_value:
            self.follow = True

    def move_cursor(self, row: int | None, *, post: bool = True) -> None:
        if self._rows == 0:
            self.cursor_row = None
            return
        old = self.cursor_row
        if row is not None:
            row = max(0, min(row, self._rows - 1))
        self.cursor_row = row
        if old is not None and old < self._rows:
            self.refresh_line(old)
        if row is None:
            return
        self.refresh_line(row)
        height = self.scrollable_content_region.height
        top = self.scroll_offset.y
        if row < top:
            self.scroll_to(y=row, animate=False, immediate=True)
        elif row >= top + height:
            self.scroll_to(y=row - height + 1, animate=False, immediate=True)
        self.follow = row == self._rows - 1 and self.scroll_offset.y >= self.max_scroll_y
        if post and row != old:
            index = self.index_at(row)
            self.post_message(MessageLog.Highlighted(index, self.source.seq(index)))

    def _start_row(self) -> int:
        """The cursor row, or (no cursor yet) the last visible row."""
        if self.cursor_row is not None:
            return self.cursor_row
        return min(self._rows - 1, self.scroll_offset.y + self.scrollable_content_region.height - 1)

    def action_cursor_up(self) -> None:
        self.move_cursor(self._start_row() - (self.cursor_row is not None))

    def action_cursor_down(self) -> None:
        self.move_cursor(self._start_row() + (self.cursor_row is not None))

    def action_page_up(self) -> None:
        self.move_cursor(self._start_row() - max(1, self.scrollable_content_region.height - 1))

    def action_page_down(self) -> None:
        self.move_cursor(self._start_row() + max(1, self.scrollable_content_region.height - 1))

    def action_first(self) -> None:
        self.move_cursor(0)

    def action_last(self) -> None:
        self.move_cursor(self._rows - 1)
        self.follow = True
        self.scroll_to_tail()

    def action_select(self) -> None:
        index = self.cursor_index
        if index is not None:
            self.post_message(MessageLog.Selected(index, self.source.seq(index)))

    def on_click(self, event: Click) -> None:
        offset = event.get_content_offset(self)
        if offset is None:
            return
        row = self.scroll_offset.y + offset.y
        if 0 <= row < self._rows:
            self.move_cursor(row)
            self.action_select()


class MessageLog(Vertical):
    """The message log with its filter bar (``/``); reads only through ``EventSource``."""

    DEFAULT_CSS = """
    MessageLog { height: 1fr; }
    """

    BINDINGS: ClassVar[list[BindingType]] = [Binding("slash", "open_filter", "Filter", show=True)]

    @dataclass
    class Selected(Message):
        """Enter or a click on a row: open the event's detail."""

        index: int
        seq: int

    @dataclass
    class Highlighted(Message):
        """The cursor moved to an event."""

        index: int
        seq: int

    def __init__(
        self,
        source: EventSource,
        *,
        id: str | None = None,
        classes: str | None = None,
        servers: bool = False,
    ) -> None:
        """``servers``: a column says each frame's server (a workspace's merged log)."""
        super().__init__(id=id, classes=classes)
        self.source = source
        self.filter = LogFilter()
        width = SERVER_WIDTH if servers else 0
        self._lines = LogLines(self.source, id="log-lines", server_width=width)
        self._want_index: int | None = None  # cursor event to find again while scanning
        self._cursor_when_scanned = False  # Enter in the filter: a row once the scan ends
        self._bar = LogFilterBar(methods=self.source.method_names, id="log-filter")
        self._grew_at = 0.0  # when the log was last re-sized for new events
        self._grow_waiting = False  # a re-size is due (its timer set)

    def compose(self) -> ComposeResult:
        yield self._bar
        yield self._lines

    def on_mount(self) -> None:
        self._lines.rows_changed()

    # -- public API --------------------------------------------------------------

    def focus(self, scroll_visible: bool = True) -> MessageLog:
        """Focus the rows (the container itself takes no focus)."""
        self._lines.focus(scroll_visible)
        return self

    @property
    def lines(self) -> LogLines:
        return self._lines

    @on(messages.EventsAdded)
    def _events_added(self, message: messages.EventsAdded) -> None:
        self.events_added(message.first, message.events)

    def events_added(self, first: int, events: Sequence[WireEvent] = ()) -> None:
        """The source grew from index ``first``; ``events``: the new ones, when at hand
        (their big frames are summarized now, while parsed)."""
        self._lines.remember_big(first, events)
        self.source_grew()

    def source_grew(self) -> None:
        """The source has more events (it grew by itself, e.g. a replay index).

        At most every ``GROW_EVERY`` seconds: a new size re-lays the whole screen out
        (~60 ms with every pane), which a flood would ask for on every 50 ms batch and
        so hold the keys back; a later call within that time is folded into one."""
        since = time.monotonic() - self._grew_at
        if since < GROW_EVERY:
            if not self._grow_waiting:
                self._grow_waiting = True
                self.set_timer(GROW_EVERY - since, self._grow_now)
            return
        self._grow_now()

    def _grow_now(self) -> None:
        self._grow_waiting = False
        self._grew_at = time.monotonic()
        view = self._lines.view
        if view is not None and not view.done:
            if len(self.source) - view.scanned <= SYNC_SCAN_LIMIT:
                view.step(SYNC_SCAN_LIMIT)
            else:
                self._scan(view)
        self._lines.rows_changed()
        self._update_count()

    def event_changed(self, index: int) -> None:
        """Event ``index`` changed after it was shown (a finding added by a later lint)."""
        self._lines.forget(index)

    @property
    def follow(self) -> bool:
        return self._lines.follow

    @property
    def cursor_index(self) -> int | None:
        return self._lines.cursor_index

    @property
    def shown(self) -> int:
        return self._lines.row_count

    @property
    def scanning(self) -> bool:
        view = self._lines.view
        return view is not None and not view.done

    def select_index(self, index: int) -> None:
        """Move the cursor to event ``index`` (or the nearest shown event before it). An
        event the source holds but the rows do not show yet (their growth is held back
        ``GROW_EVERY``) is shown first: a jump to a frame that just came lands on it."""
        if self._grow_waiting:
            self._grow_now()
        lines = self._lines
        if lines.view is None:
            lines.move_cursor(index)
        else:
            lines.move_cursor(lines.view.nearest_row(index))

    def set_filter(self, query: str) -> None:
        """Apply a filter query (empty shows everything); scans in chunks."""
        flt = LogFilter.parse(query)
        lines = self._lines
        if flt == self.filter and (lines.view is not None or flt.is_empty):
            return
        keep = lines.cursor_index
        self.filter = flt
        self._cursor_when_scanned = False
        if flt.is_empty:
            lines.view = None
        else:
            lines.view = FilteredView(self.source, flt)
            self._scan_slice(lines.view)
        lines.cursor_row = None
        lines.rows_changed()
        self._want_index = keep
        self._find_wanted()
        lines.refresh()
        self._update_count()
        if lines.view is not None and not lines.view.done:
            self._scan(lines.view)

    def _find_wanted(self) -> None:
        """Put the cursor back on the event it was on, once the scan has reached it."""
        want = self._want_index
        if want is None:
            return
        lines = self._lines
        row = lines.row_of(want)
        if row is not None:
            self._want_index = None
            lines.move_cursor(row, post=False)
        elif lines.view is not None and lines.view.scanned > want:
            self._want_index = None  # filtered out

    @staticmethod
    def _scan_slice(view: FilteredView) -> bool:
        """Filter steps for about ``SCAN_SLICE`` seconds; True when caught up."""
        deadline = time.perf_counter() + SCAN_SLICE
        while not view.step(SCAN_STEP):
            if time.perf_counter() >= deadline:
                return False
        return True

    @work(exclusive=True, group="message-log-filter")
    async def _scan(self, view: FilteredView) -> None:
        """Scan the rest of the source in time slices, yielding to the UI between them."""
        while view is self._lines.view and not self._scan_slice(view):
            self._lines.rows_changed()
            self._find_wanted()
            self._update_count()
            await asyncio.sleep(SCAN_PAUSE)
        if view is self._lines.view:
            self._lines.rows_changed()
            self._find_wanted()
            self._update_count()
            if self._cursor_when_scanned:
                self._cursor_on_a_row()

    def _update_count(self) -> None:
        view = self._lines.view
        total = len(self.source)
        if view is None:
            self._bar.set_count(total, total)
        else:
            self._bar.set_count(len(view), total, scanned=view.scanned)

    # -- events ---------------------------------------------------------------------

    def action_open_filter(self) -> None:
        self._bar.open()

    @on(LogFilterBar.Changed)
    def _filter_changed(self, event: LogFilterBar.Changed) -> None:
        self.set_filter(event.query)
        if event.submitted:
            self._lines.focus()
            self._cursor_on_a_row()

    def _cursor_on_a_row(self) -> None:
        """Enter in the filter goes to the rows: with the cursor on no match (none yet, or
        its event filtered out) the newest match gets it, as End does, so the next Enter
        opens its detail (no row was lit and Enter did nothing)."""
        lines = self._lines
        self._cursor_when_scanned = False
        if lines.cursor_row is not None:
            return
        if self.scanning:  # the newest match is not known yet (nor whether the cursor's is)
            self._cursor_when_scanned = True
        elif lines.row_count:
            lines.action_last()

    @on(LogFilterBar.Closed)
    def _filter_closed(self) -> None:
        self.set_filter("")
        self._lines.focus()
