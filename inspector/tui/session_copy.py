"""Copying a session file elsewhere ("Save as"): where the copy goes, why it cannot go
there, and the copy itself - a snapshot of complete lines, safe while the file grows."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

from inspector.record.private import open_private

CHUNK = 1 << 20  # bytes copied per read: a 1 GB file never sits in memory


def default_target(source: Path) -> str:
    """The current directory, under the file's own name (shown with ~ for home); when
    that is the file itself (replaying a file in the current directory), "NAME-copy"."""
    target = Path.cwd() / source.name
    if target.exists() and _same(target, source):
        target = target.with_name(f"{source.stem}-copy{source.suffix}")
    return shorten(target)


def _same(a: Path, b: Path) -> bool:
    try:
        return a.samefile(b)
    except OSError:
        return False


def shorten(path: Path) -> str:
    home = str(Path.home())
    text = str(path)
    return "~" + text[len(home) :] if home != "/" and text.startswith(home + os.sep) else text


def resolve_target(text: str, source: Path) -> Path:
    """What the user typed as a path: ~ expanded, relative to the current directory;
    a directory (existing, or typed with a trailing slash) gets the file's own name."""
    typed = text.strip()
    path = Path(typed).expanduser()
    if not path.is_absolute():
        path = Path.cwd() / path
    if typed.endswith(("/", os.sep)) or path.is_dir():
        path = path / source.name
    return path


@dataclass(frozen=True)
class Problem:
    """Why the copy cannot go ahead as asked; ``kind`` is "same", "exists" or "unwritable"."""

    kind: str
    message: str


def check_target(target: Path, source: Path) -> Problem | None:
    """None when ``target`` can be written at once; "exists" asks to overwrite."""
    if not target.name:
        return Problem("unwritable", "give a file name")
    if target.exists():
        if _same(target, source):
            return Problem(
                "same", f"{shorten(target)} is the session file itself: choose another path"
            )
        if target.is_dir():
            return Problem("unwritable", f"{shorten(target)} is a directory")
        if not os.access(target, os.W_OK):
            return Problem("unwritable", f"{shorten(target)} exists and cannot be written")
        return Problem("exists", f"{shorten(target)} exists: save again to overwrite it")
    parent = target.parent
    if not parent.is_dir():
        return Problem("unwritable", f"{shorten(parent)} does not exist (or is not a directory)")
    if not os.access(parent, os.W_OK | os.X_OK):
        return Problem("unwritable", f"{shorten(parent)} cannot be written")
    return None


def copy_snapshot(source: Path, target: Path) -> int:
    """Copy ``source`` as it is now, up to its last complete line; returns the bytes copied.

    A session still being recorded grows while this runs: the size is taken once, and
    a line half-written at that moment is left out, so the copy reads cleanly."""
    with open(source, "rb") as src:
        size = os.fstat(src.fileno()).st_size
        end = _last_line_end(src, size)
        src.seek(0)
        left = end
        with open_private(target) as dst:  # a copy of the wire: the owner's only
            while left > 0:
                chunk = src.read(min(CHUNK, left))
                if not chunk:
                    break
                dst.write(chunk)
                left -= len(chunk)
    return end - left


def _last_line_end(src: BinaryIO, size: int) -> int:
    """The offset just past the last newline before ``size`` (0: no complete line)."""
    position = size
    while position > 0:
        start = max(0, position - CHUNK)
        src.seek(start)
        cut = src.read(position - start).rfind(b"\n")
        if cut >= 0:
            return start + cut + 1
        position = start
    return 0
