"""The proxy's wire: every frame from every side, numbered, linted, recorded, then shown.

One sequence for the whole proxy (the host's frames, the inspectors', the server's, and
the proxy's own notes), like a session's wire: each event is on disk (write-ahead)
before anything acts on it, then the watchers see it (the attach socket sends it to the
inspectors), then the relay passes the frame on.

Write-ahead, batched: on the stdio hot path (``emit(..., defer=True)``) the event goes
into the recorder's buffer, and the writer that passes frames on (the host's stdout, the
server's stdin) calls ``sync`` just before its one write for every frame of this turn of
the event loop: the file gets them before the pipe does, with one write for a burst of
frames instead of one each. On the HTTP paths, an event that another follows at once,
flushed, before anything acts on either (a host's POST before its frame goes to the
server, a server's POST line before its body, a response's status before its body) is
deferred too: one flush for them all. Anything else (a watcher that acts at once) is
flushed at once.
"""

from __future__ import annotations

import asyncio
import itertools
import logging
from collections import deque
from collections.abc import Callable
from typing import Any

from inspector.engine.lint import check_message
from inspector.engine.session import EventRecorder
from inspector.proxy.router import Route
from inspector.record.recorder import Recorder
from inspector.wire.events import Channel, Direction, Finding, WireEvent

log = logging.getLogger(__name__)

HISTORY_EVENTS = 20_000  # what an inspector that attaches late is shown of the past...
HISTORY_BYTES = 64 << 20  # ...within this many bytes of frames (a few huge results)

Watcher = Callable[[WireEvent, "Route | None"], None]


class ProxyWire:
    """Seq, findings, the recorder and the watchers, for every link of one proxy."""

    def __init__(
        self,
        recorder: EventRecorder | None = None,
        history: int = HISTORY_EVENTS,
        history_bytes: int = HISTORY_BYTES,
    ) -> None:
        self.recorder = recorder
        self.history: deque[WireEvent] = deque()
        self._history_max = history
        self._history_bytes_max = history_bytes
        self._history_bytes = 0
        self._seq = itertools.count(1)
        self._watchers: list[Watcher] = []
        self._acting_now: list[Watcher] = []  # those that act before the turn ends
        self.count = 0
        self._buffered = isinstance(recorder, Recorder)  # can defer its flush
        self._unsynced = False

    def watch(self, watcher: Watcher, *, acts_later: bool = False) -> None:
        """Show every event to ``watcher``. ``acts_later``: it only queues the event for a
        task of its own (the control socket), which runs after this turn's ``sync``, so
        the wire may still defer its flush; a watcher that acts at once makes every
        event go to disk before it sees it."""
        self._watchers.append(watcher)
        if not acts_later:
            self._acting_now.append(watcher)

    def unwatch(self, watcher: Watcher) -> None:
        for watchers in (self._watchers, self._acting_now):
            if watcher in watchers:
                watchers.remove(watcher)

    def emit(self, event: WireEvent, route: Route | None = None, *, defer: bool = False) -> None:
        """Number, lint and record ``event`` (write-ahead), then show it to the watchers.
        ``defer``: the frame's writer calls ``sync`` before passing it on (see above)."""
        event.seq = next(self._seq)
        self.count += 1
        if event.message is not None and event.channel not in (Channel.SYSTEM, Channel.HTTP):
            event.findings.extend(check_message(event.message))
        elif event.error is not None and event.channel not in (Channel.STDERR, Channel.SYSTEM):
            event.findings.append(Finding("invalid", event.error, "error"))
        recorder = self.recorder
        if recorder is not None:
            if self._buffered and defer and not self._acting_now:
                assert isinstance(recorder, Recorder)
                recorder.write(event, flush=False)
                if not self._unsynced:
                    self._unsynced = True
                    _later(self.sync)  # and at the end of this turn whatever happens
            elif self._buffered:
                # what was buffered goes out with it, in the wire's order: one flush for all
                recorder.write(event)
                self._unsynced = False
            else:
                recorder.write(event)
        self._remember(event)
        for watcher in self._watchers:
            try:
                watcher(event, route)
            except Exception:  # a watcher's bug must not stop the relay
                log.exception("proxy watcher failed")

    def sync(self) -> None:
        """Flush the recorder's buffer (before a frame recorded with ``defer`` goes on)."""
        if self._unsynced:
            self._unsynced = False
            if isinstance(self.recorder, Recorder):
                self.recorder.flush()

    def _remember(self, event: WireEvent) -> None:
        history = self.history
        history.append(event)
        self._history_bytes += len(event.raw)
        while history and (
            len(history) > self._history_max or self._history_bytes > self._history_bytes_max
        ):
            self._history_bytes -= len(history.popleft().raw)

    def note(self, text: str, severity: str = "info", **meta: Any) -> WireEvent:
        """The proxy's own note (a LOCAL event)."""
        event = WireEvent(
            Direction.LOCAL,
            Channel.SYSTEM,
            text.encode("utf-8"),
            meta={"severity": severity, **meta},
        )
        self.emit(event)
        return event


def _later(callback: Callable[[], None]) -> None:
    try:
        asyncio.get_running_loop().call_soon(callback)
    except RuntimeError:  # no loop (a test driving the wire by hand): at once
        callback()
