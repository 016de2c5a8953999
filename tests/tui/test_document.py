"""Documents for the line-virtualized view: lazy folding, pieces of long lines, server text
made safe; JSON sizes worked out without serializing; file names for saved blocks."""

from __future__ import annotations

import json
import random
import tracemalloc
from typing import Any

import pytest
from rich.console import Console
from rich.panel import Panel
from rich.text import Text

from inspector.tui import document as document_module
from inspector.tui import json_size
from inspector.tui.document import (
    PIECE,
    Block,
    DocBuilder,
    Document,
    Lines,
    StringLines,
    wrap_spans,
)
from inspector.tui.json_size import json_length, rough_size
from inspector.tui.result_files import file_name

CONSOLE = Console(width=200)


def rows(document: Document, width: int) -> list[str]:
    return [document.row(r, width, CONSOLE).text for r in range(document.height(width, CONSOLE))]


def test_big_text_is_wrapped_at_the_width_and_kept_once() -> None:
    text = "\n".join(f"{n:5d} " + "x" * 20 for n in range(1, 1001))
    builder = DocBuilder()
    builder.add(Text("title"))
    builder.add_text(text)
    builder.add(Text("the end"))
    document = builder.build()
    assert [type(s) for s in document.sections] == [Block, Lines, Block]
    lines = document.sections[1]
    assert isinstance(lines, Lines) and isinstance(lines.source, StringLines)
    assert lines.source.source is text  # the payload itself, not a copy
    assert document.height(26, CONSOLE) == 1 + 1000 + 1
    # each 26-cell line on three rows: the number, then its word folded (longer than 13)
    assert document.height(13, CONSOLE) == 1 + 3000 + 1
    assert document.row(1, 13, CONSOLE).text == "    1"
    assert document.row(2, 13, CONSOLE).text == "x" * 13
    assert document.row(3, 13, CONSOLE).text == "x" * 7
    assert document.row(3000, 13, CONSOLE).text == "x" * 7
    assert document.row(3001, 13, CONSOLE).text == "the end"


def test_lines_in_blocks_fold_like_one_index(monkeypatch: pytest.MonkeyPatch) -> None:
    """Above WORD_WRAP_CELLS lines are folded: rows found through per-block histograms (a
    resize does not index every line) are the rows of folding each line in turn, across
    block boundaries and at any width."""
    monkeypatch.setattr(document_module, "BLOCK", 7)
    text = "\n".join("" if n % 5 == 0 else f"{n}:" + "ab " * (n * 7 % 23) for n in range(100))
    monkeypatch.setattr(document_module, "WORD_WRAP_CELLS", 10)
    lines = Lines(StringLines(text))
    assert not lines.word_wrap
    for width in (1, 3, 10, 47, 200):
        expected = []
        for index in range(len(lines.source)):
            line = lines.source.line(index)
            expected += [line[at : at + width] for at in range(0, len(line), width)] or [""]
        assert lines.height(width, CONSOLE) == len(expected)
        assert [lines.row(r, width, CONSOLE).text for r in range(len(expected))] == expected


def _words_text(seed: int, lines: int) -> str:
    """Lines of words: short and long ones, single and double spaces, indents, empty
    lines and lines of spaces only."""
    rng = random.Random(seed)
    out = []
    for _ in range(lines):
        kind = rng.random()
        if kind < 0.08:
            out.append("")
        elif kind < 0.12:
            out.append(" " * rng.randint(1, 30))
        else:
            words = ["w" * rng.choice([1, 2, 3, 5, 8, 13, 40]) for _ in range(rng.randint(1, 14))]
            out.append(" " * rng.choice([0, 0, 2, 4]) + rng.choice([" ", "  "]).join(words))
    return "\n".join(out)


@pytest.mark.slow
def test_big_text_wraps_at_word_boundaries_as_rich_does() -> None:
    """Lazily wrapped lines break between words, as Rich wraps a small text (a word
    longer than the width is folded), and nothing in the text is lost but the spaces
    at a break."""
    rng = random.Random(7)
    words = ["a", "to", "the", "wire", "frames", "protocol", "[red]inspector[/red]", "x" * 30]
    text = "\n".join(" ".join(rng.choice(words) for _ in range(25)) for _ in range(500))
    lines = Lines(StringLines(text))
    assert lines.source.plain_ascii
    for width in (7, 13, 40, 80):
        expected = []
        for line in text.split("\n"):
            wrapped = Text(line).wrap(CONSOLE, width, overflow="fold")
            expected += [part.plain.rstrip(" ") for part in wrapped]
        assert lines.height(width, CONSOLE) == len(expected), width
        shown = [lines.row(r, width, CONSOLE).text for r in range(len(expected))]
        assert shown == expected, width
    assert "[red]inspector[/red]" in "".join(shown)  # server text: no markup read


@pytest.mark.slow
def test_rows_counted_a_block_at_a_time_are_the_rows_of_each_line(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Plain ASCII text counts a block's rows with one regular expression over it; that
    is the count of wrapping each of its lines, across block boundaries, at any width;
    and a text that is not ASCII (é for e) wraps the same, line by line."""
    monkeypatch.setattr(document_module, "BLOCK", 7)
    text = _words_text(3, 120)
    fast = Lines(StringLines(text))
    slow = Lines(StringLines(text.replace("w", "é")))
    assert fast.source.plain_ascii and not slow.source.plain_ascii
    for width in (1, 2, 5, 13, 47, 200):
        expected = []
        for line in text.split("\n"):
            spans = wrap_spans(line, width)
            assert all(end - start <= width for start, end in spans)
            expected += [line[start:end] for start, end in spans]
        assert fast.height(width, CONSOLE) == len(expected), width
        assert slow.height(width, CONSOLE) == len(expected), width
        assert [fast.row(r, width, CONSOLE).text for r in range(len(expected))] == expected
        assert [
            slow.row(r, width, CONSOLE).text.replace("é", "w") for r in range(len(expected))
        ] == expected


def test_rows_of_a_big_text_are_counted_without_a_copy_of_it() -> None:
    """Counting a block's rows made a string of each row (a 1 MB result's lines wrapped
    at 100 cells: a megabyte of strings while its height was worked out)."""
    line = "      1  " + "Lorem ipsum dolor sit amet, consectetur adipiscing elit, sed " * 2
    text = (line + "\n") * 4_000
    lines = Lines(StringLines(text))
    tracemalloc.start()
    try:
        height = lines.height(100, CONSOLE)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert height == 4_000 * len(wrap_spans(line, 100))
    assert peak < len(text) // 4, (peak, len(text))


def test_wide_characters_wrap_by_cells_at_spaces() -> None:
    assert wrap_spans("界界 界界界 a", 6) == [(0, 4), (5, 11), (12, 13)]
    assert wrap_spans("界界界界", 3) == [(0, 2), (2, 4), (4, 6), (6, 8)]  # folded
    assert wrap_spans("界", 1) == [(0, 2)]  # wider than the width: a row of its own
    assert wrap_spans("", 5) == [(0, 0)]


def test_a_long_line_is_cut_in_pieces_and_control_characters_are_visible() -> None:
    source = StringLines("a\tb\x1b[31m\r\n" + "y" * (2 * PIECE + 5) + "\nlast\r")
    assert source.text(0).plain == "a    b␛[31m"
    assert [source.cells[i] for i in range(len(source))] == [11, PIECE, PIECE, 5, 5]
    assert source.text(4).plain == "last␍"
    assert all("\x1b" not in source.text(i).plain for i in range(len(source)))


@pytest.mark.slow
def test_wide_characters_fold_by_cells() -> None:
    builder = DocBuilder()
    builder.add_text("界" * 40_000)  # big: lazily folded
    document = builder.build()
    assert document.height(10, CONSOLE) == 40_000 * 2 // 10
    assert document.row(0, 10, CONSOLE).text == "界" * 5


def test_small_parts_render_as_rich_would() -> None:
    panel = Panel(Text("inside"), title="JSON-RPC error")
    document = Document.of(Text("a line"), panel)
    shown = rows(document, 30)
    assert shown[0] == "a line"
    assert "JSON-RPC error" in shown[1] and "inside" in shown[2]
    assert len(shown) == 4


def test_big_pretty_text_is_split_into_lazy_lines_with_its_styles() -> None:
    pretty = Text()
    for n in range(600):
        pretty.append(f'"key{n}"', style="bold")
        pretty.append(": 1\n")
    builder = DocBuilder()
    builder.add_rich(pretty)
    document = builder.build()
    assert isinstance(document.sections[0], Lines)
    strip = document.row(3, 40, CONSOLE)
    assert strip.text == '"key3": 1'
    assert any(seg.style is not None and seg.style.bold for seg in strip)


@pytest.mark.parametrize(
    "value",
    [
        {"a": 'x"y\\z\n\t\x01\x0b\x7f\x1fé😀\r\b\f', "b": [1, 2.5, True, None, {}, [], False]},
        {"n": [-0.0, 1e100, float("nan"), float("inf"), float("-inf"), 10**30]},
        {1: 2, 1.5: 3, None: 5, "k\n": "v"},
        {True: 4, False: 5},
        "plain",
        'q"\\' * 10,
        [],
    ],
)
def test_json_length_is_what_json_dumps_writes(value: Any) -> None:
    assert json_length(value) == len(json.dumps(value, ensure_ascii=False))


def test_json_length_of_a_big_string_adds_its_slices(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(json_size, "_SLICE", 7)
    text = 'line "one"\n\ttab \\ back\x02' * 5
    assert json_length({"t": text}) == len(json.dumps({"t": text}, ensure_ascii=False))


def test_rough_size_stops_counting_above_the_limit() -> None:
    assert rough_size({"a": "x" * 10}, 1_000) < 1_000
    assert rough_size(["x" * 600, "y" * 600], 1_000) > 1_000
    assert rough_size(list(range(50_000)), 10**9) > 10**9  # too many parts: "bigger"


@pytest.mark.parametrize(
    ("base", "mime", "name"),
    [
        ("logo.png", "image/png", "logo.png"),  # named once, not logo.png.png
        ("image-1", "image/png", "image-1.png"),
        ("audio-2", "audio/wav", "audio-2.wav"),
        ("report", "application/x-unknown-thing", "report.bin"),
        ("..", "image/png", "blob.png"),
        ("a/b\x1b", "image/gif", "a_b_.gif"),
    ],
)
def test_file_names_for_saved_blocks(base: str, mime: str, name: str) -> None:
    assert file_name(base, mime) == name


def test_counting_rows_keeps_the_spans_of_the_rows_drawn_only() -> None:
    """Issue 25 item 9: the rows of a block's lines are counted to place it; only the
    lines drawn keep their wrapping (a 1 MB result kept a thousand lines' spans)."""
    text = "\n".join(f"{n:7d}  " + "lorem ipsum dolor " * 8 for n in range(3000))
    lines = Lines(StringLines(text))
    row = lines.height(60, CONSOLE) // 2
    drawn = [lines.row(r, 60, CONSOLE).text for r in range(row, row + 30)]
    assert drawn[0] and len(lines._spans) <= 30
