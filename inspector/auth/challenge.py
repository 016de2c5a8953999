"""``WWW-Authenticate`` (RFC 9110 section 11.6.1, RFC 6750 section 3): the Bearer challenge's
``resource_metadata`` (RFC 9728), ``scope``, ``error`` and ``error_description``."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field

_TOKEN = r"[!#$%&'*+\-.^_`|~0-9A-Za-z]+"
_PARAM = re.compile(rf'({_TOKEN})\s*=\s*(?:"((?:[^"\\]|\\.)*)"|([^\s,]*))')
_SCHEME = re.compile(rf"({_TOKEN})(?=\s|,|$)")


@dataclass(slots=True)
class Challenge:
    """One authentication challenge: its scheme and its parameters (names lower-cased)."""

    scheme: str
    params: dict[str, str] = field(default_factory=dict)

    @property
    def resource_metadata(self) -> str | None:
        return self.params.get("resource_metadata") or None

    @property
    def scopes(self) -> list[str] | None:
        """The scopes the server asks for; None when it names none."""
        value = self.params.get("scope")
        return value.split() if value is not None and value.strip() else None

    @property
    def error(self) -> str | None:
        return self.params.get("error") or None

    @property
    def error_description(self) -> str | None:
        return self.params.get("error_description") or None


def parse_www_authenticate(value: str) -> list[Challenge]:
    """Every challenge in a header value (``Basic realm="x", Bearer scope="a b"``): a
    ``name=value`` belongs to the challenge before it, a lone token starts a new one."""
    challenges: list[Challenge] = []
    pos = 0
    while pos < len(value):
        if value[pos] in ", \t":
            pos += 1
            continue
        param = _PARAM.match(value, pos)
        if param is not None and challenges:
            quoted = param.group(2)
            text = re.sub(r"\\(.)", r"\1", quoted) if quoted is not None else param.group(3)
            challenges[-1].params.setdefault(param.group(1).lower(), text)
            pos = param.end()
            continue
        scheme = _SCHEME.match(value, pos)
        if scheme is not None:
            challenges.append(Challenge(scheme.group(1)))
            pos = scheme.end()
            continue
        comma = value.find(",", pos)  # a token68 or garbage: skip to the next item
        pos = len(value) if comma < 0 else comma + 1
    return challenges


def bearer_challenge(headers: Mapping[str, str]) -> Challenge | None:
    """The Bearer challenge of a response's headers (any case), else its DPoP one (RFC
    9449 section 7.1: the same parameters), if it has one."""
    value = next((v for k, v in headers.items() if k.lower() == "www-authenticate"), None)
    if not value:
        return None
    challenges = parse_www_authenticate(value)
    for scheme in ("bearer", "dpop"):
        for challenge in challenges:
            if challenge.scheme.lower() == scheme:
                return challenge
    return None
