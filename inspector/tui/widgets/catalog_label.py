"""One catalog row: the item's head (title, name, URI, badges) and its description.

Both wrap at word boundaries with a hanging indent (what continues a row is indented
under its first line), and the description stops after ``DESCRIPTION_LINES`` lines
with an ellipsis, never silently. Matched characters of a filter are highlighted.

A row is a Textual ``Visual`` so an ``OptionList`` asks it for its height without
rendering it: where the lines break depends only on the text and the width, so it is
worked out once per item and width (``Entry.lines``) and shared by every filtered list
built while typing; only the rows on screen are ever rendered.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from rich.cells import cell_len
from rich.segment import Segment
from rich.style import Style as RichStyle
from textual.css.styles import RulesMap
from textual.strip import Strip
from textual.style import Style
from textual.visual import RenderOptions, Visual

from inspector.safe_text import visible
from inspector.tui.fuzzy import Haystack

DESCRIPTION_LINES = 2
DESCRIPTION_CHARS = 1_000  # of a description kept for the list (and matched against)
INDENT = 2
LOOSE_FIELDS = ("description",)  # matched as substrings only (see inspector.tui.fuzzy)
MATCH_STYLE = RichStyle(bold=True, underline=True, color="#ffd75f", dim=False)
DIM = RichStyle(dim=True)
_WORD = re.compile(r"\S+\s*")


def wrap(text: str, width: int, first: int | None = None) -> list[tuple[int, int]]:
    """``(start, end)`` of each line of ``text`` word-wrapped to ``width`` cells (the first
    line to ``first``); a word longer than a line is cut where the line ends."""
    lines: list[tuple[int, int]] = []
    room = width if first is None else first
    start = used = 0  # where the current line starts, and the cells it has so far
    for m in _WORD.finditer(text):
        pos, seen = m.start(), m.start() + len(m.group().rstrip())
        if used and used + cell_len(text[pos:seen]) > room:  # on to the next line
            lines.append((start, pos))
            start, used, room = pos, 0, width
        while not used and cell_len(text[pos:seen]) > room:  # longer than a line: cut
            cut = pos + _fit(text[pos:seen], room)
            lines.append((start, cut))
            start = pos = cut
            room = width
        used += cell_len(text[pos : m.end()])
    if start < len(text) or not lines:
        lines.append((start, len(text)))
    return lines


def _fit(text: str, cells: int) -> int:
    """How many characters of ``text`` fit in ``cells`` (at least one)."""
    used = 0
    for n, char in enumerate(text):
        used += cell_len(char)
        if used > cells:
            return max(n, 1)
    return len(text)


@dataclass(frozen=True, slots=True)
class Piece:
    """Part of the head: a separator, then the text of a field (matches are highlighted
    in it) in its style."""

    lead: str
    text: str
    style: str
    field: str | None = None


@dataclass(slots=True)
class Entry:
    """What one catalog item shows and is matched on; line breaks cached per width."""

    head: tuple[Piece, ...]
    description: str
    fields: dict[str, str]
    haystack: Haystack
    _lines: dict[int, tuple[list[tuple[int, int]], list[tuple[int, int]], bool]] = field(
        default_factory=dict
    )

    @property
    def head_text(self) -> str:
        return "".join(p.lead + p.text for p in self.head)

    def lines(self, width: int) -> tuple[list[tuple[int, int]], list[tuple[int, int]], bool]:
        """Head lines, description lines (both as spans) and whether it was cut."""
        found = self._lines.get(width)
        if found is None:
            inner = max(1, width - INDENT)
            head = wrap(self.head_text, inner, first=max(1, width))
            body = wrap(self.description, inner) if self.description else []
            cut = len(body) > DESCRIPTION_LINES
            found = self._lines[width] = (head, body[:DESCRIPTION_LINES], cut)
        return found


def clean(text: str, limit: int = DESCRIPTION_CHARS) -> str:
    """Server text for one row: whitespace runs as one space, controls made visible,
    at most ``limit`` characters (then "…": never cut without saying so)."""
    shown = visible(" ".join(text[:limit].split()))
    return shown + "…" if len(text) > limit else shown


class CatalogLabel(Visual):
    """The row of one item, with the filter's matches (positions per field) highlighted."""

    def __init__(self, entry: Entry, matches: Mapping[str, tuple[int, ...]] | None = None):
        self.entry = entry
        self.matches = matches or {}

    def _head_runs(self) -> list[Run]:
        runs: list[Run] = []
        at = 0
        for piece in self.entry.head:
            if piece.lead:
                runs.append((at, at + len(piece.lead), None))
                at += len(piece.lead)
            matched = self.matches.get(piece.field or "", ())
            runs += _runs(at, len(piece.text), RichStyle.parse(piece.style), matched)
            at += len(piece.text)
        return runs

    def _description_runs(self) -> list[Run]:
        matched = self.matches.get("description", ())
        return _runs(0, len(self.entry.description), DIM, matched)

    def get_optimal_width(self, rules: RulesMap, container_width: int) -> int:
        return max(cell_len(self.entry.head_text), INDENT + cell_len(self.entry.description))

    def get_height(self, rules: RulesMap, width: int) -> int:
        head, body, _ = self.entry.lines(width)
        return len(head) + len(body)

    def render_strips(
        self, width: int, height: int | None, style: Style, options: RenderOptions
    ) -> list[Strip]:
        base = style.rich_style
        head_spans, body_spans, cut = self.entry.lines(width)
        head, head_runs = self.entry.head_text, self._head_runs()
        rows = [
            [Segment(" " * INDENT)] * bool(n) + _segments(head, head_runs, a, b)
            for n, (a, b) in enumerate(head_spans)
        ]
        body, body_runs = self.entry.description, self._description_runs()
        for n, (a, b) in enumerate(body_spans):
            end = a + len(body[a:b].rstrip())
            if cut and n == len(body_spans) - 1:  # more follows: say so
                while end > a and cell_len(body[a:end]) > width - INDENT - 1:
                    end -= 1
                line = [*_segments(body, body_runs, a, end), Segment("…", DIM)]
            else:
                line = _segments(body, body_runs, a, end)
            rows.append([Segment(" " * INDENT), *line])
        strips = [Strip(row).apply_style(base).crop_extend(0, width, base) for row in rows]
        return strips[:height] if height is not None else strips


Run = tuple[int, int, RichStyle | None]  # characters [start, end) and their style


def _runs(at: int, length: int, style: RichStyle, matched: tuple[int, ...]) -> list[Run]:
    """Runs of ``length`` characters from ``at`` in ``style``, the ``matched`` ones (sorted,
    relative to ``at``) in the match style over it."""
    runs: list[Run] = []
    highlight = style + MATCH_STYLE
    start = 0
    for p in matched:
        if p >= length:
            break
        if p > start:
            runs.append((at + start, at + p, style))
        if runs and runs[-1][1] == at + p and runs[-1][2] is highlight:
            runs[-1] = (runs[-1][0], at + p + 1, highlight)
        else:
            runs.append((at + p, at + p + 1, highlight))
        start = p + 1
    if start < length:
        runs.append((at + start, at + length, style))
    return runs


def _segments(text: str, runs: list[Run], a: int, b: int) -> list[Segment]:
    """The characters ``text[a:b]`` as segments in the styles of ``runs``."""
    return [
        Segment(text[max(start, a) : min(end, b)], style)
        for start, end, style in runs
        if start < b and end > a
    ]


def make_entry(
    kind: str,
    item: dict[str, Any],
    shown: str,
    badges: list[tuple[str, str]],
    mask: Callable[[str], str] | None = None,
) -> Entry:
    """A row's entry: what the item is called, its name and URI when different, badges,
    its description; the fields a filter matches are exactly the texts shown. ``mask``:
    the session's secrets out of the server's texts (``inspector.tui.masked``)."""
    fields: dict[str, str] = {}
    pieces: list[Piece] = []

    def add(field_name: str | None, lead: str, text: str, style: str) -> None:
        if field_name is not None:
            text = text if mask is None else mask(text)
            fields[field_name] = text
        pieces.append(Piece(lead, text, style, field_name))

    name = item.get("name")
    add("title" if shown != name else "name", "", clean(shown, 200), "bold")
    if isinstance(name, str) and name != shown:
        add("name", "  ", clean(name, 200), "dim")
    if kind in ("resources", "resource_templates"):
        uri = item.get("uri") or item.get("uriTemplate")
        if isinstance(uri, str) and uri != shown:
            add("uri", "  ", clean(uri, 300), "dim cyan")
    for label, badge_style in badges:
        add(None, " ", f"[{label}]", badge_style)
    description = item.get("description")
    text = clean(description) if isinstance(description, str) else ""
    if text and mask is not None:
        text = mask(text)
    if text:
        fields["description"] = text
    return Entry(tuple(pieces), text, fields, Haystack.of(fields, loose=LOOSE_FIELDS))
