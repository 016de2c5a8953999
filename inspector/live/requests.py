"""Requests in flight and the last finished ones, with their outcome.

    requests = Requests()
    requests.attach(session)       # observes the session's events from now on
    requests.pending()             # session.pending, minus the answered ones
    requests.finished              # id -> Finished (ok | error | cancelled | timeout)

An outcome is taken from the wire as it passes (a response, or the client's
``notifications/cancelled``), so a request sent by hand (the raw editor) gets one too;
why the client gave up on a request is the session's word (``Session.given_up``), and a
late response is the session's ``late-response`` finding on its event.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Iterable
from dataclasses import dataclass
from time import monotonic
from typing import Any

from inspector.engine.session import CANCELLED_BY_USER, TIMED_OUT, PendingRequest, Session
from inspector.wire.events import Direction, WireEvent
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
    outcome: str  # ok | error | cancelled | timeout
    detail: str = ""
    late: float | None = None  # seconds after giving up that a late response came


class Requests:
    """The requests of the current session: pending (the session's) and finished."""

    def __init__(self, recent: int = RECENT) -> None:
        self.recent = recent
        self.session: Session | None = None
        self.finished: OrderedDict[RequestId, Finished] = OrderedDict()
        self._started: dict[RequestId, tuple[str, float]] = {}
        self.changed = False  # something finished since the last ``take_changed``

    def attach(self, session: Session) -> None:
        """Follow ``session`` (a new connection): the old one's requests are forgotten."""
        if self.session is not None:
            self.session.remove_observer(self.observe)
        self.session = session
        self.finished.clear()
        self._started.clear()
        self.changed = True
        # requests sent before attaching (the first list calls) keep their names
        for item in list(session.pending.values()):
            self._started[item.id] = (describe(item.method, item.params), item.started)
        session.add_observer(self.observe)

    def take_changed(self) -> bool:
        changed, self.changed = self.changed, False
        return changed

    def pending(self) -> list[PendingRequest]:
        """Requests still awaiting an answer, listen streams included, oldest first."""
        if self.session is None:
            return []
        return [p for p in self.session.pending.values() if not p.done.is_set()]

    # -- the wire ----------------------------------------------------------------------

    def observe(self, event: WireEvent) -> None:
        """Called by the session for every event (synchronously, on the app's loop)."""
        message = event.message
        if not isinstance(message, dict):
            return
        if event.direction is Direction.OUT:
            if "method" in message and "id" in message:
                label = describe(str(message["method"]), message.get("params"))
                self._started[message["id"]] = (label, monotonic())
            elif message.get("method") == "notifications/cancelled":
                params = message.get("params") or {}
                self._finish(params.get("requestId"), *self._why(params))
        elif event.direction is Direction.IN and "method" not in message and "id" in message:
            id_ = message["id"]
            late = any(f.code == "late-response" for f in event.findings)
            if late and id_ in self.finished:
                done = self.finished[id_]
                done.late = monotonic() - done.ended
                self.changed = True
            elif not late:
                error = message.get("error")
                detail = str(error.get("message", "")) if isinstance(error, dict) else ""
                self._finish(id_, "error" if error is not None else "ok", detail)

    def _why(self, params: dict[str, Any]) -> tuple[str, str]:
        """(outcome, detail) of a request the client gave up on: the session knows why
        (the user cancelled it, or it timed out); a cancel sent by hand has its reason."""
        reason = str(params.get("reason", ""))
        why = self.session.given_up(params.get("requestId")) if self.session else None
        if why == CANCELLED_BY_USER:
            return "cancelled", "by you"
        if why == TIMED_OUT or (why is None and reason.startswith("timed out")):
            return "timeout", reason
        return "cancelled", reason

    def _finish(self, id_: Any, outcome: str, detail: str) -> None:
        if id_ is None or id_ in self.finished:
            return
        label, started = self._started.pop(id_, ("?", monotonic()))
        self.finished[id_] = Finished(id_, label, started, monotonic(), outcome, detail)
        self.changed = True
        while len(self.finished) > self.recent:
            self.finished.popitem(last=False)
