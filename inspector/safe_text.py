"""Server text is data: the one place that makes untrusted text safe to show.

Everything a server sends (tool descriptions, stderr lines, results, error
messages, raw frames) goes through here before the TUI or the command line shows it:

- Rich markup is never interpreted: :func:`safe_text` builds a ``Text`` directly
  (no markup parsing) and :func:`escape_markup` escapes text that must be embedded
  in a markup string (notifications, ``Static("...")``).
- Terminal control characters are made visible, never emitted: ESC becomes ``␛``,
  other C0 controls their Unicode control pictures (``␀`` ... ``␟``), DEL ``␡``,
  C1 controls and bidi overrides ``\\x9b`` / ``\\u202e`` escapes.
- Characters whose width terminals disagree on are dropped, so that what Rich measures
  is what the terminal draws and rows stay aligned: emoji variation selectors (``⚠️`` is
  U+26A0 U+FE0F: 2 cells for Rich, 1 in tmux 3.3 and xterm, 2 in kitty), the zero-width
  joiner (Rich joins ``a``+ZWJ+``b`` into 1 cell, tmux draws 2; ZWJ emoji sequences are
  one glyph in some terminals, several in others) and skin-tone modifiers (0 cells for
  Rich, 2 in tmux). ``⚠️`` shows as ``⚠``, a ZWJ sequence as its parts; the bytes stay
  as received in the session file and in what the event detail copies (``c``).
- Long strings are folded: the first N characters and "… 9,000 more chars".

Only Rich is imported (never Textual), and only by the functions that build Rich
objects: it lives outside ``inspector.tui`` so that the command line
(``inspector.commands``) uses it without loading the TUI, and its plain-text functions
load no Rich at all (start-up of ``--help`` and ``--cli``).
"""

from __future__ import annotations

import io
import re
from collections.abc import Callable
from typing import TYPE_CHECKING, BinaryIO, TextIO

if TYPE_CHECKING:
    from rich.style import Style
    from rich.text import Text

# Bidi overrides/isolates and other invisible format characters that can make text
# read differently from what it is (Trojan Source); shown as escapes.
_INVISIBLE = "\u200b\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\ufeff"
# Width-ambiguous: variation selectors 15/16, the zero-width joiner, skin-tone modifiers.
_AMBIGUOUS = "\ufe0e\ufe0f\u200d" + "".join(map(chr, range(0x1F3FB, 0x1F400)))


def _build_table(keep_newlines: bool) -> dict[int, str | None]:
    table: dict[int, str | None] = {}
    for code in range(0x20):
        table[code] = chr(0x2400 + code)  # U+2400.. control pictures: ␀ ␁ ... ␛ ...
    table[0x7F] = "\u2421"  # ␡
    for code in range(0x80, 0xA0):
        table[code] = f"\\x{code:02x}"
    for ch in _INVISIBLE:
        table[ord(ch)] = f"\\u{ord(ch):04x}"
    for ch in _AMBIGUOUS:
        table[ord(ch)] = None  # dropped
    table[0x09] = "\u2409" if not keep_newlines else "    "  # tab: ␉ on one line
    if keep_newlines:
        table[0x0A] = "\n"
    return table


_ONE_LINE = _build_table(keep_newlines=False)
_MULTI_LINE = _build_table(keep_newlines=True)
# Fast check: does the string need any translation at all?
_NEEDS = re.compile("[\x00-\x1f\x7f-\x9f" + _INVISIBLE + _AMBIGUOUS + "]")


def visible(text: str, *, multiline: bool = False) -> str:
    """Control characters made visible, width-ambiguous ones dropped. With ``multiline``
    newlines stay and tabs expand.

    ``\\r\\n`` is kept as a newline in multiline mode (a lone ``\\r`` shows as ``␍``).
    """
    if not _NEEDS.search(text):
        return text
    if multiline:
        text = text.replace("\r\n", "\n")
        return text.translate(_MULTI_LINE)
    return text.translate(_ONE_LINE)


def fold(text: str, limit: int, *, unit: str = "chars") -> str:
    """At most ``limit`` characters; the rest summarised as "… 9,000 more chars"."""
    if limit < 0 or len(text) <= limit:
        return text
    return f"{text[:limit]}… {len(text) - limit:,} more {unit}"


def one_line(text: str, limit: int = 200) -> str:
    """A single visible line of at most ``limit`` characters (plus the fold note)."""
    return visible(fold(text, limit))


def escape_markup(text: str, *, multiline: bool = False, limit: int = -1) -> str:
    """Safe to embed in a Rich markup string: controls visible, ``[`` escaped."""
    from rich.markup import escape as _rich_escape

    return _rich_escape(visible(fold(text, limit), multiline=multiline))


def safe_text(
    text: str, style: str | Style = "", *, multiline: bool = False, limit: int = -1
) -> Text:
    """A Rich ``Text`` showing ``text`` literally (no markup, no control codes)."""
    from rich.text import Text

    return Text(visible(fold(text, limit), multiline=multiline), style=style, end="")


def decode_raw(raw: bytes) -> str:
    """Raw bytes as text: valid UTF-8 decoded, invalid bytes shown as ``\\xNN`` escapes."""
    return raw.decode("utf-8", errors="backslashreplace")


def safe_raw(raw: bytes, *, multiline: bool = True, limit: int = -1) -> Text:
    """Raw frame bytes exactly as received, made safe: invalid UTF-8 as ``\\xNN`` escapes."""
    from rich.text import Text

    shown = raw if limit < 0 else raw[:limit]
    text = Text(visible(decode_raw(shown), multiline=multiline), end="")
    if limit >= 0 and len(raw) > limit:
        text.append(f"… {len(raw) - limit:,} more bytes", style="dim italic")
    return text


# JSON text stays JSON: C1 controls and invisible characters as \uXXXX escapes (C0 ones
# are escaped by json.dumps already), so a JSON line needs no further change to be shown
_JSON_TABLE = {code: f"\\u{code:04x}" for code in range(0x7F, 0xA0)} | {
    ord(ch): f"\\u{ord(ch):04x}" for ch in _INVISIBLE
}


def json_visible(text: str) -> str:
    """JSON text (``json.dumps(..., ensure_ascii=False)``) safe to print on a terminal."""
    return text.translate(_JSON_TABLE) if _NEEDS.search(text) else text


def terminal_lines(text: str) -> str:
    """Lines for a terminal: newlines kept, every other control character visible."""
    return visible(text, multiline=True)


PENDING_LIMIT = 1 << 16  # characters a LineStream holds waiting for the end of a line


class LineStream(io.TextIOBase):
    """A text stream writing to ``inner`` line by line, each line through ``clean``
    (the unit its writers use: a secret or an escape sequence never spans lines)."""

    def __init__(self, inner: TextIO, clean: Callable[[str], str]) -> None:
        super().__init__()
        self.inner = inner
        self.clean = clean
        self._pending = ""

    def write(self, text: str) -> int:
        self._pending += text
        if "\n" in text or len(self._pending) > PENDING_LIMIT:
            done, newline, self._pending = self._pending.rpartition("\n")
            if not newline:  # a long piece without a line end: out as it is
                done, self._pending = self._pending, ""
            self.inner.write(self.clean(done + newline))
        return len(text)

    def flush(self) -> None:
        if self.inner.closed:  # gone before us (a test's capture, the end of the run):
            return  # nothing can reach it, and a finalizer must not raise (Python 3.13)
        if self._pending:
            self.inner.write(self.clean(self._pending))
            self._pending = ""
        self.inner.flush()

    def fileno(self) -> int:
        return self.inner.fileno()

    def isatty(self) -> bool:
        return self.inner.isatty()

    def writable(self) -> bool:
        return True

    @property
    def encoding(self) -> str:  # type: ignore[override]
        return self.inner.encoding

    @property
    def buffer(self) -> BinaryIO:
        """The inner stream's bytes, for a writer of bytes passed through as they are
        (the proxy relays its server's stderr to its host's log); text is flushed first."""
        self.flush()
        return self.inner.buffer
