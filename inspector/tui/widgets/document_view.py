"""A line-virtualized view of a ``Document``, and the formatter that builds one off the UI
thread when the payload is big. The result view and the event detail both show what they
show through these two.

``DocumentView`` is a Line API ``ScrollView`` (like the message log and
Textualize/toolong): it renders only the rows on screen, caches them per width, and a
resize only re-indexes the lazy sections (no text is wrapped that is not shown).

``Formatter`` runs a build function at once for a small payload (no flicker) or in a
thread worker for one bigger than ``THREAD_BYTES``. One worker at a time: a request made
while one runs is queued (only the newest), and a result that is no longer wanted is
dropped.
"""

from __future__ import annotations

import contextlib
import ctypes
import functools
import sys
import threading
from collections.abc import Callable, Iterator
from typing import Any, ClassVar, Generic, TypeVar

from rich.style import Style
from rich.terminal_theme import DEFAULT_TERMINAL_THEME
from rich.text import Text
from textual.binding import Binding, BindingType
from textual.cache import LRUCache
from textual.filter import ANSIToTruecolor
from textual.geometry import Size
from textual.scroll_view import ScrollView
from textual.strip import Strip
from textual.widget import Widget

from inspector.safe_text import visible
from inspector.tui.document import Document

TURN = 0.0005  # seconds a thread holds the GIL before the other may take it, while formatting
THREAD_BYTES = 256 * 1024  # bigger payloads are formatted off the UI thread (~15 ms at this size)

T = TypeVar("T")


class DocumentView(ScrollView, can_focus=True):
    """Shows a ``Document``; ``show_document`` replaces it."""

    DEFAULT_CSS = """
    DocumentView { overflow-x: hidden; overflow-y: auto; height: 1fr; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("up", "scroll_up", "Up", show=False),
        Binding("down", "scroll_down", "Down", show=False),
        Binding("pageup", "page_up", "Page up", show=False),
        Binding("pagedown", "page_down", "Page down", show=False),
        Binding("home", "scroll_home", "Top", show=False),
        Binding("end", "scroll_end", "Bottom", show=False),
    ]

    def __init__(self, *, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(id=id, classes=classes)
        self.document = Document()
        self.wrap_width = 0  # the width the document is laid out at
        self._rows: LRUCache[tuple[int, int], Strip] = LRUCache(1024)  # (row, width) -> strip
        self._base_style = Style()
        self._pad_style = Style()
        self._ansi_theme: Any = None
        self._ansi = ANSIToTruecolor(DEFAULT_TERMINAL_THEME)
        self.rendered_rows = 0  # rows rendered since the last document (tests, the bench)

    def show_document(self, document: Document, *, home: bool = True) -> None:
        """Show ``document`` (from the top unless ``home`` is False)."""
        self.document = document
        self._rows.clear()
        self.rendered_rows = 0
        self.wrap_width = 0
        self._layout()
        if home:
            self.scroll_to(0, 0, animate=False, immediate=True)
        self.refresh()
        self.document_shown()

    def document_shown(self) -> None:
        """Called after each new document is laid out (a hook for containers)."""

    def show_message(self, text: str, style: str = "dim") -> None:
        """A short line of our own (a status, a hint), which may quote what is not ours (a
        target's command, a path, an error): control characters are made visible."""
        self.show_document(Document.of(Text(visible(text, multiline=True), style=style)))

    @property
    def content_height(self) -> int:
        """Rows the document takes at the current width."""
        return self.virtual_size.height

    def height_at(self, width: int) -> int:
        """Rows the document would take in a view ``width`` cells wide, gutter included
        (no scrollbar: a document that needs one is taller than its view anyway)."""
        return self.document.height(max(1, width - self.styles.gutter.width), self.app.console)

    # -- layout ----------------------------------------------------------------------

    def _layout(self) -> None:
        """Index the document for the current width (a vertical scrollbar takes room
        only when the document is taller than the view)."""
        region = self.content_region
        if region.width <= 0:
            return
        console = self.app.console
        width = region.width
        height = self.document.height(width, console)
        if height > region.height and self.styles.overflow_y != "hidden":
            width = max(1, width - self.styles.scrollbar_size_vertical)
            height = self.document.height(width, console)
        if width != self.wrap_width or self.virtual_size.height != height:
            self.wrap_width = width
            self.virtual_size = Size(width, height)
            self.refresh()

    def on_resize(self) -> None:
        self._layout()

    def fit_to(self, width: int, least: int, most: int) -> None:
        """Index the document for a view ``width`` cells wide (gutter included) that will
        get between ``least`` and ``most`` rows, before a layout places it: a parent that
        knows the view's new width calls this from its ``arrange``, so the layout under
        way sets the scrollbar and the first frame draws the rows wrapped at the new
        width. When the rows cannot tell whether a scrollbar is needed, ``on_resize``
        decides (after the layout)."""
        console = self.app.console
        wrap = width - self.styles.gutter.width
        if wrap <= 1:
            return
        rows = self.document.height(wrap, console)
        if rows > least - self.styles.gutter.height:
            if self.styles.overflow_y == "hidden":
                return
            wrap = max(1, wrap - self.styles.scrollbar_size_vertical)
            rows = self.document.height(wrap, console)
            if rows <= most - self.styles.gutter.height:
                return  # it may fit, or not: on_resize knows
        if wrap != self.wrap_width or self.virtual_size.height != rows:
            self.wrap_width = wrap
            # no refresh: the layout under way places the view with this size
            self.set_reactive(Widget.virtual_size, Size(wrap, rows))

    def render_lines(self, crop: Any) -> list[Strip]:
        base = self.rich_style  # looked up once per paint, not once per row
        theme = self.app.ansi_theme
        if base != self._base_style or theme is not self._ansi_theme:
            # ANSI colours ("cyan") through the app's theme, as a Static shows them
            self._ansi_theme, self._ansi = theme, ANSIToTruecolor(theme)
            self._base_style = base
            self._pad_style = Style(bgcolor=base.bgcolor)  # what a Static pads with
            self._rows.clear()
        if self.wrap_width == 0:
            self._layout()
        return super().render_lines(crop)

    def render_line(self, y: int) -> Strip:
        width = self.scrollable_content_region.width
        wrap = self.wrap_width
        row = self.scroll_offset.y + y
        if width <= 0 or wrap <= 0 or row >= self.virtual_size.height:
            return Strip.blank(max(width, 0), self._pad_style)
        key = (row, wrap)
        strip = self._rows.get(key)
        if strip is None:
            self.rendered_rows += 1
            strip = self.document.row(row, wrap, self.app.console)
            strip = strip.apply_filter(self._ansi, self.background_colors[1])
            strip = strip.apply_style(self._base_style)
            self._rows[key] = strip
        return strip.crop_extend(0, width, self._pad_style)

    # -- keys --------------------------------------------------------------------------

    def action_page_up(self) -> None:
        self.scroll_page_up(animate=False)

    def action_page_down(self) -> None:
        self.scroll_page_down(animate=False)

    def action_scroll_home(self) -> None:
        self.scroll_home(animate=False)

    def action_scroll_end(self) -> None:
        self.scroll_end(animate=False)


@functools.cache
def _malloc_trim() -> Callable[[int], int] | None:
    try:
        return ctypes.CDLL("libc.so.6").malloc_trim
    except (OSError, AttributeError):  # not glibc
        return None


def release_memory() -> None:
    """Give the memory freed by a big payload's temporaries back to the system.

    glibc raises its mmap threshold after a big block is freed, so the next
    temporaries of that size (the decoded frame, the parsed JSON) come from the heap
    and stay in the process once freed: a 13 MB result left ~2x its size resident for
    nothing. ``malloc_trim`` returns that free heap; elsewhere this does nothing."""
    trim = _malloc_trim()
    if trim is not None:
        trim(0)


class _ShortTurns:
    """While any worker formats, threads take turns with the GIL every ``TURN`` seconds
    instead of 5 ms: each step of the UI's event loop waits for a turn, and a key takes
    dozens of steps (a 12 MB result's formatting made a key wait 0.6 s). Counted, so
    two workers at once (the result and the detail pane) restore it once, at the end."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._active = 0
        self._saved = sys.getswitchinterval()

    @contextlib.contextmanager
    def __call__(self) -> Iterator[None]:
        with self._lock:
            if not self._active:
                self._saved = sys.getswitchinterval()
                sys.setswitchinterval(min(self._saved, TURN))
            self._active += 1
        try:
            yield
        finally:
            with self._lock:
                self._active -= 1
                if not self._active:
                    sys.setswitchinterval(self._saved)


short_turns = _ShortTurns()


class Formatter(Generic[T]):
    """Builds what a view shows: small payloads at once, big ones in a thread worker.

    ``apply`` receives a build's result on the UI thread; ``failed`` a message when a
    build raised. Requests are numbered: only the newest one's result is applied."""

    def __init__(
        self,
        owner: Widget,
        apply: Callable[[T], None],
        failed: Callable[[str], None],
        *,
        group: str,
    ) -> None:
        self.owner = owner
        self.apply = apply
        self.failed = failed
        self.group = group
        self.generation = 0
        self.running = False  # a worker is building
        self._running_generation = 0  # the request it builds
        self._queued: tuple[int, Callable[[], T]] | None = None  # the newest big one waiting

    @property
    def pending(self) -> bool:
        """The newest request is still being built."""
        return self._queued is not None or (
            self.running and self._running_generation == self.generation
        )

    def submit(self, build: Callable[[], T], size: int) -> bool:
        """Build and apply; True when done at once (``size`` at most ``THREAD_BYTES``)."""
        self.generation += 1
        if size <= THREAD_BYTES:
            self._queued = None
            self.apply(build())
            return True
        self._queued = (self.generation, build)
        if not self.running:
            self._next()
        return False

    def cancel(self) -> None:
        """Whatever is being built is no longer wanted."""
        self.generation += 1
        self._queued = None

    def _next(self) -> None:
        job, self._queued = self._queued, None
        if job is None:
            return
        self.running = True
        self._running_generation = job[0]
        self.owner.run_worker(
            lambda: self._build(*job), thread=True, group=self.group, exit_on_error=False
        )

    def _build(self, generation: int, build: Callable[[], T]) -> None:
        result: T | str
        ok = True
        try:
            with short_turns():
                result = build()
        except Exception as exc:  # a source that failed under us: say so, stay usable
            ok, result = False, f"could not format this: {exc!r}"
        release_memory()
        with contextlib.suppress(RuntimeError):  # the app is closing
            self.owner.app.call_from_thread(self._built, generation, ok, result)

    def _built(self, generation: int, ok: bool, result: Any) -> None:
        self.running = False
        if generation == self.generation:
            if ok:
                self.apply(result)
            else:
                self.failed(result)
        self._next()  # a newer big request may be waiting
