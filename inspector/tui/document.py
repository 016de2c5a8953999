"""What a line-virtualized view shows: a document of sections, wrapped lazily at any width.

A ``Document`` is built on any thread (a worker formats a big payload) and shown on the
UI thread by ``DocumentView``, which asks only for the rows on screen:

- ``Block``: small rich content (a header, a panel, a short text) rendered whole with
  Rich at the current width, as a ``Static`` would, and cached for that width.
- ``Lines``: many lines (a 13 MB text, 2,000 lines of pretty JSON). Each line is wrapped
  at word boundaries (a word longer than the width is folded): a line that fits is one
  row, known from a histogram of cell lengths per block of lines; the rows of the longer
  ones are counted with one regular expression a block (C speed) for plain ASCII text, line
  by line otherwise. Only the blocks on screen are indexed line by line, and only the
  rows on screen are ever rendered. A big text is kept once, as the string it arrived in
  plus an array of line offsets.

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
from functools import lru_cache
from itertools import accumulate

from rich.cells import cell_len, get_character_cell_size
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
# lazy lines of at most this many cells in all are wrapped at word boundaries (a new width
# counts the rows of every long line: ~40 ms for 13 MB of prose at 80 columns); more are
# folded at the width, a new width then costing the same for any size
WORD_WRAP_CELLS = 16_000_000

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


@lru_cache(maxsize=16)
def _row_pattern(width: int) -> re.Pattern[str]:
    """One row of ASCII text at ``width``, as a regular expression (group 1, without the
    spaces at the break): the longest run of at most ``width`` characters that ends a
    word, else ``width`` characters of a longer word. Never crosses a newline."""
    # atomic and possessive: nothing after a row can fail, so nothing is tried again
    return re.compile(rf"((?>[^\n]{{0,{width - 1}}}[^\n ](?= |\n|$)|[^\n]{{1,{width}}})) *+")


@lru_cache(maxsize=16)
def _row_counter(width: int) -> re.Pattern[str]:
    """``_row_pattern`` whose ``findall`` gives an empty string a row (the one empty
    string, shared), not the row's text: rows are counted without a copy of the text (a
    block's rows of a 1 MB result were a megabyte of strings while they were counted)."""
    return re.compile(rf"(?>[^\n]{{0,{width - 1}}}[^\n ](?= |\n|$)|[^\n]{{1,{width}}}) *+()")


def wrap_spans(line: str, width: int) -> list[tuple[int, int]]:
    """The rows of ``line`` wrapped at ``width`` cells, as (start, end) cell offsets: at
    word boundaries (spaces), a word longer than the width folded. At least one row."""
    if line.isascii():  # a character a cell: the regular expression does it
        spans = [m.span(1) for m in _row_pattern(width).finditer(line)]
        return spans or [(0, 0)]
    cells = [0]  # cell offset of each character (wide characters take two)
    for char in line:
        cells.append(cells[-1] + get_character_cell_size(char))
    spans, pos, end = [], 0, len(line)
    while pos < end:
        # the most characters from pos that fit (at least one: a character wider than
        # the width still takes a row)
        fit = max(pos + 1, bisect_right(cells, cells[pos] + width, pos) - 1)
        if fit >= end:
            spans.append((cells[pos], cells[end]))
            break
        cut = next((k for k in range(fit, pos, -1) if line[k - 1] != " " and line[k] == " "), fit)
        spans.append((cells[pos], cells[cut]))
        pos = cut
        while pos < end and line[pos] == " ":
            pos += 1
    return spans or [(0, 0)]


class LineSource(ABC):
    """Logical lines (no newlines) with their cell lengths known in advance."""

    cells: Sequence[int]
    # the lines are the source's text between newlines, ASCII, a character a cell
    # (their rows can be counted a block at a time in ``text``)
    plain_ascii = False
    source: str = ""
    starts: Sequence[int] = ()
    ends: Sequence[int] = ()

    def __len__(self) -> int:
        return len(self.cells)

    @abstractmethod
    def strip(self, index: int, console: Console) -> Strip:
        """Line ``index``, unwrapped."""

    @abstractmethod
    def text(self, index: int) -> Text:
        """Line ``index`` as a Rich ``Text``."""

    @abstractmethod
    def plain(self, index: int) -> str:
        """Line ``index`` as shown, without styles (what is wrapped)."""


class StringLines(LineSource):
    """The lines of one big string, kept as it is: only offsets and cell lengths are added.

    Lines longer than ``PIECE`` characters are cut in pieces (a JSON text on one line
    stays cheap to show). Control characters are made visible as each line is shown."""

    def __init__(self, text: str, style: str | Style = "") -> None:
        self.source = text
        self.style = Style.parse(style) if isinstance(style, str) else style
        self.starts, self.ends = _line_bounds(text)
        lengths = array("I", map(int.__sub__, self.ends, self.starts))
        cut = max(lengths, default=0) > PIECE
        if cut:
            self.starts, self.ends = _cut_long_lines(self.starts, self.ends)
            lengths = array("I", map(int.__sub__, self.ends, self.starts))
        if text.isascii() and not any(ch in text for ch in _ASCII_SPECIAL):
            self.cells = lengths
            self.plain_ascii = not cut  # pieces are lines the text does not end
        else:  # what ``visible`` makes of a line, or wide characters: measured line by line
            self.cells = array("I", (cell_len(self.line(i)) for i in range(len(self.starts))))

    def line(self, index: int) -> str:
        """The line as shown: control characters visible, tabs expanded."""
        return visible(self.source[self.starts[index] : self.ends[index]], multiline=True)

    def strip(self, index: int, console: Console) -> Strip:
        return Strip([Segment(self.line(index), self.style)], self.cells[index])

    def text(self, index: int) -> Text:
        return Text(self.line(index), style=self.style, end="")

    def plain(self, index: int) -> str:
        return self.line(index)


class TextLines(LineSource):
    """Lines of a styled ``Text`` (pretty JSON), split once."""

    def __init__(self, text: Text) -> None:
        self.lines = text.split("\n", allow_blank=True)
        self.cells = array("I", (line.cell_len for line in self.lines))

    def strip(self, index: int, console: Console) -> Strip:
        return Strip(list(self.lines[index].render(console)), self.cells[index])

    def text(self, index: int) -> Text:
        return self.lines[index]

    def plain(self, index: int) -> str:
        return self.lines[index].plain


class Lines(Section):
    """Many lines, each wrapped at the width (``wrap_spans``); only the rows asked for are
    rendered.

    The lines are kept in blocks of ``BLOCK`` with a histogram of their cell lengths each:
    a line that fits the width is one row, so only the longer lines of a block are
    wrapped to count its rows at a new width, with one regular expression over the
    block's text when the text is plain ASCII (``LineSource.plain_ascii``), and only the
    blocks on screen are indexed line by line. Above ``WORD_WRAP_CELLS`` the lines are
    folded at the width instead: a block's rows then come from its histogram alone."""

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
        self._spans: LRUCache[tuple[int, int], list[tuple[int, int]]] = LRUCache(1024)
        self.word_wrap = sum(cells) <= WORD_WRAP_CELLS

    def spans(self, index: int, width: int) -> list[tuple[int, int]]:
        """Line ``index``'s rows at ``width`` (cell offsets)."""
        cells = self.source.cells[index]
        if cells <= width:
            return [(0, cells)]
        if not self.word_wrap:
            return [(at, min(at + width, cells)) for at in range(0, cells, width)]
        key = (index, width)
        spans = self._spans.get(key)
        if spans is None:
            spans = self._spans[key] = wrap_spans(self.source.plain(index), width)
        return spans

    def _line_rows(self, index: int, cells: int, width: int) -> int:
        if cells <= width:
            return 1
        if not self.word_wrap:
            return (cells + width - 1) // width
        # counted, not kept: the cache is for the rows drawn (a block's thousand counted
        # lines held a third of a 1 MB result's size)
        spans = self._spans.get((index, width))
        return len(spans if spans is not None else wrap_spans(self.source.plain(index), width))

    def _block_rows(self, block: int, width: int) -> int:
        """The rows of ``block`` at ``width``."""
        hist = self._hists[block]
        if not self.word_wrap:  # folded: from the histogram alone
            less = width - 1
            return sum(count * ((cells + less) // width or 1) for cells, count in hist)
        fitting = sum(count for cells, count in hist if cells <= width)
        if all(cells <= width for cells, _ in hist):
            return fitting
        first = block * BLOCK
        last = min(first + BLOCK, len(self.source)) - 1
        source = self.source
        if source.plain_ascii:  # one pass of the regular expression over the block's text
            empty = sum(count for cells, count in hist if cells == 0)
            text, start, end = source.source, source.starts[first], source.ends[last]
            return empty + len(_row_counter(width).findall(text, start, end))
        cells = source.cells
        return fitting + sum(
            self._line_rows(index, cells[index], width)
            for index in range(first, last + 1)
            if cells[index] > width
        )

    def block_starts(self, width: int) -> array[int]:
        """The first row of each block at ``width``, then the height."""
        starts = self._starts.get(width)
        if starts is None:
            rows = (self._block_rows(block, width) for block in range(len(self._hists)))
            starts = array("Q", [0])
            starts.extend(accumulate(rows))
            self._starts[width] = starts
        return starts

    def _block_ends(self, block: int, width: int) -> array[int]:
        """For each line of ``block``, the row after its last one, from the block's first."""
        ends = self._ends.get((width, block))
        if ends is None:
            first = block * BLOCK
            cells = self.source.cells[first : first + BLOCK]
            rows = (self._line_rows(first + i, c, width) for i, c in enumerate(cells))
            ends = array("I", accumulate(rows))
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
        start, end = self.spans(index, width)[row - first]
        return strip.crop(start, end)

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
