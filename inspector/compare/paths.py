"""Paths into a JSON value, as tuples and as the ``$.a["b"][0]`` text reports show."""

from __future__ import annotations

import json
import re

Key = str | int
PathTuple = tuple[Key, ...]


def format_path(path: PathTuple) -> str:
    """``("result", "a b", 0)`` -> ``$.result["a b"][0]``."""
    out = "$"
    for key in path:
        if isinstance(key, int):
            out += f"[{key}]"
        elif re.fullmatch(r"[A-Za-z_][\w-]*", key):
            out += f".{key}"
        else:
            out += f"[{json.dumps(key, ensure_ascii=False)}]"
    return out
