"""How each request ended, as the session decides it (``Session.on_finished``).

One ``RequestFinished`` report a request: answered, failed, cancelled, timed out, lost
with the connection; then a late report if a response comes after the client gave up.
Requests that ``Session.request`` did not send (the raw editor's, a proxy host's) are
followed on the wire: their response, or a cancel sent by hand, ends them.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from time import monotonic
from typing import Any, Protocol

import anyio

from inspector.wire import jsonrpc
from inspector.wire.events import Channel, Direction, WireEvent
from inspector.wire.jsonrpc import RequestId

FinishedCallback = Callable[["RequestFinished"], None]

BY_HAND_KEPT = 4096  # requests sent by hand remembered until their response

# why the client gave up on a request (``Session.given_up``; late-response findings say it)
TIMED_OUT = "timed out"
CANCELLED = "cancelled"
CANCELLED_BY_USER = "cancelled by the user"


# how a request ended (``RequestFinished.outcome``)
OK = "ok"
ERROR = "error"
CANCELLED_OUTCOME = "cancelled"
TIMEOUT = "timeout"
LOST = "lost"  # the connection ended first
LATE = "late"  # a response after the client gave up (the request already finished)
TOOL_ERROR = "tool error"  # a result whose isError is true: the tool failed, the call did not


def result_outcome(result: Any) -> tuple[str, str]:
    """OK, or TOOL_ERROR and the error's first line: a tool that failed answers with a
    result (``isError``), not a JSON-RPC error, and a list of requests must not say ok."""
    if not isinstance(result, dict) or result.get("isError") is not True:
        return OK, ""
    content = result.get("content")
    texts = [
        str(item.get("text", ""))
        for item in (content if isinstance(content, list) else [])
        if isinstance(item, dict) and item.get("type") == "text"
    ]
    first = "\n".join(texts).strip().split("\n", 1)[0]
    return TOOL_ERROR, first


@dataclass(frozen=True)
class RequestFinished:
    """A request's end, as the session decided it (reported to ``on_finished`` callbacks).

    ``method`` is None for a response to a request the session never saw sent. Requests
    that ``request`` did not send (the raw editor, a proxy host's) are followed on the
    wire: ``by_hand`` says so, and a hand-sent cancel is its ``reason``. A ``late``
    report follows the request's own report (``ended`` is when the late response came)."""

    id: Any
    method: str | None
    params: Any
    outcome: str  # OK | TOOL_ERROR | ERROR | CANCELLED_OUTCOME | TIMEOUT | LOST | LATE
    started: float
    ended: float
    detail: str = ""  # the error's message, the cancel's reason
    given_up: str | None = None  # the session's why (TIMED_OUT, CANCELLED, ...)
    by_hand: bool = False

    @property
    def latency(self) -> float:
        return self.ended - self.started


class Pending(Protocol):
    """A request in flight, as its report reads it (``pending.PendingRequest``)."""

    id: RequestId
    method: str
    params: Any
    started: float
    done: anyio.Event


class InFlight(Protocol):
    """The session's requests in flight, as following the wire reads them
    (``pending.PendingRequests``)."""

    @property
    def pending(self) -> Mapping[RequestId, Pending]: ...

    def answered_by(self, id_: Any) -> Pending | None: ...

    def given_up(self, request_id: Any) -> str | None: ...


class Outcomes:
    """The session's reports: to whom they go, and the requests sent by hand it follows."""

    def __init__(self, in_flight: InFlight, report: FinishedCallback) -> None:
        """``report``: where each ``RequestFinished`` goes (the session's subscribers)."""
        self._in_flight = in_flight
        self._report = report
        # requests seen going out that ``request`` did not send: id -> (method, params, start)
        self._by_hand: dict[Any, tuple[str, Any, float]] = {}

    def report_pending(
        self, pending: Pending, outcome: str, detail: str = "", **extra: Any
    ) -> None:
        started = pending.started
        self._report(
            RequestFinished(
                pending.id,
                pending.method,
                pending.params,
                outcome,
                started,
                monotonic(),
                detail,
                **extra,
            )
        )

    def follow(self, event: WireEvent, mine: bool) -> None:
        """Outcomes of what ``request`` did not send, from the wire: a request sent by hand
        (or a proxy host's), its response or a hand-sent cancel; a late or stray response.
        A response to a pending request is the session's to report (``_resolve``)."""
        message = event.message
        if event.channel is Channel.SYSTEM or not isinstance(message, dict):
            return
        now = monotonic()
        if event.direction is Direction.OUT:
            id_ = jsonrpc.id_key(message.get("id"))
            if "method" in message and id_ is not None:
                if not mine or id_ not in self._in_flight.pending:
                    self._by_hand[id_] = (str(message["method"]), message.get("params"), now)
                    if len(self._by_hand) > BY_HAND_KEPT:  # unanswered ones must not pile up
                        del self._by_hand[next(iter(self._by_hand))]
            elif message.get("method") == "notifications/cancelled":
                params = message.get("params")
                params = params if isinstance(params, dict) else {}
                self._cancelled_by_hand(params.get("requestId"), str(params.get("reason", "")))
        elif event.direction is Direction.IN and "method" not in message and "id" in message:
            self._answered(message, mine, now)

    def _cancelled_by_hand(self, id_: Any, reason: str) -> None:
        """A cancel on the wire: the session's own was reported when it gave up."""
        id_ = jsonrpc.id_key(id_)
        if id_ is None or self._in_flight.given_up(id_) is not None:
            return
        pending = self._in_flight.pending.get(id_)
        method, params, started = (
            (pending.method, pending.params, pending.started)
            if pending is not None
            else self._by_hand.pop(id_, (None, None, monotonic()))
        )
        outcome = TIMEOUT if reason.startswith("timed out") else CANCELLED_OUTCOME
        self._report(
            RequestFinished(id_, method, params, outcome, started, monotonic(), reason, None, True)
        )

    def _answered(self, message: dict[str, Any], mine: bool, now: float) -> None:
        id_ = jsonrpc.id_key(message["id"])
        if id_ is None:
            return  # null or invalid: it answers nothing that was sent
        pending = self._in_flight.answered_by(id_) if mine else None
        if pending is not None and not pending.done.is_set():
            return  # the session's ``_resolve`` reports it
        if pending is not None or (mine and self._in_flight.given_up(id_) is not None):
            method = pending.method if pending is not None else None
            self._report(RequestFinished(id_, method, None, LATE, now, now))
            return
        method, params, started = self._by_hand.pop(id_, (None, None, now))
        error = message.get("error")
        if error is not None:
            outcome = ERROR
            detail = str(error.get("message", "")) if isinstance(error, dict) else ""
        else:
            outcome, detail = result_outcome(message.get("result"))
        self._report(
            RequestFinished(id_, method, params, outcome, started, now, detail, None, True)
        )
