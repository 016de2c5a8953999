"""Redaction: secrets out of everything a session file stores.

One mechanism, working on bytes: a frame's raw bytes are redacted before the recorder
chooses how to store them (as text or as base64), so neither representation holds a
secret; the same rules run over ``meta`` (headers, URLs, notes), findings and the
header's ``target``. Bytes that are not UTF-8 go through unchanged around the secrets
(they are handled as text with ``surrogateescape``, which round-trips any byte).

What is a secret:

- a *registered value* (``add_secret``): ``-e`` values, credential headers' values,
  credential query values of the target URL, and whatever a later feature learns at run
  time (OAuth tokens). It is also found JSON-escaped and percent-encoded. Values shorter
  than ``MIN_SECRET`` characters are not registered: they would hide unrelated text.
- a value *by name*: headers and URL query parameters whose names look like credentials
  (``credential_name``), and the password in a URL's user info.
- a value *by field* (``add_field``): in a JSON body that is not a JSON-RPC message and in
  a form-encoded body, the values of ``access_token``, ``refresh_token``, ``code``... (OAuth
  requests and responses: ``inspector.credentials.SECRET_FIELDS``, the list the sign-in's
  own masking uses too). JSON-RPC messages are never rewritten by field name: a tool
  argument called ``code`` is the inspected traffic, not a credential.

A value found by name or by field is registered too, so its later appearances go as well.
"""

from __future__ import annotations

import itertools
import json
import re
from collections.abc import Callable, Iterable, Iterator, Mapping
from typing import Any
from urllib.parse import quote, quote_plus, unquote_plus

from inspector.credentials import SECRET_FIELDS, credential_name

REDACTED = "«redacted»"
MIN_SECRET = 4
HEADER_SETS_KEPT = 256  # distinct header sets whose redaction is remembered
HOLDS_CHUNK = 1 << 20  # characters of a result's strings searched at once for a secret


# a query parameter inside a URL in free text: "?api_key=abc", "&sig=..."
_QUERY_PARAM = re.compile(r"(?P<pre>[?&;])(?P<name>[^=&#\s?;\"'<>]+)=(?P<value>[^&#\s;\"'<>]*)")
# "scheme://user:password@": the password
_USERINFO = re.compile(r"(?P<pre>[A-Za-z][A-Za-z0-9+.-]*://[^/@:\s\"'<>]*:)(?P<pw>[^/@\s\"'<>]+)@")
_FORM = re.compile(r"^[\w.~%+-]+=[^&\s]*(?:&[\w.~%+-]+=[^&\s]*)*$")
_FORM_PAIR = re.compile(r"(?P<pre>(?:^|&)(?P<name>[^=&]+)=)(?P<value>[^&]*)")


def _as_text(data: bytes) -> str:
    return data.decode("utf-8", "surrogateescape")


def _as_bytes(text: str) -> bytes:
    return text.encode("utf-8", "surrogateescape")


def _forms(secret: str) -> set[str]:
    """The ways a value appears on the wire: as is, JSON-escaped, percent-encoded."""
    forms = {secret, quote(secret, safe=""), quote(secret), quote_plus(secret)}
    try:
        forms.add(json.dumps(secret)[1:-1])
        forms.add(json.dumps(secret, ensure_ascii=False)[1:-1])
    except UnicodeEncodeError:  # a lone surrogate (bytes that were not UTF-8)
        pass
    return forms


class Redactor:
    """Replaces secrets by ``«redacted»`` in what the recorder stores.

    ``add_secret`` and ``add_field`` may be called at any time (a sign-in learns its tokens
    mid-session); everything recorded after that call is covered."""

    def __init__(
        self,
        secrets: Iterable[str | bytes] = (),
        enabled: bool = True,
        *,
        fields: Iterable[str] = SECRET_FIELDS,
    ) -> None:
        self.enabled = enabled
        self._secrets: set[str] = set()
        self._fields: set[str] = set()
        self._pattern: re.Pattern[str] | None = None
        self._forms: list[str] = []  # the pattern's alternatives (a quick "is one there")
        self._bytes_pattern: re.Pattern[bytes] | None = None  # the same, over raw bytes
        self._headers_seen: dict[tuple[Any, ...], dict[str, Any]] = {}
        self._headers_plain: dict[tuple[Any, ...], bool] = {}  # header sets kept as they are
        for secret in secrets:
            self.add_secret(secret)
        for name in fields:
            self.add_field(name)

    # -- registration ---------------------------------------------------------------

    @property
    def secrets(self) -> list[str]:
        """The registered values, longest first."""
        return sorted(self._secrets, key=len, reverse=True)

    def add_secret(self, value: str | bytes) -> None:
        """Redact ``value`` (and its escaped forms) from now on; short values are ignored."""
        text = _as_text(value) if isinstance(value, bytes) else value
        if len(text) < MIN_SECRET or text in self._secrets or text == REDACTED:
            return
        self._secrets.add(text)
        forms = sorted(
            {f for s in self._secrets for f in _forms(s) if len(f) >= MIN_SECRET},
            key=len,
            reverse=True,
        )
        # one pass over the text: a replacement is never matched again
        self._pattern = re.compile("|".join(map(re.escape, forms)))
        self._forms = forms
        self._bytes_pattern = re.compile(b"|".join(re.escape(_as_bytes(f)) for f in forms))

    add = add_secret  # the older name

    def add_field(self, name: str) -> None:
        """Redact the values of body field ``name`` (JSON objects that are not JSON-RPC
        messages, form-encoded bodies)."""
        self._fields.add(name.lower())

    # -- the rules ------------------------------------------------------------------

    def text(self, value: str) -> str:
        """Registered secrets out of ``value``."""
        if not self.enabled or self._pattern is None:
            return value
        return self._pattern.sub(REDACTED, value)

    @property
    def masking(self) -> bool:
        """Whether ``text`` can change anything (a secret is registered, redaction is on):
        what a caller checks before it does any work for it."""
        return self.enabled and self._pattern is not None

    @property
    def known(self) -> int:
        """How many secrets are registered (it only grows): a cache of masked text keys on
        it, so a token learned later is masked in what was cached before."""
        return len(self._secrets)

    def cut_text(self, value: str, cut: str = "…") -> str:
        """Registered secrets out of ``value``, a text cut short (a log row's summary cuts
        its values with ``…``): a secret's start left just before a cut (``MIN_SECRET``
        characters or more of it) goes as well."""
        value = self.text(value)
        if cut not in value or self._pattern is None:
            return value
        parts = value.split(cut)
        return cut.join([*map(self._cut_tail, parts[:-1]), parts[-1]])

    def _cut_tail(self, text: str) -> str:
        """``text`` with the longest start of a secret it ends with masked."""
        last = text[-1:]
        if not last:
            return text
        for form in self._forms:  # longest first
            # only the starts that end with the text's last character are tried
            end = form.rfind(last, MIN_SECRET - 1, len(form) - 1)
            while end >= 0:
                if text.endswith(form[: end + 1]):
                    return text[: -(end + 1)] + REDACTED
                end = form.rfind(last, MIN_SECRET - 1, end)
        return text

    def url_text(self, value: str) -> str:
        """Credential query values and user-info passwords out of URLs in ``value``, then
        registered secrets (what is found by name is registered first)."""
        if not self.enabled:
            return value
        if "=" not in value and "@" not in value:  # most header values: no URL rule applies
            return self.text(value)

        def query(match: re.Match[str]) -> str:
            if not credential_name(match["name"]) or not match["value"]:
                return match[0]
            self.add_secret(match["value"])
            return f"{match['pre']}{match['name']}={REDACTED}"

        def userinfo(match: re.Match[str]) -> str:
            self.add_secret(match["pw"])
            return f"{match['pre']}{REDACTED}@"

        if "=" in value:
            value = _QUERY_PARAM.sub(query, value)
        if "@" in value:
            value = _USERINFO.sub(userinfo, value)
        return self.text(value)

    def frame(self, raw: bytes, *, urls: bool = False, content_type: str = "") -> bytes:
        """A frame's bytes with every secret replaced. ``urls``: the frame is text that
        names URLs (an HTTP request line, a note), so the query rule applies."""
        if not self.enabled:
            return raw
        if _inert(raw, content_type) and not self._holds_bytes(raw):
            # no rule can touch it (no URL query or user info, no JSON or form to learn
            # fields from, no registered secret): an HTTP line, a note; kept as it is
            return raw
        if not urls and raw[:1] == b"{" and b'"jsonrpc"' in raw and not self._holds_bytes(raw):
            # a JSON-RPC message (no field to learn from) holding no secret: kept as it is,
            # not decoded and encoded again (two copies of a 50 MB frame for nothing)
            return raw
        text = _as_text(raw)
        self._learn_fields(text, content_type)
        text = self.url_text(text) if urls else self.text(text)
        return _as_bytes(text)

    def _holds_bytes(self, raw: bytes) -> bool:
        """A registered secret is in ``raw`` (its UTF-8 bytes are in the bytes exactly
        where it is in the text)."""
        found = self._bytes_pattern
        return found is not None and found.search(raw) is not None

    def headers(self, headers: Mapping[str, Any]) -> dict[str, Any]:
        """Values of credential headers replaced whole (and registered); the rest cleaned."""
        if not self.enabled:
            return dict(headers)
        # every request of a session carries nearly the same headers: remembered per set of
        # rules (a new secret makes a new pattern, so nothing stale is reused)
        try:
            key = (self._pattern, tuple(headers.items()))
            known = self._headers_seen.get(key)
        except TypeError:  # a value that cannot be a key (a list): not remembered
            return self._clean_headers(headers)
        if known is None:
            known = self._clean_headers(headers)
            if len(self._headers_seen) >= HEADER_SETS_KEPT:
                self._headers_seen.clear()
            self._headers_seen[key] = known
        return dict(known)

    def _clean_headers(self, headers: Mapping[str, Any]) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for name, value in headers.items():
            if credential_name(str(name)) and value not in (None, ""):
                self._register_header_value(str(value))
                out[name] = REDACTED
            else:
                out[name] = self.value(value)
        return out

    def meta(self, meta: dict[str, Any]) -> dict[str, Any]:
        """Transport facts: header dicts by name, every string by the URL rule and secrets."""
        if not self.enabled or not meta or self._plain(meta):
            return meta
        out: dict[str, Any] = {}
        for key, value in meta.items():
            kind = type(value)
            if kind is str:
                out[key] = self.url_text(value)
            elif value is None or kind is int or kind is bool or kind is float:
                out[key] = value  # nothing to clean (no ABC checks for the common case)
            elif isinstance(value, Mapping) and ("headers" in key or key == "env"):
                out[key] = self.headers(value)
            else:
                out[key] = self.value(value)
        return out

    def _plain(self, meta: dict[str, Any]) -> bool:
        """Nothing in ``meta`` a rule could touch (the common case: every frame's
        ``side``/``link``/``stream``, an HTTP line's URL and a header set seen before),
        decided without the walk: no string with a URL rule's ``=`` or ``@`` or a
        registered secret, no credential header."""
        pattern = self._pattern
        texts: list[str] = []
        for key, value in meta.items():
            kind = type(value)
            if kind is str:
                if "=" in value or "@" in value:
                    return False
                texts.append(value)
            elif kind is dict and ("headers" in key or key == "env"):
                if not self._plain_headers(value):
                    return False
            elif not (value is None or kind is int or kind is bool or kind is float):
                return False
        # one search over them all, joined by NUL (which no secret's form holds)
        return pattern is None or not texts or pattern.search("\0".join(texts)) is None

    def _plain_headers(self, headers: dict[str, Any]) -> bool:
        """``headers`` (a meta's header dict) would come out of ``headers()`` as they are:
        strings only, no credential name with a value, no URL rule or secret in a value.
        Remembered per set of rules and header set, as ``headers()`` remembers its work."""
        pattern = self._pattern
        try:
            key = (pattern, tuple(headers.items()))
            known = self._headers_plain.get(key)
        except TypeError:  # a value that cannot be a key: walked
            return False
        if known is None:
            known = all(
                type(name) is str
                and type(value) is str
                and not (value and credential_name(name))
                and "=" not in value
                and "@" not in value
                and (pattern is None or pattern.search(value) is None)
                for name, value in headers.items()
            )
            if len(self._headers_plain) >= HEADER_SETS_KEPT:
                self._headers_plain.clear()
            self._headers_plain[key] = known
        return known

    def value(self, value: Any) -> Any:
        """Any JSON-like value: strings cleaned, containers walked."""
        if isinstance(value, str):
            return self.url_text(value)
        if isinstance(value, Mapping):
            return self.meta(dict(value))
        if isinstance(value, list | tuple):
            return [self.value(v) for v in value]
        return value

    def parsed(self, value: Any) -> Any:
        """Parsed JSON (a result shown) with registered secrets out of its strings and
        keys. The same object when none holds one (the common case: nothing copied), else
        a copy of it; walked without recursion, so any depth."""
        if not self.enabled or self._pattern is None or not self._holds(value):
            return value
        if isinstance(value, dict | list) and not any('"' in f or "\\" in f for f in self._forms):
            # a secret without quotes or backslashes is found in the JSON text only inside
            # one string (or a number or literal, which then no longer parses): C speed
            try:
                return json.loads(self.text(json.dumps(value, ensure_ascii=False)))
            except (ValueError, TypeError, RecursionError):
                pass
        return _rebuilt(value, self.text)

    def _holds(self, value: Any) -> bool:
        """A registered secret is in one of ``value``'s strings or keys. Substring search
        (C speed) over the strings joined a chunk at a time: a regex call per string of a
        result of many small objects cost seconds."""
        forms = self._forms
        chunk: list[str] = []
        size = 0
        stack: list[Iterator[Any]] = [iter((value,))]
        while stack:
            for item in stack[-1]:
                if isinstance(item, str):
                    if len(item) >= HOLDS_CHUNK:  # searched alone: a big text is not copied
                        if _any_in(forms, [item]):
                            return True
                        continue
                    chunk.append(item)
                    size += len(item)
                    if size >= HOLDS_CHUNK:
                        if _any_in(forms, chunk):
                            return True
                        chunk, size = [], 0
                elif isinstance(item, dict):
                    stack.append(itertools.chain(item.keys(), item.values()))
                    break
                elif isinstance(item, list):
                    stack.append(iter(item))
                    break
            else:
                stack.pop()
        return _any_in(forms, chunk)

    def target(self, target: dict[str, Any]) -> dict[str, Any]:
        """A session header's target: env values by name and value, headers, the URL."""
        return self.meta(target)

    # -- learning -------------------------------------------------------------------

    def _register_header_value(self, value: str) -> None:
        self.add_secret(value)
        scheme, sep, token = value.partition(" ")
        if sep and scheme.isalpha():  # "Bearer abc": the token alone too
            self.add_secret(token.strip())

    def _learn_fields(self, text: str, content_type: str) -> None:
        """Register the values of secret fields in a non-JSON-RPC JSON body or a form."""
        if not self._fields:
            return
        stripped = text.strip()
        if stripped[:1] in ("{", "["):
            if '"jsonrpc"' in stripped:
                return  # the common case, decided without parsing
            lowered = stripped.lower()
            if not any(f'"{f}"' in lowered for f in self._fields):
                return
            try:
                data = json.loads(stripped)
            except ValueError:
                return
            if not _is_jsonrpc(data):
                self._walk_fields(data)
        elif "form-urlencoded" in content_type or (
            "=" in stripped and len(stripped) < 1 << 16 and _FORM.match(stripped)
        ):
            for match in _FORM_PAIR.finditer(stripped):
                name = _unquote(match["name"]).lower()
                if name in self._fields and match["value"]:
                    self.add_secret(match["value"])
                    self.add_secret(_unquote(match["value"]))

    def _walk_fields(self, data: Any, depth: int = 0) -> None:
        if depth > 32:
            return
        if isinstance(data, dict):
            for key, value in data.items():
                if isinstance(value, str) and str(key).lower() in self._fields:
                    self.add_secret(value)
                else:
                    self._walk_fields(value, depth + 1)
        elif isinstance(data, list):
            for item in data:
                self._walk_fields(item, depth + 1)


def _inert(raw: bytes, content_type: str) -> bool:
    """No rule but a registered secret's can touch ``raw``: no ``=`` or ``@`` (the URL
    rules, a form's fields), no ``{`` or ``[`` (a JSON body's fields), not a form."""
    return (
        b"=" not in raw
        and b"@" not in raw
        and b"{" not in raw
        and b"[" not in raw
        and "form-urlencoded" not in content_type
    )


def _any_in(forms: list[str], texts: list[str]) -> bool:
    """One of ``forms`` is in one of ``texts`` (joined by NUL, which no form holds)."""
    joined = texts[0] if len(texts) == 1 else "\0".join(texts)
    return any(form in joined for form in forms) if texts else False


class _Node:
    """A container being rebuilt: its items so far, and the key it goes under."""

    __slots__ = ("items", "key", "pairs", "source")

    def __init__(self, source: dict[Any, Any] | list[Any], key: Any) -> None:
        self.source = source
        self.key = key
        self.pairs: Iterator[tuple[Any, Any]] = (
            iter(source.items()) if isinstance(source, dict) else ((None, v) for v in source)
        )
        self.items: list[tuple[Any, Any]] = []

    def built(self) -> dict[Any, Any] | list[Any]:
        if isinstance(self.source, dict):
            return dict(self.items)
        return [value for _, value in self.items]


def _rebuilt(value: Any, clean: Callable[[str], str]) -> Any:
    """A copy of parsed JSON with ``clean`` applied to every string and key (iterative)."""
    if not isinstance(value, dict | list):
        return clean(value) if isinstance(value, str) else value
    stack = [_Node(value, None)]
    while True:
        node = stack[-1]
        for key, item in node.pairs:
            key = clean(key) if isinstance(key, str) else key
            if isinstance(item, dict | list):
                stack.append(_Node(item, key))
                break
            node.items.append((key, clean(item) if isinstance(item, str) else item))
        else:
            stack.pop()
            built = node.built()
            if not stack:
                return built
            stack[-1].items.append((node.key, built))


def _is_jsonrpc(data: Any) -> bool:
    items = data if isinstance(data, list) else [data]
    return any(isinstance(item, dict) and "jsonrpc" in item for item in items)


def _unquote(text: str) -> str:
    return unquote_plus(text)
