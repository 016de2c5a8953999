"""``${var}`` and ``${env:NAME}`` in a collection's strings.

``${env:NAME}`` is read from the environment when the file is loaded (its value becomes a
secret: never printed, never recorded); ``${var}`` when its step runs, from ``vars`` and
what earlier steps saved. A string that is one ``${var}`` alone takes the value as it is
(a number stays a number); inside a longer string the value is written as text (JSON for
objects). ``$${`` is a literal ``${``.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator, Mapping
from typing import Any

from inspector.errors import InspectorError

PATTERN = re.compile(r"\$\$\{|\$\{([^}]*)\}")
NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_.-]*")


class MissingVariable(InspectorError, KeyError):
    """A ``${name}`` with no value (the loader's check makes this rare at run time)."""


def references(value: Any) -> Iterator[str]:
    """Every ``${...}`` body in ``value`` (strings in containers too), in order."""
    if isinstance(value, str):
        for match in PATTERN.finditer(value):
            if match.group(1) is not None:
                yield match.group(1)
    elif isinstance(value, dict):
        for item in value.values():
            yield from references(item)
    elif isinstance(value, list):
        for item in value:
            yield from references(item)


def substitute(value: Any, lookup: Callable[[str], Any], *, unescape: bool = True) -> Any:
    """``value`` with every ``${...}`` replaced by ``lookup(body)``; containers copied.

    ``unescape`` False keeps ``$${`` as written (load time: run time unescapes it)."""
    if isinstance(value, str):
        whole = PATTERN.fullmatch(value)
        if whole is not None and whole.group(1) is not None:
            return lookup(whole.group(1))

        def one(match: re.Match[str]) -> str:
            if match.group(1) is None:
                return "${" if unescape else "$${"
            found = lookup(match.group(1))
            return found if isinstance(found, str) else json.dumps(found, ensure_ascii=False)

        return PATTERN.sub(one, value)
    if isinstance(value, dict):
        return {key: substitute(item, lookup, unescape=unescape) for key, item in value.items()}
    if isinstance(value, list):
        return [substitute(item, lookup, unescape=unescape) for item in value]
    return value


def env_only(environ: Mapping[str, str], found: list[str]) -> Callable[[str], Any]:
    """A lookup for load time: ``env:NAME`` from ``environ`` (its value appended to
    ``found``); a ``${var}`` is left as written, for run time."""

    def lookup(body: str) -> Any:
        if body.startswith("env:"):
            name = body[4:]
            if name not in environ:
                raise MissingVariable(f"env:{name}")
            found.append(environ[name])
            return environ[name]
        return "${" + body + "}"

    return lookup


def from_vars(values: Mapping[str, Any]) -> Callable[[str], Any]:
    """A lookup for run time: the variables known so far."""

    def lookup(body: str) -> Any:
        if body not in values:
            raise MissingVariable(body)
        return values[body]

    return lookup
