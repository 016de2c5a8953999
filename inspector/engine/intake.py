"""How frames enter a session's wire: numbered, checked, written to the recorder
(write-ahead, flushed once for frames read together), then acted on in order; and which
frames of such a batch must wait for the ones before them to be acted on."""

from __future__ import annotations

import logging
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from typing import Protocol, cast

from inspector.wire.events import Direction, WireEvent

log = logging.getLogger(__name__)


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


class Intake:
    """A session's wire intake: ``check`` adds an event's findings before it is recorded,
    ``act_on`` hands it on (observers, routing) once the recording holds it."""

    def __init__(
        self,
        recorder: EventRecorder | None,
        sequence: Iterator[int],
        check: Callable[[WireEvent], None],
        act_on: Callable[[WireEvent], None],
    ) -> None:
        self.recorder = recorder
        self._seq = sequence
        self._check = check
        self._act_on = act_on
        # recorded, not acted on yet; None when nothing is being emitted
        self._acting: deque[WireEvent] | None = None
        # a recorder that cannot defer its flush flushes each frame itself
        self._flush_each = not callable(getattr(recorder, "flush", None))

    def emit_many(self, events: Iterable[WireEvent]) -> None:
        """Frames read together, in order; the recording is flushed once for them, before
        any of them is acted on (still write-ahead). A response waits for the frames
        before it to be acted on first (its findings read the requests they answered). A
        frame emitted while these are acted on (a note) is recorded at once and acted on
        after them: observers see the order of seq."""
        queue = self._acting
        if queue is not None:  # emitted by a subscriber: after what is being acted on
            for event in events:
                self._take_in(event, flush=True)
                queue.append(event)
            return
        queue = self._acting = deque()
        try:
            for event in events:
                if queue and reads_earlier(event):
                    self._act(queue)
                self._take_in(event, flush=self._flush_each)
                queue.append(event)
            self._act(queue)
        finally:
            self._acting = None

    def _take_in(self, event: WireEvent, *, flush: bool) -> None:
        """Seq, findings, and the recording (flushed now or by ``_act``)."""
        event.seq = next(self._seq)
        self._check(event)
        if self.recorder is not None:
            if flush:
                self.recorder.write(event)  # write-ahead: on disk before anyone acts on it
            else:
                cast(BatchRecorder, self.recorder).write(event, flush=False)

    def _act(self, queue: deque[WireEvent]) -> None:
        """The recording flushed, then each queued event acted on."""
        if not self._flush_each and self.recorder is not None:
            cast(BatchRecorder, self.recorder).flush()
        while queue:
            event = queue.popleft()
            try:
                self._act_on(event)
            except Exception:  # the frames after it are still acted on: none is lost
                log.exception("acting on frame %s failed", event.seq)
