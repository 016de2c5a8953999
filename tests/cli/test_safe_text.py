"""Server text is data: markup shown literally, control sequences visible, long text folded."""

from __future__ import annotations

import io
import subprocess
import sys

from rich.cells import cell_len, get_character_cell_size
from rich.console import Console
from rich.text import Text

from inspector.safe_text import (
    LineStream,
    decode_raw,
    escape_markup,
    fold,
    one_line,
    safe_raw,
    safe_text,
    visible,
)


def _render(renderable: object, markup: bool = False) -> str:
    """What a terminal would receive (ANSI included), 80 columns."""
    console = Console(width=80, color_system="truecolor", force_terminal=True, legacy_windows=False)
    with console.capture() as cap:
        console.print(renderable, markup=markup, highlight=False)
    return cap.get()


def test_rich_markup_is_shown_literally() -> None:
    text = safe_text("[bold red]x[/]")
    assert text.plain == "[bold red]x[/]"
    assert not text.spans
    # Embedded in a markup string, the escaped form prints the brackets too.
    out = _render(f"note: {escape_markup('[bold red]x[/]')}", markup=True)
    assert "[bold red]x[/]" in out


def test_escape_sequences_are_visible_not_emitted() -> None:
    hostile = "clear\x1b[2Jscreen\x1b]52;c;ZXZpbA==\x07 bell"
    text = safe_text(hostile)
    assert "\x1b" not in text.plain and "\x07" not in text.plain
    assert text.plain == "clear␛[2Jscreen␛]52;c;ZXZpbA==␇ bell"
    out = _render(text)
    assert "\x1b[2J" not in out and "\x1b]52" not in out and "\x07" not in out
    assert "␛[2J" in out


def test_other_controls_c1_and_bidi() -> None:
    assert visible("a\x00b\x7fc") == "a␀b␡c"
    assert visible("csi\x9b31m") == "csi\\x9b31m"
    assert visible("abc\u202eevil") == "abc\\u202eevil"
    assert visible("tab\there") == "tab␉here"
    assert visible("one\ntwo\r\n") == "one␊two␍␊"


def test_multiline_keeps_newlines_only() -> None:
    assert visible("one\r\ntwo\n\x1b[0m", multiline=True) == "one\ntwo\n␛[0m"
    assert visible("lone\rcr", multiline=True) == "lone␍cr"
    assert safe_text("a\nb", multiline=True).plain == "a\nb"


def test_plain_text_is_untouched() -> None:
    s = "héllo wörld → ✓ 漢字"
    assert visible(s) is s


def test_fold_long_strings() -> None:
    long = "x" * 10_000
    assert fold(long, 100) == "x" * 100 + "… 9,900 more chars"
    assert fold("short", 100) == "short"
    line = one_line("a\nb" + "c" * 500, limit=10)
    assert line.startswith("a␊b") and line.endswith("… 493 more chars")
    assert safe_text(long, limit=5).plain == "xxxxx… 9,995 more chars"


def test_raw_bytes_invalid_utf8_as_escapes() -> None:
    raw = b'{"a": "\xff\xfe"}\x1b[1m'
    assert decode_raw(raw) == '{"a": "\\xff\\xfe"}\x1b[1m'
    text = safe_raw(raw)
    assert text.plain == '{"a": "\\xff\\xfe"}␛[1m'
    folded = safe_raw(b"y" * 1000, limit=10)
    assert folded.plain == "y" * 10 + "… 990 more bytes"


def test_headless_imports_only_rich() -> None:
    code = (
        "import sys, inspector.safe_text; assert 'textual' not in sys.modules, 'textual imported'"
    )
    subprocess.run([sys.executable, "-c", code], check=True, timeout=60)


def test_text_has_no_markup_parsing_even_with_style() -> None:
    text = safe_text("[link=http://evil]click[/link]", "bold")
    assert isinstance(text, Text)
    assert text.plain == "[link=http://evil]click[/link]"


# -- widths the terminal and Rich agree on -----------------------------------------------

# Measured in tmux 3.3a (cursor column after printing each string) against Rich 15:
# ⚠️ 1 vs 2, 1️⃣ 1 vs 2, a+ZWJ+b 2 vs 1, 👍🏽 4 vs 2; kitty and others differ again.
AMBIGUOUS = {
    "⚠️ cancelled": "⚠ cancelled",  # U+26A0 U+FE0F: the emoji variation selector
    "❤️": "❤",
    "1️⃣": "1\u20e3",  # a keycap: the combining mark stays (zero width everywhere)
    "✅︎": "✅",  # U+FE0E: the text variation selector
    "a\u200db": "ab",  # a zero-width joiner between letters
    "👨\u200d👩\u200d👧": "👨👩👧",  # a ZWJ family: its parts
    "👍🏽 ok": "👍 ok",  # a skin-tone modifier
}


def per_code_point(text: str) -> int:
    """Cells as a terminal without grapheme rules counts them: code point by code point."""
    return sum(get_character_cell_size(char) for char in text)


def test_width_ambiguous_sequences_are_normalised() -> None:
    for raw, shown in AMBIGUOUS.items():
        assert visible(raw) == shown, raw
        assert one_line(raw) == shown and safe_text(raw).plain == shown
        assert safe_raw(raw.encode()).plain == shown


def test_rich_measures_normalised_text_as_a_terminal_draws_it() -> None:
    for raw in AMBIGUOUS:
        if raw not in ("✅︎", "👍🏽 ok"):  # (these two Rich and this model count alike)
            assert cell_len(raw) != per_code_point(raw), raw  # the disagreement ...
        shown = visible(raw)
        assert cell_len(shown) == per_code_point(shown), raw  # ... gone
    assert cell_len(visible("✅ ok ⚠️ no")) == 10  # ✅ is 2 cells everywhere, ⚠ 1


def test_text_without_ambiguous_characters_is_untouched() -> None:
    for text in ("✅ done", "漢字 ✓ café", "e\u0301", "🇫🇷", "😀"):
        assert visible(text) is text


def test_a_line_stream_outlived_by_nothing_closes_quietly() -> None:
    """The stream under a LineStream closed first (a test's capture, the end of a run):
    closing it (as its finalizer does) raises nothing. Python 3.13 reports a finalizer's
    error as "Exception ignored in: <LineStream ...>"."""
    inner = io.StringIO()
    stream = LineStream(inner, str)
    stream.write("no end of line yet")
    inner.close()
    stream.close()
    assert stream.closed
