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

from rich.cells import cell_len, set_cell_size
from rich.segment import Segment
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
from inspector.tui.widgets.log_filter import LogFilterBar
from inspector.wire.events import SERVER_KEY, Channel, Direction, Kind, WireEvent

SCAN_STEP = 4_000  # events per filter step
SCAN_SLICE = 0.008  # seconds of filter steps before yielding to the UI
# A real pause, not sleep(0): a key press hops App -> Screen -> widget, one loop turn each.
SCAN_PAUSE = 0.002
SYNC_SCAN_LIMIT = 5_000  # new events filtered inline on append (more: in the worker)
GROW_EVERY = 0.2  # seconds between two re-sizes of the log as it grows (a flood's batches)
BIG_FRAME = 64 * 1024  # a frame this big is summarized as it arrives, parsed

ARROWS = {Direction.OUT: "→", Direction.IN: "←", Direction.LOCAL: "·"}
BADGES: dict[Kind, tuple[str, Style]] = {
    Kind.REQUEST: ("REQ", Style(color="black", bgcolor="#5fafff")),
    Kind.RESPONSE: ("RES", Style(color="black", bgcolor="#5fd75f")),
    Kind.ERROR: ("ERROR", Style(color="white", bgcolor="#d70000", bold=True)),
    Kind.NOTIFICATION: ("NOTIF", Style(color="black", bgcolor="#d787ff")),
    Kind.BATCH: ("BATCH", Style(color="black", bgcolor="#ffd75f")),
    Kind.INVALID: ("INVALID", Style(color="white", bgcolor="#af005f", bold=True)),
    Kind.STDERR: ("STDERR", Style(color="black", bgcolor="#ffaf00")),
    Kind.HTTP: ("HTTP", Style(color="black", bgcolor="#5fafaf")),
    Kind.SYSTEM: ("SYS", Style(color="white", bgcolor="#585858")),
}
AUTH_BADGE = ("AUTH", Style(color="black", bgcolor="#d7af5f"))  # OAuth exchanges (ch:auth)
BADGE_WIDTH = 9
ARROW_STYLES = {
    Direction.OUT: Style(color="#5fafff", bold=True),
    Direction.IN: Style(color="#5fd75f", bold=True),
    Direction.LOCAL: Style(color="#808080"),
}
DIM = Style(color="#808080")
METHOD_STYLE = Style(color="#87d7ff")
ID_STYLE = Style(color="#d7af5f")
SERVER_STYLE = Style(color="#d7afff", bold=True)
SERVER_WIDTH = 12  # a workspace's merged log: the server column (longer names are cut)
LATENCY_STYLE = Style(color="#afaf87")
SLOW_STYLE = Style(color="#ff8700", bold=True)
FINDING = ("⚠", Style(color="#ffaf00", bold=True))
SUMMARY_STYLES = {
    Kind.ERROR: Style(color="#ff5f5f"),
    Kind.INVALID: Style(color="#ff5f87"),
    Kind.STDERR: Style(color="#ffd787"),
    Kind.SYSTEM: Style(color="#a8a8a8", italic=True),
}


def format_latency(ms: float) -> str:
    if ms < 1:
        return f"{ms:.2f}ms"
    if ms < 1000:
        return f"{ms:.0f}ms"
    return f"{ms / 1000:.1f}s" if ms < 60_000 else f"{ms / 60_000:.0f}m"


def format_offset(seconds: float) -> str:
    """Relative time from the first event: ``12.345`` or ``1:02:03.4``."""
    if seconds < 10_000:
        return f"{seconds:.3f}"
    h, rest = divmod(seconds, 3600)
    m, s = divmod(rest, 60)
    return f"{h:.0f}:{m:02.0f}:{s:04.1f}"


def _cell(text: str, width: int, style: Style | None = None, *, right: bool = False) -> Segment:
    """``text`` in exactly ``width`` cells (cut with … when too long)."""
    if width <= 0:
        return Segment("")
    length = cell_len(text)
    if length > width:
        text = set_cell_size(text, width - 1) + "…" if width > 1 else "…"
    elif length < width:
        text = " " * (width - length) + text if right else text + " " * (width - length)
    return Segment(text, style)


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
        src = self.source
        kind = src.kind(index)
        direction = src.direction(index)
        summary = self.summary(index)
        seq = src.seq(index) or index + 1
        offset = src.time(index) - src.time(0)
        method = src.method(index) or summary.method
        latency = src.latency_ms(index) if kind in (Kind.RESPONSE, Kind.ERROR) else None
        label, badge_style = BADGES.get(kind, (kind.value.upper(), DIM))
        if kind is Kind.HTTP and src.channel(index) is Channel.AUTH:
            label, badge_style = AUTH_BADGE
        segs = [
            _cell(str(seq), self._seq_width, DIM, right=True),
            Segment(" "),
            _cell(format_offset(max(offset, 0.0)), 9, DIM, right=True),
            Segment(" "),
            Segment(ARROWS.get(direction, "?"), ARROW_STYLES.get(direction)),
            Segment(" "),
            _cell(label.center(BADGE_WIDTH - 1), BADGE_WIDTH - 1, badge_style),
            Segment(" "),
        ]
        used = self._seq_width + 1 + 9 + 1 + 1 + 1 + BADGE_WIDTH
        if self.server_width:
            name = self._server_of(index)
            segs += [_cell(name, self.server_width, SERVER_STYLE), Segment(" ")]
            used += self.server_width + 1
        tail_width = 10  # latency (8) + marker (2)
        rest = width - used - tail_width
        method_width = min(28, max(0, rest // 3))
        id_width = 6 if rest > 40 else 0
        summary_width = max(0, rest - method_width - id_width - 2)
        segs.append(_cell(visible(method), method_width, METHOD_STYLE))
        segs.append(Segment(" "))
        if id_width:
            segs.append(_cell(visible(summary.id), id_width, ID_STYLE, right=True))
            segs.append(Segment(" "))
        segs.append(_cell(visible(summary.text), summary_width, SUMMARY_STYLES.get(kind)))
        lat_text = format_latency(latency) if latency is not None else ""
        slow = latency is not None and latency >= 1000
        segs.append(_cell(lat_text, 8, SLOW_STYLE if slow else LATENCY_STYLE, right=True))
        mark, mark_style = FINDING if src.has_findings(index) else (" ", None)
        segs.append(Segment(" "))
        segs.append(Segment(mark, mark_style))
        return Strip(segs).crop_extend(0, width, None)

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
        """Move the cursor to event ``index`` (or the nearest shown event before it)."""
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
