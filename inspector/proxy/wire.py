"""The proxy's wire: every frame from every side, numbered, linted, recorded, then shown.

One sequence for the whole proxy (the host's frames, the inspectors', the server's, and
the proxy's own notes), like a session's wire: each event is on disk (write-ahead)
before anything acts on it, then the watchers see it (the attach socket sends it to the
inspectors), then the relay passes the frame on.
"""

from __future__ import annotations

import itertools
import logging
from collections import deque
from collections.abc import Callable
from typing import Any

from inspector.engine.lint import check_message
from inspector.engine.session import EventRecorder
from inspector.proxy.router import Route
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
        self.count = 0

    def watch(self, watcher: Watcher) -> None:
        self._watchers.append(watcher)

    def unwatch(self, watcher: Watcher) -> None:
        if watcher in self._watchers:
            self._watchers.remove(watcher)

    def emit(self, event: WireEvent, route: Route | None = None) -> None:
        """Number, lint and record ``event`` (write-ahead), then show it to the watchers."""
        event.seq = next(self._seq)
        self.count += 1
        if event.message is not None and event.channel not in (Channel.SYSTEM, Channel.HTTP):
            event.findings.extend(check_message(event.message))
        elif event.error is not None and event.channel not in (Channel.STDERR, Channel.SYSTEM):
            event.findings.append(Finding("invalid", event.error, "error"))
        if self.recorder is not None:
            self.recorder.write(event)
        self._remember(event)
        for watcher in self._watchers:
            try:
                watcher(event, route)
            except Exception:  # a watcher's bug must not stop the relay
                log.exception("proxy watcher failed")

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
