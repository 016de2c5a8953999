"""What a line-virtualized view shows: a document of sections, wrapped lazily at any width.

A ``Document`` is built on any thread (a worker formats a big payload) and shown on the
UI thread by ``DocumentView``, which asks only for the rows on screen:

- ``Block``: small rich content (a header, a panel, a short text) rendered whole with
  Rich at the current width, as a ``Static`` would, and cached for that width.
- ``Lines``: many lines (a 13 MB text, 2,000 lines of pretty JSON). Each line is folded
  at the width, so its height is its cell length divided by the width: a new width sums
  a histogram of cell lengths per block of lines (the cost does not grow with the
  text), indexes line by line only the blocks on screen, and only the rows on screen
  are ever rendered. A big text is kept once, as
  the string it arrived in plus an array of line offsets.

``DocBuilder`` turns parts into sections: small parts are grouped into blocks, a body
with more than ``LAZY_LINES`` lines or ``LAZY_CHARS`` characters becomes lazy lines.
"""

from __future__ import annotations

import re
from abc import ABC, abstractmethod
from array import array
from bisect import bisect_right
from collections import Counter
from collections.abc import Iterable, Sequence
from itertools import accumulate

from rich.cells import cell_len
from rich.console import Console, ConsoleOptions, Group, RenderableType, RenderResult
from rich.segment import Segment
from rich.style import Style
from rich.text import Text
from textual.cache import LRUCache
from textual.strip import Strip

from inspector.safe_text import visible

LAZY_LINES = 400  # a body with more lines is wrapped lazily (Rich takes ~30 ms for 400)
LAZY_CHARS = 64_000  # ... or with more characters
PIECE = 4_096  # a longer line is cut in pieces of this many characters (a 13 MB JSON line)
BLOCK = 4_096  # lines a block: a new width indexes only the blocks on screen line by line
WIDTHS_KEPT = 4  # row indexes kept per section (the pane, the zoomed pane, the screen)

# The ASCII characters ``visible`` changes (newlines end lines): an ASCII text without them
# shows as it is, one cell a character (each is looked for with one memchr).
_ASCII_SPECIAL = [chr(c) for c in (*range(0x0A), *range(0x0B, 0x20), 0x7F)]
_NEWLINE = re.compile("\n")


class Section(ABC):
    """Rows of a document; everything is asked for one width at a time."""

    @abstractmethod
    def height(self, width: int, console: Console) -> int:
        """Rows at ``width``."""

    @abstractmethod
    def row(self, row: int, width: int, console: Console) -> Strip:
        """Row ``row`` (0-based, < ``height(width)``), without the view's base style."""

    @abstractmethod
    def renderables(self) -> Iterable[RenderableType]:
        """The content for Rich (tests and plain-text export read a document this way)."""


class Block(Section):
    """Small rich content, rendered whole at each width (cached for the last one)."""

    def __init__(self, renderable: RenderableType) -> None:
        self.renderable = renderable
        self._width = -1
        self._strips: list[Strip] = []

    def _render(self, width: int, console: Console) -> list[Strip]:
        if width != self._width:
            options = console.options.update(width=width, height=None)
            lines = console.render_lines(self.renderable, options, pad=False)
            self._strips = [Strip(line) for line in lines]
            self._width = width
        return self._strips

    def height(self, width: int, console: Console) -> int:
        return len(self._render(width, console))

    def row(self, row: int, width: int, console: Console) -> Strip:
        return self._render(width, console)[row]

    def renderables(self) -> Iterable[RenderableType]:
        yield self.renderable


class LineSource(ABC):
    """Logical lines (no newlines) with their cell lengths known in advance."""

    cells: Sequence[int]

    def __len__(self) -> int:
        return len(self.cells)

    @abstractmethod
    def strip(self, index: int, console: Console) -> Strip:
        """Line ``index``, unwrapped."""

    @abstractmethod
    def text(self, index: int) -> Text:
        """Line ``index`` as a Rich ``Text``."""


class StringLines(LineSource):
    """The lines of one big string, kept as it is: only offsets and cell lengths are added.

    Lines longer than ``PIECE`` characters are cut in pieces (a JSON text on one line
    stays cheap to show). Control characters are made visible as each line is shown."""

    def __init__(self, text: str, style: str | Style = "") -> None:
        self.source = text
        self.style = Style.parse(style) if isinstance(style, str) else style
        self.starts, self.ends = _line_bounds(text)
        lengths = array("I", map(int.__sub__, self.ends, self.starts))
        if max(lengths, default=0) > PIECE:
            self.starts, self.ends = _cut_long_lines(self.starts, self.ends)
            lengths = array("I", map(int.__sub__, self.ends, self.starts))
        if text.isascii() and not any(ch in text for ch in _ASCII_SPECIAL):
            self.cells = lengths
        else:  # what ``visible`` makes of a line, or wide characters: measured line by line
            self.cells = array("I", (cell_len(self.line(i)) for i in range(len(self.starts))))

    def line(self, index: int) -> str:
        """The line as shown: control characters visible, tabs expanded."""
        return visible(self.source[self.starts[index] : self.ends[index]], multiline=True)

    def strip(self, index: int, console: Console) -> Strip:
        return Strip([Segment(self.line(index), self.style)], self.cells[index])

    def text(self, index: int) -> Text:
        return Text(self.line(index), style=self.style, end="")


class TextLines(LineSource):
    """Lines of a styled ``Text`` (pretty JSON), split once."""

    def __init__(self, text: Text) -> None:
        self.lines = text.split("\n", allow_blank=True)
        self.cells = array("I", (line.cell_len for line in self.lines))

    def strip(self, index: int, console: Console) -> Strip:
        return Strip(list(self.lines[index].render(console)), self.cells[index])

    def text(self, index: int) -> Text:
        return self.lines[index]


class Lines(Section):
    """Many lines, each folded at the width; only the rows asked for are rendered.

    A new width costs the same for 1,000 lines or 1,000,000 (a resize): the lines are
    kept in blocks of ``BLOCK`` with a histogram of their cell lengths each (lines are
    at most ``PIECE`` cells, so a block has few distinct lengths), so a block's rows at a
    width come from its histogram, and only the blocks on screen are indexed line by
    line."""

    def __init__(self, source: LineSource) -> None:
        self.source = source
        cells = source.cells
        # Counter over an array slice counts in C: ~10 ms a million lines, built once
        self._hists = [
            list(Counter(cells[at : at + BLOCK]).items()) for at in range(0, len(cells), BLOCK)
        ]
        self._starts: LRUCache[int, array[int]] = LRUCache(WIDTHS_KEPT)  # width -> block rows
        self._ends: LRUCache[tuple[int, int], array[int]] = LRUCache(64)  # (width, block)
        self._strips: LRUCache[int, Strip] = LRUCache(256)  # line -> unwrapped strip

    def block_starts(self, width: int) -> array[int]:
        """The first row of each block at ``width``, then the height."""
        starts = self._starts.get(width)
        if starts is None:
            less = width - 1
            rows = (
                sum(count * ((cells + less) // width or 1) for cells, count in hist)
                for hist in self._hists
            )
            starts = array("Q", [0])
            starts.extend(accumulate(rows))
            self._starts[width] = starts
        return starts

    def _block_ends(self, block: int, width: int) -> array[int]:
        """For each line of ``block``, the row after its last one, from the block's first."""
        ends = self._ends.get((width, block))
        if ends is None:
            less = width - 1
            cells = self.source.cells[block * BLOCK : (block + 1) * BLOCK]
            ends = array("I", accumulate((c + less) // width or 1 for c in cells))
            self._ends[width, block] = ends
        return ends

    def height(self, width: int, console: Console) -> int:
        return self.block_starts(width)[-1]

    def row(self, row: int, width: int, console: Console) -> Strip:
        starts = self.block_starts(width)
        block = bisect_right(starts, row) - 1
        ends = self._block_ends(block, width)
        local = bisect_right(ends, row - starts[block])
        first = starts[block] + (ends[local - 1] if local else 0)
        index = block * BLOCK + local
        strip = self._strips.get(index)
        if strip is None:
            strip = self._strips[index] = self.source.strip(index, console)
        start = (row - first) * width
        return strip.crop(start, start + width)

    def renderables(self) -> Iterable[RenderableType]:
        for index in range(len(self.source)):
            yield self.source.text(index)


class Document:
    """Sections one under the other; a Rich renderable too (tests print it)."""

    def __init__(self, sections: Sequence[Section] = ()) -> None:
        self.sections = list(sections)
        self._starts: LRUCache[int, list[int]] = LRUCache(WIDTHS_KEPT)

    @classmethod
    def of(cls, *parts: RenderableType) -> Document:
        builder = DocBuilder()
        builder.add(*parts)
        return builder.build()

    def _section_starts(self, width: int, console: Console) -> list[int]:
        starts = self._starts.get(width)
        if starts is None:
            starts = [0]
            for section in self.sections:
                starts.append(starts[-1] + section.height(width, console))
            self._starts[width] = starts
        return starts

    def height(self, width: int, console: Console) -> int:
        return self._section_starts(width, console)[-1]

    def row(self, row: int, width: int, console: Console) -> Strip:
        starts = self._section_starts(width, console)
        if not 0 <= row < starts[-1]:
            return Strip.blank(width)
        index = bisect_right(starts, row) - 1
        return self.sections[index].row(row - starts[index], width, console)

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        for section in self.sections:
            for renderable in section.renderables():
                if isinstance(renderable, Text):
                    renderable = renderable.copy()
                    renderable.end = "\n"
                yield renderable


def stack(*parts: RenderableType) -> Group:
    """A Group whose Text parts each end their line (``safe_text`` makes ``end=""``)."""
    for part in parts:
        if isinstance(part, Text):
            part.end = "\n"
    return Group(*parts)


class DocBuilder:
    """Collects parts in order: small ones grouped into blocks, big bodies as lazy lines."""

    def __init__(self) -> None:
        self.sections: list[Section] = []
        self._parts: list[RenderableType] = []

    def add(self, *parts: RenderableType) -> None:
        """Small rich parts (each on its own lines)."""
        self._parts.extend(parts)

    def section(self, *parts: RenderableType) -> int:
        """Small parts in a section of their own (to be replaced later); its index."""
        self._flush()
        self.sections.append(Block(stack(*parts)))
        return len(self.sections) - 1

    def add_text(self, text: str, style: str | Style = "") -> None:
        """Server text, shown literally (multi-line); lazily when big."""
        if is_big(text):
            self._lines(StringLines(text, style))
        else:
            self._parts.append(Text(visible(text, multiline=True), style=style, end=""))

    def add_rich(self, text: Text) -> None:
        """A styled text (pretty JSON); lazily when big."""
        if is_big(text.plain):
            self._lines(TextLines(text))
        else:
            self._parts.append(text)

    def _lines(self, source: LineSource) -> None:
        self._flush()
        self.sections.append(Lines(source))

    def _flush(self) -> None:
        if self._parts:
            self.sections.append(Block(stack(*self._parts)))
            self._parts = []

    def build(self) -> Document:
        self._flush()
        return Document(self.sections)


def is_big(text: str) -> bool:
    """More than ``LAZY_CHARS`` characters or ``LAZY_LINES`` lines."""
    return len(text) > LAZY_CHARS or text.count("\n") > LAZY_LINES


def _line_bounds(text: str) -> tuple[array[int], array[int]]:
    """Start and end offsets of each line (without its newline, or ``\\r\\n``).
    Mostly C loops: 400,000 lines in ~0.1 s."""
    code = "I" if len(text) < 1 << 32 else "Q"  # 4 bytes an offset below 4 GB
    ends: array[int] = array(code, (match.start() for match in _NEWLINE.finditer(text)))
    starts: array[int] = array(code, [0])
    starts.extend(end + 1 for end in ends)
    if starts[-1] < len(text) or len(starts) == 1:
        ends.append(len(text))  # the last line, when no newline ends it
    else:
        starts.pop()
    if "\r" in text:  # "\r\n" ends a line too
        for i, end in enumerate(ends):
            if starts[i] < end < len(text) and text[end - 1] == "\r":
                ends[i] = end - 1
    return starts, ends


def _cut_long_lines(starts: array[int], ends: array[int]) -> tuple[array[int], array[int]]:
    """Lines longer than ``PIECE`` cut in pieces (a JSON text on one line stays cheap)."""
    cut_starts: array[int] = array(starts.typecode)
    cut_ends: array[int] = array(ends.typecode)
    for start, end in zip(starts, ends, strict=True):
        while end - start > PIECE:
            cut_starts.append(start)
            cut_ends.append(start + PIECE)
            start += PIECE
        cut_starts.append(start)
        cut_ends.append(end)
    return cut_starts, cut_ends
