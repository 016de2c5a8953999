"""The requests a session has in flight, and when each one times out.

``PendingRequest`` is one request waiting for its response; ``PendingRequests`` keeps them
by id (a response finds its request, one with a wrongly typed id too), by progress token
(progress moves a request's soft deadline), the ids given up on (a late response says
why), and the hold: while a person authorizes, no request's time runs, nor a send's.
"""

from __future__ import annotations

import logging
import math
from collections.abc import Callable
from dataclasses import dataclass, field
from time import monotonic
from typing import TYPE_CHECKING, Any

import anyio

from inspector.wire import jsonrpc
from inspector.wire.events import Finding
from inspector.wire.jsonrpc import RequestId, RpcError

if TYPE_CHECKING:
    from inspector.engine.era import Era

log = logging.getLogger(__name__)

ProgressCallback = Callable[[float, float | None, str | None], None]
# what the caller knows about the answer it expects (a skill file's digest): the response's
# findings, put on its wire event before it is recorded or routed
ResponseCheck = Callable[[dict[str, Any]], list[Finding]]

FINISHED_IDS_KEPT = 4096  # given-up request ids remembered to mark late responses
HOLD_POLL = 0.5  # seconds between looks at a held request (is it done, is the hold over)


@dataclass
class PendingRequest:
    """A request in flight: what the in-flight view and the timeout logic read."""

    id: RequestId
    method: str
    params: Any
    started: float = field(default_factory=monotonic)
    last_activity: float = field(default_factory=monotonic)
    progress_token: str | None = None
    progress: float | None = None
    total: float | None = None
    message: str | None = None
    on_progress: ProgressCallback | None = None
    check: ResponseCheck | None = None
    fold: bool = False  # a big answer is parsed folded (``big_frame.folded_results``)
    held: float = 0.0  # seconds spent waiting on a person (authorization): not timed
    done: anyio.Event = field(default_factory=anyio.Event)
    result: Any = None
    error: RpcError | None = None

    @property
    def elapsed(self) -> float:
        return monotonic() - self.started


class PendingRequests:
    """A session's requests in flight (``pending``, by id), the ids it gave up on, and
    the hold that stops their clocks."""

    def __init__(self) -> None:
        self.pending: dict[RequestId, PendingRequest] = {}
        self._progress_owner: dict[Any, PendingRequest] = {}
        self._finished_ids: dict[RequestId, str] = {}  # id -> why it was given up on
        self._held_since: float | None = None  # an authorization waits on a person
        self._sends: dict[anyio.CancelScope, float] = {}  # sends in progress: seconds left

    # -- bookkeeping -----------------------------------------------------------------

    def add(self, pending: PendingRequest) -> None:
        if pending.progress_token is not None:
            self._progress_owner[pending.progress_token] = pending
        self.pending[pending.id] = pending

    def discard(self, pending: PendingRequest) -> None:
        self.pending.pop(pending.id, None)
        if pending.progress_token is not None:
            self._progress_owner.pop(pending.progress_token, None)

    def answered_by(self, id_: Any) -> PendingRequest | None:
        """The pending request a response with ``id_`` answers, a wrongly typed id too."""
        id_ = jsonrpc.id_key(id_)
        if id_ is None:
            return None
        pending = self.pending.get(id_)
        if pending is None and (alias := self._alias(id_)) is not None:
            pending = self.pending.get(alias)
        return pending

    def _alias(self, id_: Any) -> RequestId | None:
        """The pending id a wrongly typed response id stands for (``"1"`` for ``1``)."""
        for key in self.pending:
            if str(key) == str(id_) and key != id_:
                return key
        return None

    def give_up(self, request_id: RequestId, why: str) -> None:
        """Remember that the client gave up on ``request_id``, and why."""
        self._finished_ids[request_id] = why
        if len(self._finished_ids) > FINISHED_IDS_KEPT:  # a long session must not grow it forever
            del self._finished_ids[next(iter(self._finished_ids))]

    def given_up(self, request_id: Any) -> str | None:
        """Why the client gave up on ``request_id`` (``TIMED_OUT``, ``CANCELLED``,
        ``CANCELLED_BY_USER``), or None if it did not (it was answered, or is pending)."""
        key = jsonrpc.id_key(request_id)
        return self._finished_ids.get(key) if key is not None else None

    def flow_findings(
        self, message: Any, era: Era, capabilities: Callable[[], dict[str, Any]]
    ) -> list[Finding]:
        """What ``era``'s rules and these requests find odd about a message coming in
        (the client's declared ``capabilities`` asked only when a rule needs them)."""
        items = message if isinstance(message, list) else [message]
        found: list[Finding] = []
        for msg in items:
            if not jsonrpc.is_response(msg):
                if isinstance(msg, dict) and era.checks_inbound:
                    found.extend(era.findings(msg, None, capabilities()))
                continue
            id_ = jsonrpc.id_key(msg.get("id"))
            if id_ is None:  # null, or an id that matches nothing (lint says what is wrong)
                continue
            if id_ in self.pending:
                pending = self.pending[id_]
                found.extend(era.findings(msg, pending.method, capabilities()))
                if pending.check is not None and not pending.done.is_set():
                    found.extend(pending.check(msg))
            found.extend(self.response_findings(id_))
        return found

    def response_findings(self, id_: RequestId) -> list[Finding]:
        """What is odd about a response's id: late, wrongly typed, answering nothing."""
        if id_ in self.pending:
            if self.pending[id_].done.is_set():
                return [
                    Finding(
                        "late-response", "response after the request was given up on", "warning"
                    )
                ]
            return []
        if id_ in self._finished_ids:
            return [
                Finding(
                    "late-response",
                    f"late response to a request that was {self._finished_ids[id_]}",
                    "warning",
                )
            ]
        if self._alias(id_) is not None:
            return [
                Finding(
                    "id-type-mismatch",
                    f"response id {id_!r} has a different JSON type from the request id",
                    "warning",
                )
            ]
        return [Finding("unknown-id", f"response to unknown request id {id_!r}", "error")]

    def progress(self, params: dict[str, Any]) -> None:
        """A ``notifications/progress``: its request's progress, and its soft deadline moved."""
        token = jsonrpc.id_key(params.get("progressToken"))
        pending = self._progress_owner.get(token) if token is not None else None
        if pending is None:
            return
        progress = params.get("progress")
        if isinstance(progress, int | float):
            pending.progress = float(progress)
        total = params.get("total")
        pending.total = float(total) if isinstance(total, int | float) else None
        message = params.get("message")
        pending.message = message if isinstance(message, str) else None
        pending.last_activity = monotonic()  # progress resets the soft timeout
        if pending.on_progress is not None and pending.progress is not None:
            try:
                pending.on_progress(pending.progress, pending.total, pending.message)
            except Exception:
                log.exception("progress callback failed")

    # -- time ------------------------------------------------------------------------

    def bound_send(self, scope: anyio.CancelScope, seconds: float) -> None:
        """A send may take ``seconds``, not counting a hold (an authorization can run
        inside a send: the transport asks for credentials first)."""
        self._sends[scope] = seconds
        scope.deadline = (
            math.inf if self._held_since is not None else anyio.current_time() + seconds
        )

    def sent(self, scope: anyio.CancelScope) -> None:
        """The send bounded by ``scope`` is over."""
        self._sends.pop(scope, None)

    def hold(self, hold: Any) -> None:
        """An authorization started (True) or stopped (False) waiting on a person: request
        timeouts measure the server, so that time does not count."""
        now = monotonic()
        if hold is True and self._held_since is None:
            self._held_since = now
            clock = anyio.current_time()
            for scope in self._sends:
                self._sends[scope] = max(scope.deadline - clock, 0.0)
                scope.deadline = math.inf
        elif hold is False and self._held_since is not None:
            held, self._held_since = now - self._held_since, None
            for pending in self.pending.values():
                pending.held += held
                pending.last_activity = now
            clock = anyio.current_time()
            for scope, left in self._sends.items():
                scope.deadline = clock + left

    async def wait(
        self, pending: PendingRequest, limit: float, max_timeout: float
    ) -> tuple[float, bool] | None:
        """Until the response (None), the soft deadline (``limit`` after the last progress)
        or the hard one (``max_timeout`` after the start), whichever comes first: then the
        seconds of the deadline that passed, and whether it was the hard one. Time spent
        waiting on a person who authorizes (``hold``) does not count."""
        while not pending.done.is_set():
            if self._held_since is not None:  # a person is authorizing: no timeout
                with anyio.move_on_after(HOLD_POLL):
                    await pending.done.wait()
                continue
            hard_deadline = pending.started + pending.held + max_timeout
            soft_deadline = pending.last_activity + limit
            deadline = min(soft_deadline, hard_deadline)
            remaining = deadline - monotonic()
            if remaining <= 0:
                hard = deadline >= hard_deadline
                return (max_timeout if hard else limit), hard
            with anyio.move_on_after(remaining):
                await pending.done.wait()
        return None
