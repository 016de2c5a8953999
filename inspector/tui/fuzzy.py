"""A small fuzzy matcher for lists: a score and the matched positions, fast per keystroke.

    item = Haystack.of({"name": "get_weather", "description": "The weather now"},
                       loose={"description"})      # once per item
    query = FuzzyQuery("gt wthr")                  # once per keystroke
    match = query.match(item)
    match.score, match.positions  # {"name": (0, 2, 4, ...), "description": (...)}

The query's words must each match one field of the item (any field, any order). A word
matches a field as a substring (in any case) or, failing that, as its letters in order
(``gtw`` in ``get_weather``). A *loose* field (a long description) matches substrings
only: scattered letters are in nearly every sentence (``res`` in "Returns"), and a list
that three typed letters do not narrow is no filter.

Speed: every test is one regex search in C, written so that it cannot backtrack (each
gap is a possessive "anything but the next letter"), so a word costs one pass over a
field however the field reads; 300 tools filter in about a millisecond. ``searches``
counts the searches made, for tests and the bench to measure work, not time.

Scores favour a substring over scattered letters, letters at word starts (``gw`` in
``get_weather``) and a match in a name or title over one in a description.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Mapping
from dataclasses import dataclass, field
from itertools import pairwise

WORD_START = frozenset(" _-./:@#")
LOOSE_WEIGHT = 0.4  # a word found in a loose field (a description) counts less


@dataclass(frozen=True, slots=True)
class Match:
    """How well an item matched: higher is better; positions per field."""

    score: float
    positions: Mapping[str, tuple[int, ...]] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class _Word:
    text: str
    substring: re.Pattern[str]
    letters: re.Pattern[str]  # the letters in order, from the text's start (``match``)


def _letters(word: str) -> re.Pattern[str]:
    """``a`` ``b`` ``c`` in order, the first of each after the last: every gap is
    possessive ("anything but the next letter"), so a match never backtracks; the
    leftmost such run exists whenever any does."""
    body = "".join(f"[^{re.escape(c)}]*+({re.escape(c)})" for c in word)
    return re.compile(body, re.IGNORECASE)


class FuzzyQuery:
    """A query compiled once (per keystroke), matched against many items."""

    def __init__(self, query: str) -> None:
        self.text = query
        self.words = tuple(
            _Word(w, re.compile(re.escape(w), re.IGNORECASE), _letters(w)) for w in query.split()
        )
        self.searches = 0

    def __bool__(self) -> bool:
        return bool(self.words)

    def match(self, haystack: Haystack) -> Match | None:
        """The item's match, or None when a word of the query matches none of its fields."""
        total = 0.0
        positions: dict[str, set[int]] = {}
        for word in self.words:
            best_score = 0.0
            best: tuple[str, tuple[int, ...]] | None = None
            for name, text, loose in haystack.fields:
                self.searches += 1
                m = word.substring.search(text)
                if m is not None:
                    start, n = m.start(), len(word.text)
                    found: tuple[int, ...] = tuple(range(start, start + n))
                    score = 3.0 * n + _starts(text, (start,)) * 2.0
                    if start == 0:
                        score += 3.0 + (5.0 if n == len(text) else 0.0)
                elif loose:
                    continue
                else:
                    self.searches += 1
                    m = word.letters.match(text)
                    if m is None:
                        continue
                    found = tuple(r[0] for r in m.regs[1:])  # each letter's group
                    runs = sum(1 for a, b in pairwise(found) if b == a + 1)
                    spread = found[-1] - found[0] + 1 - len(found)
                    score = max(
                        len(found) + runs + _starts(text, found) * 2.0 - min(spread, 20) * 0.1, 0.1
                    )
                if loose:
                    score *= LOOSE_WEIGHT
                if score > best_score:
                    best_score, best = score, (name, found)
            if best is None:
                return None
            total += best_score
            positions.setdefault(best[0], set()).update(best[1])
        return Match(total, {name: tuple(sorted(p)) for name, p in positions.items()})


@dataclass(frozen=True, slots=True)
class Haystack:
    """The texts of one item to match, prepared once: ``(field, text, loose)``."""

    fields: tuple[tuple[str, str, bool], ...]

    @classmethod
    def of(cls, fields: Mapping[str, str], loose: Collection[str] = ()) -> Haystack:
        return cls(tuple((name, text, name in loose) for name, text in fields.items() if text))


def _starts(text: str, positions: tuple[int, ...]) -> int:
    """How many positions open a word (after a separator, or a capital after a small)."""
    count = 0
    for p in positions:
        if p == 0 or text[p - 1] in WORD_START or (text[p].isupper() and text[p - 1].islower()):
            count += 1
    return count
