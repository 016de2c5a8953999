"""Reading session files: header check, events, torn last line tolerated."""

from __future__ import annotations

import os
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from inspector.record.format import SessionFileError, SessionHeader, decode_event
from inspector.wire.events import WireEvent


@dataclass
class SessionFile:
    """A whole session file read into memory (for small files; replay indexes big ones)."""

    path: Path
    header: SessionHeader
    events: list[WireEvent]
    warnings: list[str] = field(default_factory=list)


def open_header(path: str | os.PathLike[str]) -> SessionHeader:
    p = Path(path)
    try:
        with open(p, "rb") as fh:
            first = fh.readline()
    except FileNotFoundError:
        raise SessionFileError(f"{p}: no such file") from None
    except OSError as exc:
        raise SessionFileError(f"{p}: cannot be read: {exc.strerror or exc}") from exc
    if not first.strip():
        raise SessionFileError(f"{p}: the file is empty; nothing was recorded")
    return SessionHeader.from_line(first, str(p))


def iter_events(
    path: str | os.PathLike[str], warnings: list[str] | None = None
) -> Iterator[WireEvent]:
    """Every event in the file; broken lines are skipped with a warning (torn last line)."""
    p = Path(path)
    open_header(p)
    with open(p, "rb") as fh:
        fh.readline()
        number = 1
        for line in fh:
            number += 1
            if not line.strip():
                continue
            torn = not line.endswith(b"\n")
            try:
                yield decode_event(line)
            except (ValueError, KeyError, TypeError) as exc:
                what = "torn last line" if torn else f"unreadable line {number}"
                if warnings is not None:
                    warnings.append(f"{p}: skipped {what} ({exc.__class__.__name__})")


def read_session(path: str | os.PathLike[str]) -> SessionFile:
    warnings: list[str] = []
    header = open_header(path)
    events = list(iter_events(path, warnings))
    return SessionFile(Path(path), header, events, warnings)
