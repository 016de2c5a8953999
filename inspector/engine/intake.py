"""How frames enter a session's wire: the recorder it writes them to (write-ahead), and
which frames of a batch read together must wait for the ones before them to be acted on
(``Session.emit_many``)."""

from __future__ import annotations

from typing import Protocol

from inspector.wire.events import Direction, WireEvent


class EventRecorder(Protocol):
    def write(self, event: WireEvent) -> None: ...


class BatchRecorder(Protocol):
    """A recorder that can leave a write in its buffer (``inspector.record.Recorder``):
    frames read together are then flushed once."""

    def write(self, event: WireEvent, *, flush: bool = True) -> None: ...

    def flush(self) -> None: ...


def reads_earlier(event: WireEvent) -> bool:
    """Whether ``event``'s findings depend on the frames before it being acted on: a
    response (or a batch) coming in reads the requests they answered."""
    message = event.message
    if event.direction is not Direction.IN or message is None:
        return False
    return not isinstance(message, dict) or "method" not in message
