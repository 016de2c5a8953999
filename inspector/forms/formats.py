"""Format checks jsonschema leaves to optional packages, done with the standard library.

Without ``rfc3339-validator`` or ``rfc3987`` installed, jsonschema accepts anything as a
``date-time`` or a ``uri``; these are the formats MCP tool schemas use most, so a form
would send ``""`` for a required date-time without a word. Each check returns False only
for a string that cannot be what the format says (other types pass, as the spec wants).
"""

from __future__ import annotations

import copy
import re
from collections.abc import Callable
from datetime import date
from typing import Any
from urllib.parse import urlsplit

_DATE_TIME = re.compile(
    r"(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2}):(\d{2})(\.\d+)?([Zz]|[+-]\d{2}:\d{2})"
)
_TIME = re.compile(r"(\d{2}):(\d{2}):(\d{2})(\.\d+)?([Zz]|[+-]\d{2}:\d{2})")
_DURATION = re.compile(
    r"P(?:\d+W|(?=\d|T\d)(?:\d+Y)?(?:\d+M)?(?:\d+D)?(?:T(?=\d)(?:\d+H)?(?:\d+M)?(?:\d+S)?)?)"
)
_SCHEME = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*")
_LABEL = re.compile(r"(?!-)[A-Za-z0-9-]{1,63}(?<!-)")
_SPACE_OR_CONTROL = re.compile(r"[\x00-\x20\x7f]")

# what a value of each format looks like: placeholders, and messages when one is not
FORMAT_EXAMPLES = {
    "date": "YYYY-MM-DD",
    "date-time": "YYYY-MM-DDThh:mm:ssZ",
    "time": "hh:mm:ss",
    "duration": "P1DT2H",
    "email": "name@example.com",
    "uri": "https://…",
    "uri-reference": "/path or https://…",
    "uuid": "xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx",
    "ipv4": "192.0.2.1",
    "ipv6": "2001:db8::1",
    "hostname": "host.example",
}


def _clock(hour: str, minute: str, second: str) -> bool:
    # a leap second (60) is valid in RFC 3339
    return int(hour) < 24 and int(minute) < 60 and int(second) <= 60


def is_date_time(value: object) -> bool:
    if not isinstance(value, str):
        return True
    match = _DATE_TIME.fullmatch(value)
    if match is None:
        return False
    year, month, day, hour, minute, second = (match.group(i) for i in range(1, 7))
    try:
        date(int(year), int(month), int(day))
    except ValueError:
        return False
    return _clock(hour, minute, second)


def is_time(value: object) -> bool:
    if not isinstance(value, str):
        return True
    match = _TIME.fullmatch(value)
    return match is not None and _clock(*match.group(1, 2, 3))


def is_duration(value: object) -> bool:
    return not isinstance(value, str) or _DURATION.fullmatch(value) is not None


def is_uri(value: object) -> bool:
    """An absolute URI: a scheme, then no spaces or control characters."""
    if not isinstance(value, str):
        return True
    scheme, sep, _ = value.partition(":")
    return (
        bool(sep)
        and _SCHEME.fullmatch(scheme) is not None
        and not _SPACE_OR_CONTROL.search(value)
        and _splits(value)
    )


def is_uri_reference(value: object) -> bool:
    return not isinstance(value, str) or (not _SPACE_OR_CONTROL.search(value) and _splits(value))


def is_hostname(value: object) -> bool:
    if not isinstance(value, str):
        return True
    name = value[:-1] if value.endswith(".") else value
    return 0 < len(name) <= 253 and all(_LABEL.fullmatch(label) for label in name.split("."))


def _splits(value: str) -> bool:
    try:
        urlsplit(value)
    except ValueError:  # e.g. an unbalanced IPv6 bracket
        return False
    return True


CHECKS: dict[str, Callable[[object], bool]] = {
    "date-time": is_date_time,
    "time": is_time,
    "duration": is_duration,
    "uri": is_uri,
    "uri-reference": is_uri_reference,
    "iri": is_uri,
    "iri-reference": is_uri_reference,
    "hostname": is_hostname,
}


def format_checker(base: Any) -> Any:
    """``base`` (a dialect's FORMAT_CHECKER) plus the checks it lacks on this machine."""
    checker = copy.copy(base)
    checker.checkers = dict(base.checkers)
    for name, check in CHECKS.items():
        checker.checkers.setdefault(name, (check, ()))
    return checker
