"""A workspace's one log of every server's frames: each server's session tags its frames
with the server's name (meta ``server``) before anything else sees them, so its own
log, its session file and the merged log all say whose frame it is (the log's
``server:NAME`` filter term reads it).

    tag = ServerTag("files", recorder)   # the session's recorder (write-ahead)
    tag.merge_into(merged.observe)       # from now on, a copy goes to the merged log too
"""

from __future__ import annotations

from collections.abc import Callable
from typing import cast

from inspector.engine.intake import BatchRecorder, EventRecorder
from inspector.wire.events import SERVER_KEY, WireEvent


def tag(event: WireEvent, name: str) -> WireEvent:
    """``event`` said to be ``name``'s (its meta replaced, not changed: it may be shared)."""
    if event.meta.get(SERVER_KEY) != name:
        event.meta = {**event.meta, SERVER_KEY: name}
    return event


class ServerTag:
    """A workspace server's session recorder: once merging, tags each frame and copies
    it to the merged log; its session file (when recorded) has it first."""

    def __init__(self, name: str, recorder: EventRecorder | None = None) -> None:
        self.name = name
        self.recorder = recorder
        self.sink: Callable[[WireEvent], None] | None = None
        self._unsunk: list[WireEvent] = []  # written unflushed: copied once flushed
        # a recorder that cannot defer its flush (a session's frames read together are
        # flushed once otherwise) flushes each frame
        self._defers = callable(getattr(recorder, "flush", None))

    def merge_into(self, sink: Callable[[WireEvent], None]) -> None:
        self.sink = sink

    def write(self, event: WireEvent, *, flush: bool = True) -> None:
        """``flush`` False: the session flushes after a batch of frames (``flush``); the
        copy to the merged log waits for that too (write-ahead)."""
        if self.sink is not None:  # a single server's frames stay as they were
            tag(event, self.name)
        if self.recorder is not None:
            if flush or not self._defers:
                self.recorder.write(event)  # write-ahead, as the session's own recorder
            else:
                cast(BatchRecorder, self.recorder).write(event, flush=False)
        if self.sink is not None:
            if flush:
                self.sink(event)
            else:
                self._unsunk.append(event)

    def flush(self) -> None:
        if self._defers:
            cast(BatchRecorder, self.recorder).flush()
        unsunk, self._unsunk = self._unsunk, []
        if self.sink is not None:
            for event in unsunk:
                self.sink(event)
