"""How long a run lasts, as a person writes it: ``30s``, ``2m``, ``500ms``, ``1.5``.

The command line's ``--duration``/``--warmup`` and the TUI's load dialog read it alike."""

from __future__ import annotations

import re

_DURATION = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*(ms|s|m|h)?\s*$")
_UNITS = {"ms": 0.001, "s": 1.0, "m": 60.0, "h": 3600.0, None: 1.0}


def parse_duration(text: str) -> float:
    """Seconds; ``ValueError`` says what a duration looks like."""
    match = _DURATION.match(text)
    if not match:
        raise ValueError(f"{text!r} is not a duration (30s, 2m, 500ms)")
    return float(match.group(1)) * _UNITS[match.group(2)]
