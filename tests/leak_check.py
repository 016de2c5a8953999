"""Look for secrets in every representation a session file stores them in."""

from __future__ import annotations

import base64
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import unquote_plus


def representations(path: Path) -> Iterator[tuple[int, bytes]]:
    """(line number, bytes) for each line as stored, each string value in it (JSON
    unescaped, and percent-decoded too), and each ``raw_b64`` decoded."""
    for number, line in enumerate(path.read_bytes().splitlines(), 1):
        yield number, line
        for key, value in _walk(json.loads(line)):
            if key == "raw_b64":
                yield number, base64.b64decode(value)
            yield number, value.encode("utf-8", "surrogateescape")
            yield number, unquote_plus(value).encode("utf-8", "surrogateescape")


def _walk(data: Any, key: str = "") -> Iterator[tuple[str, str]]:
    if isinstance(data, str):
        yield key, data
    elif isinstance(data, dict):
        for k, v in data.items():
            yield "", k  # keys are stored text too
            yield from _walk(v, k)
    elif isinstance(data, list):
        for v in data:
            yield from _walk(v, key)


def leaks(path: Path, secrets: list[str]) -> list[str]:
    """Where each secret appears: ``"SECRET at line N"``; empty when none does."""
    found = []
    for number, data in representations(path):
        for secret in secrets:
            if secret.encode() in data:
                found.append(f"{secret} at line {number}")
    return sorted(set(found))


def raw_b64_count(path: Path) -> int:
    """How many events were stored as base64 (the test must cover that path)."""
    return sum(1 for line in path.read_text().splitlines()[1:] if '"raw_b64"' in line)
