"""JSONPath for ``jsonpath``, ``exists``, ``absent`` and ``save`` (jsonpath-ng, with its
extensions: filters such as ``$.content[?type == "text"].text``)."""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from jsonpath_ng import JSONPath
from jsonpath_ng.exceptions import JSONPathError


@lru_cache(maxsize=1024)
def compile_path(text: str) -> JSONPath:
    """The parsed path; ``ValueError`` saying so when ``text`` is not one. Cached: a
    collection of a thousand steps names the same few paths."""
    # Start-up: the parser (ply tables) loads with the first path, not with the package.
    from jsonpath_ng.ext.parser import parse

    if not text.strip().startswith("$"):
        raise ValueError(f"{text!r} is not a JSONPath: it starts with $ ($.structuredContent.id)")
    try:
        return parse(text)
    except (JSONPathError, Exception) as exc:  # ply raises plain Exception subclasses too
        raise ValueError(f"{text!r} is not a JSONPath: {exc}") from None


def find(text: str, document: Any) -> list[Any]:
    """The values ``text`` selects in ``document`` (an empty list: none)."""
    return [match.value for match in compile_path(text).find(document)]
