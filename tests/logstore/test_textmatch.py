"""Filter terms: Unicode casefold, raw bytes and JSON escapes, in one bytes regex."""

from __future__ import annotations

import json
import random

import pytest

from inspector.logstore.textmatch import _CASED_BLOCKS, folds_to, term_pattern


def found(term: str, raw: bytes | str) -> bool:
    return term_pattern(term).search(raw.encode() if isinstance(raw, str) else raw) is not None


@pytest.mark.parametrize(
    ("term", "raw"),
    [
        ("é", "café"),
        ("é", "CAFÉ"),
        ("é", r'"caf\u00e9"'),
        ("é", r'"CAF\u00C9"'),
        ("É", "café"),
        ("CAFÉ", r'"caf\u00e9"'),
        ("straße", "STRASSE"),
        ("STRASSE", "straße"),
        ("strasse", r'"stra\u00dfe"'),
        ("s", "ß"),
        ("sa", "ßa"),
        ("as", "aß"),  # the term starts or ends inside ß ("ss")
        ("k", "\u212a"),
        ("K", r"\u212A"),
        ("s", "ſ"),  # Kelvin sign, long s
        ("fi", "ﬁle"),
        ("file", "ﬁle"),
        ("lambda", "LAMBDA"),
        ("lambda", r"\u006cambda"),
        ("Σ", "σ"),
        ("ς", "Σ"),
        ("Ǆ", "ǆ"),  # final sigma and titlecase letters fold alike
        ("http://x/y", r'"http:\/\/x\/y"'),
        ('say "hi"', r'"say \"hi\""'),
        ("a\nb", r'"a\nb"'),
        ("\x1b[31m", r'"\u001b[31m"'),
        ("\x1b[31m", "\x1b[31m"),
        ("😀", "😀"),
        ("😀", r'"\ud83d\ude00"'),
        ("😀", r'"\uD83D\uDE00"'),
        ("𐐀", "𐐨"),  # Deseret: outside the BMP, cased
        (r"\u00e9", r'"\u00e9"'),  # typed as it is on the wire: the raw bytes match too
    ],
)
def test_term_is_found_in_any_case_raw_or_escaped(term: str, raw: str) -> None:
    assert found(term, raw), term_pattern(term).pattern


@pytest.mark.parametrize(
    ("term", "raw"),
    [
        ("é", "e"),
        ("é", r"\u00e8"),
        ("straße", "strase"),
        ("k", "x"),
        ("lambda", "lamda"),
        ("😀", r"\ud83d\ude01"),
        ("a\nb", "a b"),
    ],
)
def test_other_text_is_not_found(term: str, raw: str) -> None:
    assert not found(term, raw)


def test_agrees_with_casefold_of_decoded_text() -> None:
    """Random words: the regex over raw (escaped or not) says what casefold says."""
    rng = random.Random(7)
    alphabet = 'aAsSßẞkKe\u0301éÉſﬁfFiIΣσς𐐀𐐨"\\/\n'
    for _ in range(400):
        text = "".join(rng.choice(alphabet) for _ in range(rng.randint(1, 8)))
        term = "".join(rng.choice(alphabet) for _ in range(rng.randint(1, 3)))
        expected = term.casefold() in text.casefold()
        for raw in (
            text.encode(),
            json.dumps(text).encode(),
            json.dumps(text, ensure_ascii=False).encode(),
        ):
            got = found(term, raw)
            # escaped forms can only add matches through their quotes/backslashes
            if expected:
                assert got, (term, text, raw)
            elif raw == text.encode():
                assert not got, (term, text)


def test_cased_blocks_hold_every_character_whose_casefold_differs() -> None:
    everything = {
        chr(cp)
        for cp in range(0x110000)
        if not 0xD800 <= cp < 0xE000 and chr(cp).casefold() != chr(cp)
    }
    listed = {c for chars in folds_to().values() for c in chars}
    assert everything == listed, sorted(everything - listed)[:20]
    assert all(lo < hi for lo, hi in _CASED_BLOCKS)


def test_long_terms_and_runs_of_multi_character_folds_stay_small() -> None:
    for term in ("s" * 60, "s" * 500, "ß" * 200, "éÉ" * 300, "x" * 2000):
        assert len(term_pattern(term).pattern) < 50_000 or term == "x" * 2000
        assert found(term, term.upper())
    assert found("ssss", "ßß") and found("STRASSE", "straße")  # within the budget: exact
