"""Requests in flight and the last finished ones, with their outcome.

    requests = Requests()
    requests.attach(session)       # observes the session's events from now on
    requests.pending()             # session.pending, minus the answered ones
    requests.finished              # id -> Finished (ok | error | cancelled | timeout)

Each outcome is the session's word (``Session.on_finished``, a ``RequestFinished``):
answered, failed, cancelled, timed out, late; requests sent by hand (the raw editor)
included, which the session follows on the wire.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from inspector.engine.outcomes import CANCELLED_BY_USER, LATE, LOST, RequestFinished
from inspector.engine.pending import PendingRequest
from inspector.engine.session import Session
from inspector.wire.jsonrpc import RequestId

RECENT = 30  # finished requests kept on show

LISTEN = "subscriptions/listen"
LISTEN_KEYS = {
    "toolsListChanged": "tools",
    "resourcesListChanged": "resources",
    "promptsListChanged": "prompts",
}


def is_listen(method: str) -> bool:
    """A 2026-07-28 listen stream: open by design for as long as the session lives."""
    return method == LISTEN


def listen_label(params: Any) -> str:
    """``listening: tools, resources, 2 resources`` from the listen request's filter."""
    wanted = params.get("notifications") if isinstance(params, dict) else None
    parts: list[str] = []
    if isinstance(wanted, dict):
        for key, value in wanted.items():
            if key == "resourceSubscriptions" and isinstance(value, list):
                parts.append(f"{len(value)} subscribed resource{'s' * (len(value) != 1)}")
            elif value:
                parts.append(LISTEN_KEYS.get(key, key.removesuffix("ListChanged")))
    return f"listening: {', '.join(parts) or 'nothing'}"


def calls(pending: Iterable[PendingRequest]) -> int:
    """How many of ``pending`` (``session.pending`` values) are real calls awaiting an
    answer: listen streams are not (the status bar counts these)."""
    return sum(1 for p in pending if not is_listen(p.method) and not p.done.is_set())


def describe(method: str, params: Any) -> str:
    """The method plus what it is about (tool name, uri, prompt name)."""
    if is_listen(method):
        return listen_label(params)
    if isinstance(params, dict):
        for key in ("name", "uri", "taskId"):
            if isinstance(params.get(key), str):
                return f"{method} {params[key]}"
    return method


@dataclass
class Finished:
    id: RequestId
    label: str
    started: float
    ended: float
    outcome: str  # ok | tool error | error | cancelled | timeout
    detail: str = ""
    late: float | None = None  # seconds after giving up that a late response came


class Requests:
    """The requests of the current session: pending (the session's) and finished."""

    def __init__(self, recent: int = RECENT) -> None:
        self.recent = recent
        self.session: Session | None = None
        self.finished: OrderedDict[RequestId, Finished] = OrderedDict()
        self.changed = False  # something finished since the last ``take_changed``

    def attach(self, session: Session) -> None:
        """Follow ``session`` (a new connection): the old one's requests are forgotten."""
        if self.session is not None:
            self.session.off_finished(self.take)
        self.session = session
        self.finished.clear()
        self.changed = True
        session.on_finished(self.take)

    def take_changed(self) -> bool:
        changed, self.changed = self.changed, False
        return changed

    def pending(self) -> list[PendingRequest]:
        """Requests still awaiting an answer, listen streams included, oldest first."""
        if self.session is None:
            return []
        return [p for p in self.session.pending.values() if not p.done.is_set()]

    def take(self, report: RequestFinished) -> None:
        """The session's word on a finished request (synchronously, on the app's loop)."""
        if report.outcome == LATE:
            done = self.finished.get(report.id)
            if done is not None and done.late is None:
                done.late = report.ended - done.ended
                self.changed = True
            return
        if report.outcome == LOST or report.id in self.finished:
            return  # the first word stands; a lost connection says so itself
        detail = "by you" if report.given_up == CANCELLED_BY_USER else report.detail
        label = describe(report.method, report.params) if report.method is not None else "?"
        self.finished[report.id] = Finished(
            report.id, label, report.started, report.ended, report.outcome, detail
        )
        self.changed = True
        while len(self.finished) > self.recent:
            self.finished.popitem(last=False)
