"""The server's log (``notifications/message``): kept, counted by level, taken in batches.

log = ServerLog()
log.attach(session)        # listens for notifications/message
log.take_new()             # the entries that came since the last take
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from inspector.engine.session import Session

MAX_ENTRIES = 5000


@dataclass
class LogEntry:
    """One ``notifications/message``: its params as sent, and when it came."""

    params: dict[str, Any]
    when: datetime = field(default_factory=datetime.now)

    @property
    def level(self) -> str:
        return str(self.params.get("level", "?"))


class ServerLog:
    """The last ``max_entries`` messages of the current session's server, and counts."""

    def __init__(self, max_entries: int = MAX_ENTRIES) -> None:
        self.entries: deque[LogEntry] = deque(maxlen=max_entries)
        self.count = 0  # messages received
        self.counts: dict[str, int] = {}
        self.session: Session | None = None
        self._new: deque[LogEntry] = deque(maxlen=max_entries)  # not taken yet

    def attach(self, session: Session) -> None:
        if self.session is not None:
            self.session.off_notification(self.receive)
        self.session = session
        session.on_notification("notifications/message", self.receive)

    def receive(self, params: dict[str, Any]) -> None:
        entry = LogEntry(params)
        self.count += 1
        level = entry.level
        self.counts[level] = self.counts.get(level, 0) + 1
        self.entries.append(entry)
        self._new.append(entry)

    def take_new(self) -> list[LogEntry]:
        new = list(self._new)
        self._new.clear()
        return new

    def clear(self) -> None:
        """Forget the entries shown (the counts stay: they count what came)."""
        self.entries.clear()
        self._new.clear()
