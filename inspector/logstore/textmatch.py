"""A filter term as one bytes regex over raw frames: any case, raw or JSON-escaped.

``term_pattern("é")`` finds ``é``, ``É``, ``\\u00e9`` and ``\\u00C9`` in the raw bytes;
``term_pattern("STRASSE")`` finds ``straße``; ``term_pattern("k")`` finds the Kelvin sign.
The rule: a frame matches when ``term.casefold()`` is a substring of the casefolded
text, where each character of the text may sit on the wire as UTF-8, as a JSON
``\\uXXXX`` escape (any hex case, surrogate pairs too) or as a short escape (``\\n``,
``\\/`` ...). So what was typed is found both in the raw bytes and in the decoded text,
with one regex search over the raw buffer (no decoding, no copy): as fast as the ASCII
``re.IGNORECASE`` search it replaces.

An escape's backslash may also be doubled (how a session file stores a frame's escapes).
Limits: a term with many multi-character folds in it (``ss`` = ``ß``, ``fi`` = ``ﬁ`` ...)
keeps only ``MAX_BRANCHES`` of those alternatives (fewer if the regex grows too big); an escaped
backslash followed by ``u00e9`` (the text ``\\u00e9``, not ``é``) is matched as ``é``.
"""

from __future__ import annotations

import re
from functools import cache, lru_cache

MAX_BRANCHES = 4  # multi-character folds given their own branch (the regex doubles each)
MAX_PATTERN = 20_000  # bytes of regex; past it, fewer branches (a long term of "ss"…)
_NEVER = b"(?!)"
# An escape's backslash may come doubled: a session file stores the raw frame as a JSON
# string, so the frame's \u00e9 is \\u00e9 there (and the file's search finds it too).
_BS = b"\\\\\\\\?"
_SHORT = {
    '"': _BS + b'"',
    "\\": _BS + b"\\\\",
    "/": _BS + b"/",
    "\b": _BS + b"b",
    "\f": _BS + b"f",
    "\n": _BS + b"n",
    "\r": _BS + b"r",
    "\t": _BS + b"t",
}
# Where characters whose casefold differs from themselves live (Unicode 15: checked
# against a full scan by the tests): a scan of these is ~30x quicker than of all.
_CASED_BLOCKS = (
    (0x0000, 0x0590),
    (0x10A0, 0x1100),
    (0x13A0, 0x1400),
    (0x1C80, 0x1CC0),
    (0x1E00, 0x2000),
    (0x2100, 0x2190),
    (0x24B0, 0x24F0),
    (0x2C00, 0x2D30),
    (0xA640, 0xA800),
    (0xAB70, 0xABC0),
    (0xFB00, 0xFB20),
    (0xFF20, 0xFF60),
    (0x10400, 0x10500),
    (0x10570, 0x105C0),
    (0x10C80, 0x10D00),
    (0x118A0, 0x11900),
    (0x16E40, 0x16EA0),
    (0x1E900, 0x1E960),
)


@cache
def folds_to() -> dict[str, tuple[str, ...]]:
    """Casefolded text -> the characters (other than itself) that fold to it."""
    found: dict[str, list[str]] = {}
    for lo, hi in _CASED_BLOCKS:
        for cp in range(lo, hi):
            char = chr(cp)
            folded = char.casefold()
            if folded != char:
                found.setdefault(folded, []).append(char)
    return {folded: tuple(chars) for folded, chars in found.items()}


def _chars(folded: str) -> list[str]:
    """Every character whose casefold is exactly ``folded``."""
    own = [folded] if len(folded) == 1 and folded.casefold() == folded else []
    return own + list(folds_to().get(folded, ()))


def _hex(code: int) -> bytes:
    return b"".join(b"[%c%c]" % (d, d - 32) if d >= 0x61 else bytes([d]) for d in b"%04x" % code)


def _escape(char: str) -> bytes:
    """The JSON ``\\u`` escape of one character, any hex case."""
    code = ord(char)
    if code < 0x10000:
        return _BS + b"u" + _hex(code)
    code -= 0x10000
    return _BS + b"u" + _hex(0xD800 + (code >> 10)) + _BS + b"u" + _hex(0xDC00 + (code & 0x3FF))


def _forms(chars: list[str]) -> list[bytes]:
    """Each way one of ``chars`` may appear in a raw frame, every one opening on a
    literal byte (so a regex starting with them still gets re's first-byte scan)."""
    forms = [re.escape(c.encode()) for c in chars]
    forms += [_SHORT[c] for c in chars if c in _SHORT]
    forms += [_escape(c) for c in chars]
    return list(dict.fromkeys(forms))


def _wire(chars: list[str]) -> bytes:
    """One of ``chars`` as it may appear in a raw frame (single bytes as one class)."""
    single = sorted({c.encode() for c in chars if len(c.encode()) == 1})
    forms = [f for f in _forms(chars) if f not in {re.escape(b) for b in single}]
    if len(single) == 1:
        forms.insert(0, re.escape(single[0]))
    elif single:
        forms.insert(0, b"[" + b"".join(re.escape(s) for s in single) + b"]")
    return forms[0] if len(forms) == 1 else b"(?:" + b"|".join(forms) + b")"


def _alternatives(parts: list[bytes]) -> bytes:
    parts = list(dict.fromkeys(p for p in parts if p != _NEVER))
    if not parts:
        return _NEVER
    return parts[0] if len(parts) == 1 else b"(?:" + b"|".join(parts) + b")"


def _build(folded: str, max_branches: int) -> bytes:
    multi = [(f, list(chars)) for f, chars in folds_to().items() if len(f) > 1]
    n = len(folded)
    memo: dict[int, bytes] = {}
    # where a multi-character fold may stand in for a piece of the term: the first ones
    branch_at = [(k, f) for k in range(n) for f, _ in multi if folded.startswith(f, k)]
    allowed = set(branch_at[:max_branches])

    def edges(k: int) -> dict[int, list[str]]:
        """Characters that can stand at ``folded[k]``, by where the term goes on."""
        out: dict[int, list[str]] = {}
        out.setdefault(k + 1, []).extend(_chars(folded[k]))
        for f, with_fold in multi:
            if (k, f) in allowed:
                out.setdefault(k + len(f), []).extend(with_fold)
            elif len(f) > n - k and f.startswith(folded[k:]):
                out.setdefault(n, []).extend(with_fold)  # the term ends inside it
        return out

    def join(out: dict[int, list[str]]) -> bytes:
        # one group per place to go on: "(?:l|ﬂ|ﬄ)ambda", not three copies of "ambda"
        return _alternatives([_wire(chars) + rest(j) for j, chars in sorted(out.items()) if chars])

    def rest(k: int) -> bytes:
        """Text whose casefold starts with ``folded[k:]``."""
        return memo[k] if k < n else b""

    for k in range(n - 1, 0, -1):  # from the end: no recursion, however long the term
        memo[k] = join(edges(k))
    first = edges(0)
    for f, chars in multi:  # the term starts inside one character's fold (ß for "s")
        for cut in range(1, len(f)):
            tail = f[cut:]
            if tail.startswith(folded):
                first.setdefault(n, []).extend(chars)
                break
            if folded.startswith(tail):
                first.setdefault(len(tail), []).extend(chars)
    # The first position flat, one branch per form: re then scans for their first bytes
    # instead of trying the whole pattern at every byte (6x quicker).
    flat = _alternatives(
        [
            form + rest(j)
            for j, chars in sorted(first.items())
            for form in _forms(list(dict.fromkeys(chars)))
        ]
    )
    return flat if len(flat) <= MAX_PATTERN else join(first)


@lru_cache(maxsize=256)  # the filter bar parses on every key: recent terms come back
def term_pattern(term: str) -> re.Pattern[bytes]:
    """The regex that finds ``term`` in raw frames (see the module docstring)."""
    folded = term.casefold()
    if not folded:
        return re.compile(b"")
    for branches in (MAX_BRANCHES, 1, 0):  # fewer ß-for-ss branches until it is small
        pattern = _build(folded, branches)
        if len(pattern) <= MAX_PATTERN:
            break
    return re.compile(pattern)
