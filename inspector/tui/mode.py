"""What the app shows: a live session on a target, or a recorded one offline.

    InspectorApp(Live(target), options=SessionOptions(timeout=30))
    InspectorApp(Replay(IndexedSessionFile(path), title=path.name))

The mode is one value: the app asks it whether it can send (``live``) instead of
checking for a missing target or a present source.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from inspector.record.indexed import IndexedSessionFile
from inspector.target import Target


@dataclass(frozen=True)
class Live:
    """A live session on ``target``: calls are sent, the session can reconnect."""

    target: Target
    live: ClassVar[bool] = True


@dataclass(frozen=True)
class Replay:
    """A recorded session shown offline: nothing can be sent, nothing reconnects."""

    source: IndexedSessionFile
    title: str | None = None  # the status bar's name for it (the file's)
    live: ClassVar[bool] = False


Mode = Live | Replay

# what a replay cannot do: its footer leaves these keys out (pressed, they say why)
LIVE_ONLY = ("send", "reconnect")


def as_mode(
    mode: Mode | Target | None, source: IndexedSessionFile | None, title: str | None
) -> Mode:
    """The mode the arguments name: a bare target is live; ``None`` with a source a replay."""
    if isinstance(mode, Target):
        return Live(mode)
    if mode is None:
        if source is None:
            raise TypeError("InspectorApp needs a target or a recording (source=)")
        return Replay(source, title)
    return mode
