"""What a replay found: one item per recorded exchange (same, changed, missing or new),
with the notes and the live server's info, as JSON for ``--json``."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from inspector.replay.notices import METHODS, NoticeResult

SAME, CHANGED, MISSING, NEW = "same", "changed", "missing", "new"
STATUSES = (SAME, CHANGED, MISSING, NEW)


@dataclass
class Item:
    """The outcome of one recorded exchange."""

    kind: str  # "request" | "server-request"
    method: str
    seq: int  # the recorded event's seq (0 for new server requests)
    status: str
    changes: list[dict[str, Any]] = field(default_factory=list)
    ignored: int = 0
    reason: str = ""
    recorded: Any = None
    live: Any = None
    detail: str = ""  # the tool, prompt or resource the request named
    notifications: NoticeResult | None = None  # the server's notifications for the request

    def to_json(self, full: bool = False) -> dict[str, Any]:
        data: dict[str, Any] = {
            "kind": self.kind,
            "method": self.method,
            "seq": self.seq,
            "status": self.status,
        }
        if self.detail:
            data["detail"] = self.detail
        if self.changes:
            data["changes"] = self.changes
        if self.ignored:
            data["ignoredChanges"] = self.ignored
        if self.reason:
            data["reason"] = self.reason
        if self.notifications is not None:
            data["notifications"] = self.notifications.to_json()
        if full or self.status != SAME:
            data["recorded"] = self.recorded
            data["live"] = self.live
        return data


@dataclass
class Report:
    items: list[Item] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    server_info: dict[str, Any] = field(default_factory=dict)
    notification_mode: str = METHODS

    def counts(self) -> dict[str, int]:
        counts = dict.fromkeys(STATUSES, 0)
        for item in self.items:
            counts[item.status] += 1
        return counts

    @property
    def differs(self) -> bool:
        return any(item.status != SAME for item in self.items)

    def to_json(self) -> dict[str, Any]:
        return {
            "summary": self.counts(),
            "differs": self.differs,
            "items": [i.to_json() for i in self.items],
            "notes": self.notes,
            "server": self.server_info,
            "notifications": self.notification_counts(),
        }

    def notification_counts(self) -> dict[str, Any]:
        """How the requests' notifications compared, and under which mode."""
        counts: dict[str, Any] = {
            "mode": self.notification_mode,
            "same": 0,
            "changed": 0,
            "volatile": 0,
        }
        for item in self.items:
            if item.notifications is not None:
                counts[item.notifications.status] += 1
        return counts
