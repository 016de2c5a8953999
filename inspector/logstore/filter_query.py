"""The message log's filter language: tokens, keys, values, problems and completion.

``method:tools/call kind:error dir:in ch:stderr is:error has:finding "two words" text``

One table (``KEYS``) says which keys exist, their aliases, the values they take and what
they mean; the parser, the completion, the problems the user is shown and the help
screen all read it, so they cannot disagree. Parsing never fails: what it does not
understand becomes a :class:`Problem` with its position in the query (an unknown key,
an unknown value, a key without a value), and the rest of the query still applies.

Text terms are anything else; a token that looks like ``word:value`` but whose ``word``
is not a key is a problem rather than a silent text search (``kind:bogus`` and
``knd:error`` are typos far more often than text; so is ``/knd:error``, the filter's
``/`` typed twice), except when the value starts with ``/`` (``http://host``). Quoting
makes any text a term: ``"knd:error"``.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from fnmatch import fnmatchcase
from typing import Any

from inspector.logstore.textmatch import term_pattern
from inspector.wire.events import SERVER_KEY, Channel, Direction, Kind, WireEvent

_KIND_ALIASES: dict[str, Kind] = {
    "req": Kind.REQUEST,
    "request": Kind.REQUEST,
    "requests": Kind.REQUEST,
    "res": Kind.RESPONSE,
    "resp": Kind.RESPONSE,
    "response": Kind.RESPONSE,
    "responses": Kind.RESPONSE,
    "result": Kind.RESPONSE,
    "err": Kind.ERROR,
    "error": Kind.ERROR,
    "errors": Kind.ERROR,
    "note": Kind.NOTIFICATION,
    "notif": Kind.NOTIFICATION,
    "notification": Kind.NOTIFICATION,
    "notifications": Kind.NOTIFICATION,
    "batch": Kind.BATCH,
    "invalid": Kind.INVALID,
    "bad": Kind.INVALID,
    "stderr": Kind.STDERR,
    "http": Kind.HTTP,
    "sys": Kind.SYSTEM,
    "system": Kind.SYSTEM,
}
_DIR_ALIASES: dict[str, Direction] = {
    "in": Direction.IN,
    "<-": Direction.IN,
    "←": Direction.IN,
    "recv": Direction.IN,
    "server": Direction.IN,
    "out": Direction.OUT,
    "->": Direction.OUT,
    "→": Direction.OUT,
    "sent": Direction.OUT,
    "send": Direction.OUT,
    "client": Direction.OUT,
    "local": Direction.LOCAL,
    "·": Direction.LOCAL,
}
_CHANNEL_ALIASES: dict[str, Channel] = {c.value: c for c in Channel}
# is:error is wider than kind:error: a tool result with isError: true failed too
ERROR_WORDS = frozenset({"error", "errors", "err", "failed", "failure", "fail"})
FINDING_WORDS = frozenset({"finding", "findings", "flagged", "warning", "warnings"})


@dataclass(frozen=True, slots=True)
class FilterKey:
    """One key of the language: how it is spelt, what it takes, what it means."""

    name: str
    aliases: tuple[str, ...]
    values: tuple[str, ...]  # offered for completion (empty: free text, e.g. a method)
    meaning: str
    examples: tuple[str, ...]

    @property
    def spellings(self) -> tuple[str, ...]:
        return (self.name, *self.aliases)


KEYS: tuple[FilterKey, ...] = (
    FilterKey(
        "method",
        ("m",),
        (),
        "the JSON-RPC method (a response has its request's); * and ? glob, a trailing / "
        "matches every method under it",
        ("method:tools/call", "method:notifications/", "method:resources/*"),
    ),
    FilterKey(
        "kind",
        ("k",),
        tuple(k.value for k in Kind),
        "what the frame is on the wire",
        ("kind:error", "kind:request,notification"),
    ),
    FilterKey(
        "is",
        (),
        ("error", "finding", *(k.value for k in Kind if k is not Kind.ERROR)),
        "is:error: JSON-RPC errors and tool results with isError: true; is:finding: events "
        "with protocol findings (⚠); any kind too",
        ("is:error", "is:finding"),
    ),
    FilterKey(
        "dir",
        ("d", "direction"),
        ("in", "out", "local"),
        "in: from the server, out: to the server, local: the inspector's own notes",
        ("dir:in",),
    ),
    FilterKey(
        "ch",
        ("channel",),
        tuple(c.value for c in Channel),
        "where on the transport the frame travelled",
        ("ch:stderr", "ch:http"),
    ),
    FilterKey("has", (), ("finding",), "has:finding: the same as is:finding", ("has:finding",)),
    FilterKey(
        "server",
        ("srv",),
        (),
        "in a workspace of several servers: the server's name (* and ? glob)",
        ("server:files", "server:staging*"),
    ),
)
_BY_SPELLING = {spelling: key for key in KEYS for spelling in key.spellings}
KEY_NAMES = tuple(key.name for key in KEYS)
_KEYLIKE = re.compile(r"[A-Za-z][A-Za-z0-9_-]*")
_TOKEN = re.compile(r'"([^"]*)"?|(\S+)')


@dataclass(frozen=True, slots=True)
class Problem:
    """Part of a query that was not understood: where it is (``query[start:end]``) and
    what to do about it."""

    start: int
    end: int
    message: str

    def __str__(self) -> str:
        return self.message


@dataclass(frozen=True, slots=True)
class Token:
    """One word of a query. ``key`` is the canonical key (None for text); ``value_at`` is
    where the value starts (after the colon)."""

    start: int
    end: int
    text: str  # the term, unquoted (for text) or the raw word
    quoted: bool = False
    key: str | None = None
    value_at: int = -1

    @property
    def value(self) -> str:
        return self.text[self.value_at - self.start :] if self.key is not None else ""


def tokens(query: str) -> list[Token]:
    """The words of ``query`` with their positions; a known ``key:`` is split off."""
    out: list[Token] = []
    for m in _TOKEN.finditer(query):
        quoted, word = m.group(1), m.group(2)
        if quoted is not None:
            out.append(Token(m.start(), m.end(), quoted, quoted=True))
            continue
        head, sep, _ = word.partition(":")
        key = _BY_SPELLING.get(head.lower()) if sep else None
        if key is not None:
            out.append(
                Token(m.start(), m.end(), word, key=key.name, value_at=m.start() + len(head) + 1)
            )
        else:
            out.append(Token(m.start(), m.end(), word))
    return out


@dataclass
class Parsed:
    """What a query asks for (``LogFilter`` is built from it)."""

    terms: list[str]
    methods: list[str]
    kinds: set[Kind]
    directions: set[Direction]
    channels: set[Channel]
    findings: bool = False
    errors: bool = False
    problems: list[Problem] | None = None
    servers: list[str] = field(default_factory=list)


def _values(token: Token) -> Iterable[tuple[int, str]]:
    """(position, value) of each comma-separated value of a key token."""
    at = token.value_at
    for part in token.value.split(","):
        if part:
            yield at, part
        at += len(part) + 1


def _unknown(what: str, value: str, start: int, key: FilterKey) -> Problem:
    return Problem(start, start + len(value), f"unknown {what} {value!r}: {', '.join(key.values)}")


def _not_a_key(token: Token) -> Problem | None:
    """The problem with ``word:value`` whose ``word`` is not a key, if it is one.

    ``/foo:bar`` counts too: the ``/`` that opens the filter, typed once more, made a
    text search that found nothing and said nothing."""
    head, sep, value = token.text.partition(":")
    slash = head.startswith("/")
    word = head[1:] if slash else head
    if not (sep and value and _KEYLIKE.fullmatch(word) and not value.startswith("/")):
        return None
    quote = f'to search for the text, quote it: "{token.text}"'
    end = token.start + len(head)
    if slash and word.lower() in _BY_SPELLING:
        return Problem(
            token.start, end, f"{head!r}: the key is {word!r}, without the / before it; {quote}"
        )
    return Problem(
        token.start, end, f"unknown key {word!r} (keys: {', '.join(KEY_NAMES)}); {quote}"
    )


def parse_query(query: str) -> Parsed:
    """Parse ``query``; see the module docstring."""
    out = Parsed([], [], set(), set(), set(), problems=[])
    problems: list[Problem] = []
    for token in tokens(query):
        if token.quoted:
            if token.text:
                out.terms.append(token.text)
            continue
        if token.key is None:
            problem = _not_a_key(token)
            if problem is not None:
                problems.append(problem)
            else:
                out.terms.append(token.text)
            continue
        key = _BY_SPELLING[token.key]
        values = list(_values(token))
        if not values:
            offered = f": {', '.join(key.values)}" if key.values else ""
            problems.append(Problem(token.start, token.end, f"{key.name}: needs a value{offered}"))
            continue
        for at, value in values:
            problem = _apply(out, key, value, at)
            if problem is not None:
                problems.append(problem)
    out.problems = problems
    return out


def _apply(out: Parsed, key: FilterKey, value: str, at: int) -> Problem | None:
    """Add one value of ``key`` to ``out``; a Problem when it is not one of its values."""
    low = value.lower()
    if key.name == "method":
        out.methods.append(value)
    elif key.name == "kind":
        if low not in _KIND_ALIASES:
            return _unknown("kind", value, at, key)
        out.kinds.add(_KIND_ALIASES[low])
    elif key.name == "is":
        if low in ERROR_WORDS:
            out.errors = True
        elif low in FINDING_WORDS:
            out.findings = True
        elif low in _KIND_ALIASES:
            out.kinds.add(_KIND_ALIASES[low])
        else:
            return _unknown("value", value, at, key)
    elif key.name == "dir":
        if low not in _DIR_ALIASES:
            return _unknown("direction", value, at, key)
        out.directions.add(_DIR_ALIASES[low])
    elif key.name == "ch":
        if low not in _CHANNEL_ALIASES:
            return _unknown("channel", value, at, key)
        out.channels.add(_CHANNEL_ALIASES[low])
    elif key.name == "server":
        out.servers.append(value)
    elif key.name == "has":
        if low not in FINDING_WORDS:
            return _unknown("value", value, at, key)
        out.findings = True
    return None


@dataclass(frozen=True, slots=True)
class LogFilter:
    """A parsed filter: every part must hold (text terms AND kind AND ...).

    Several values of one key are alternatives. A text term is a substring of the frame
    in any case (Unicode casefold), found in the raw bytes and in the decoded text alike:
    ``é`` finds ``É`` and ``\\u00e9`` on the wire (see ``textmatch``); ``patterns`` holds
    one bytes regex per term, to search raw frames (or a buffer of them) with.
    ``errors`` (``is:error``): JSON-RPC errors and results with ``isError: true``.
    """

    terms: tuple[str, ...] = ()
    methods: tuple[str, ...] = ()
    kinds: frozenset[Kind] = frozenset()
    directions: frozenset[Direction] = frozenset()
    channels: frozenset[Channel] = frozenset()
    findings: bool = False
    errors: bool = False
    problems: tuple[Problem, ...] = ()  # parts that were not understood (shown to the user)
    servers: tuple[str, ...] = ()  # a workspace's server names (the events' meta "server")
    patterns: tuple[re.Pattern[bytes], ...] = field(default=(), compare=False, repr=False)

    @classmethod
    def parse(cls, query: str) -> LogFilter:
        parsed = parse_query(query)
        return cls(
            tuple(parsed.terms),
            tuple(parsed.methods),
            frozenset(parsed.kinds),
            frozenset(parsed.directions),
            frozenset(parsed.channels),
            parsed.findings,
            parsed.errors,
            tuple(parsed.problems or ()),
            tuple(parsed.servers),
            tuple(term_pattern(t) for t in parsed.terms),
        )

    @property
    def is_empty(self) -> bool:
        return not (
            self.terms
            or self.methods
            or self.kinds
            or self.directions
            or self.channels
            or self.servers
            or self.findings
            or self.errors
        )

    def matches(self, event: WireEvent) -> bool:
        """Whether one event passes (the proxy's intercept holds the frames that do)."""
        if self.kinds and event.kind not in self.kinds:
            return False
        if self.directions and event.direction not in self.directions:
            return False
        if self.channels and event.channel not in self.channels:
            return False
        if self.methods:
            method = event.method
            if method is None or not self.method_matches(method):
                return False
        if self.servers and not self.server_matches(event.meta.get(SERVER_KEY)):
            return False
        if self.findings and not event.findings:
            return False
        if self.errors and not (event.kind is Kind.ERROR or is_tool_error(event.message)):
            return False
        return all(p.search(event.raw) for p in self.patterns)

    def server_matches(self, server: Any) -> bool:
        """The event's server (its meta's ``server``) is one the query names (case
        folded; * and ? glob)."""
        if not isinstance(server, str):
            return False
        name = server.casefold()
        return any(fnmatchcase(name, pat.casefold()) for pat in self.servers)

    def method_matches(self, name: str) -> bool:
        for pat in self.methods:
            if pat.endswith("/") and name.startswith(pat):
                return True
            if fnmatchcase(name, pat) if any(c in pat for c in "*?[") else name == pat:
                return True
        return False


def is_tool_error(message: Any) -> bool:
    """A response whose result says it failed: ``{"result": {"isError": true, ...}}``."""
    if not isinstance(message, dict):
        return False
    result = message.get("result")
    return isinstance(result, dict) and result.get("isError") is True


# -- completion ----------------------------------------------------------------------------


def _last_word(query: str) -> tuple[int, str]:
    """Where the word being typed at the end of ``query`` starts, and the word."""
    if not query or query[-1].isspace():
        return len(query), ""
    start = max(query.rfind(" "), query.rfind("\t")) + 1
    return start, query[start:]


def candidates(query: str, methods: Iterable[str] = ()) -> tuple[str, list[str]]:
    """What may complete the word being typed at the end of ``query``: ``("key", [...])``
    for key names, ``("kind", [...])`` for the values of a key (``methods``: the method
    names seen so far, for ``method:``); ``("", [])`` when nothing applies."""
    _, word = _last_word(query)
    if word.startswith('"'):
        return "", []
    head, sep, value = word.partition(":")
    if not sep:
        low = head.lower()
        found = [k.name for k in KEYS if any(s.startswith(low) for s in k.spellings)]
        return ("key", found) if low else ("key", list(KEY_NAMES))
    key = _BY_SPELLING.get(head.lower())
    if key is None:
        return "", []
    offered = sorted(set(methods)) if key.name == "method" else list(key.values)
    partial = value.rsplit(",", 1)[-1].lower()
    return key.name, [v for v in offered if v.lower().startswith(partial)]


def complete(query: str, methods: Iterable[str] = ()) -> str | None:
    """``query`` with the word at its end completed (a key gets its colon), or None.
    What was typed is kept as typed: the completion only adds to it."""
    _, word = _last_word(query)
    if not word or word.startswith('"'):
        return None
    head, sep, value = word.partition(":")
    if not sep:
        low = head.lower()
        spellings = [s for k in KEYS for s in k.spellings if s.startswith(low)]
        return query + spellings[0][len(word) :] + ":" if spellings else None
    _, found = candidates(query, methods)
    partial = value.rsplit(",", 1)[-1]
    longer = [v for v in found if len(v) > len(partial)]
    return query + longer[0][len(partial) :] if longer else None
