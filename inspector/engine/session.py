"""The MCP session: the wire (seq, lint, record, observe), the opening (its era's), request
correlation, cancellation and routing. Its parts, each a module: ``pending`` (the requests
in flight, their timeouts reset by progress), ``server_requests`` (answering the
server's requests), ``request_errors`` (how a request fails), ``outcomes`` (how each
request ended, requests sent by hand too), ``subscribers`` (who hears what it reports).
``PendingRequest``, ``ProgressCallback``, the request errors and ``first_failure`` are
re-exported for older callers; the package imports them from their homes.

Every event reaches the recorder before anything acts on it (write-ahead), then
the observers (the log), then the routing (futures, responders, notification
callbacks). Nothing a server sends can crash the session: odd frames become
findings on their events.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import logging
from collections.abc import Callable, Hashable, Iterable, Iterator
from types import TracebackType
from typing import Any, TypeVar

import anyio
from anyio.abc import TaskGroup

from inspector.engine.big_frame import BIG_FRAME, big_decoder, big_result, folds, frame_of
from inspector.engine.era import (
    CLIENT_INFO,
    LATEST_VERSION,
    Era,
    HandshakeEra,
    era_for,
    is_stateless,
)
from inspector.engine.era_detect import EraMemory, open_detected
from inspector.engine.intake import EventRecorder as EventRecorder
from inspector.engine.intake import Intake
from inspector.engine.lint import check_message
from inspector.engine.outcomes import (
    CANCELLED,
    CANCELLED_BY_USER,
    CANCELLED_OUTCOME,
    ERROR,
    LOST,
    TIMED_OUT,
    TIMEOUT,
    FinishedCallback,
    Outcomes,
    RequestFinished,
    result_outcome,
)
from inspector.engine.pending import PendingRequest as PendingRequest
from inspector.engine.pending import PendingRequests, ResponseCheck
from inspector.engine.pending import ProgressCallback as ProgressCallback
from inspector.engine.raw_envelope import with_envelope
from inspector.engine.request_errors import ConnectionClosedError as ConnectionClosedError
from inspector.engine.request_errors import RequestCancelledError as RequestCancelledError
from inspector.engine.request_errors import RequestTimeoutError as RequestTimeoutError
from inspector.engine.request_errors import first_failure as first_failure
from inspector.engine.responders import Responders
from inspector.engine.server_requests import ServerRequests, respond_with
from inspector.engine.subscribers import (
    CONNECTION_LOST,
    EVENTS,
    FINISHED,
    Subscribers,
    Topic,
    notification,
)
from inspector.wire import jsonrpc
from inspector.wire.events import Channel, Direction, Finding, WireEvent
from inspector.wire.jsonrpc import RequestId, RpcError
from inspector.wire.transport import ConnectionLost, Transport, TransportError

log = logging.getLogger(__name__)

Observer = Callable[[WireEvent], None]
NotificationCallback = Callable[[dict[str, Any]], None]
T = TypeVar("T")


DEFAULT_MAX_TIMEOUT = 600.0  # the hard maximum when none is given (or the timeout, if longer)
CANCEL_SEND_BOUND = 0.5  # the most a timed-out request waits to hand over its cancel


RequestHook = Callable[[str, "dict[str, Any] | None"], "dict[str, Any] | None"]
"""Sees each request's params last, as they go on the wire (method, params): returns the
params to send (``--propagate`` adds W3C trace context to ``_meta``)."""


class Session:
    """One connection to one MCP server, over any transport."""

    def __init__(
        self,
        transport: Transport,
        *,
        client_info: dict[str, Any] | None = None,
        responders: Responders | None = None,
        timeout: float = 60.0,
        max_timeout: float | None = None,
        recorder: EventRecorder | None = None,
        protocol_version: str | None = LATEST_VERSION,
        capabilities: dict[str, Any] | None = None,
        sequence: Iterator[int] | None = None,
        era_memory: EraMemory | None = None,
    ) -> None:
        """``protocol_version`` pins the version (and so the era); None finds the newest
        era the server speaks (``era_detect``), remembering it in ``era_memory`` (the
        command line and the TUI pass None unless ``--protocol-version`` is given)."""
        self.transport = transport
        self.client_info = client_info or dict(CLIENT_INFO)
        self.responders = responders or Responders()
        self.timeout = timeout
        # a given hard maximum caps everything, even a longer timeout; by default it is
        # never shorter than the timeout
        self.max_timeout = (
            max_timeout if max_timeout is not None else max(DEFAULT_MAX_TIMEOUT, timeout)
        )
        self.recorder = recorder
        self.pinned = protocol_version is not None
        self.era: Era = era_for(protocol_version) if protocol_version else HandshakeEra()
        self.era_memory = era_memory
        self.extra_capabilities = capabilities or {}
        self._requests = PendingRequests()
        self.pending = self._requests.pending  # the requests in flight, by id
        self.server_info: dict[str, Any] = {}
        self.server_capabilities: dict[str, Any] = {}
        self.protocol_version: str | None = None
        self.instructions: str | None = None
        self.initialize_result: dict[str, Any] | None = None
        self.log_level: str | None = None  # stateless: sent with each request (logLevel)
        self.lost: ConnectionLost | None = None
        self._ids = itertools.count(1)
        self._subscribers = Subscribers()  # who hears events, outcomes, notifications, a loss
        self._outcomes = Outcomes(self._requests, report=self._publish_finished)
        self._server_requests = ServerRequests()
        self._tg: TaskGroup | None = None
        self._closing = False
        self._close_task: asyncio.Task[None] | None = None
        self.request_hook: RequestHook | None = None
        self._intake = Intake(
            recorder,
            sequence if sequence is not None else itertools.count(1),
            check=self._check,
            act_on=self._act_on,
        )
        # a big response's result and the frame it came in, until the next frame in
        # (``take_frame``)
        self._big: tuple[Any, bytes] | None = None

    # -- lifecycle -----------------------------------------------------------------

    async def __aenter__(self) -> Session:
        self._tg = anyio.create_task_group()
        await self._tg.__aenter__()
        try:
            self.note(f"connecting: {self.transport.target}")
            self.transport.set_decoder(big_decoder(self._requests), BIG_FRAME)
            await self.transport.start(self, self._tg)
        except BaseException as exc:
            self._tg.cancel_scope.cancel()
            # The task group would wrap ``exc`` in an ExceptionGroup; the caller wants it
            # as it is (e.g. TransportError "command not found").
            with contextlib.suppress(BaseException):
                await self._tg.__aexit__(type(exc), exc, exc.__traceback__)
            raise exc from None
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> bool | None:
        await self.close()
        assert self._tg is not None
        self._tg.cancel_scope.cancel()
        return await self._tg.__aexit__(exc_type, exc, tb)

    @property
    def closed(self) -> bool:
        """Whether ``close`` has run to its end."""
        return self._close_task is not None and self._close_task.done()

    async def close(self) -> None:
        """Close the transport: the one shutdown (for stdio, the server's whole process
        group). It runs to its end even when the caller is cancelled, and every caller
        waits for that same close.

        The close is a task of its own: an anyio shield does not stop a native asyncio
        cancel, which is what an app's teardown sends to its workers."""
        if self._close_task is None:
            self._closing = True
            self._close_task = asyncio.get_running_loop().create_task(self.transport.close())
        with anyio.CancelScope(shield=True):
            await asyncio.shield(self._close_task)

    async def initialize(self) -> dict[str, Any]:
        """Open the session as the era says: the handshake, or ``server/discover``; with
        no pinned version, in the era found by probing (or remembered).

        Raises ``VersionError`` when the server does not speak the requested version."""
        if not self.pinned:
            return await open_detected(self, self.era_memory)
        return await self.era.open(self)

    def opened(self, version: str, result: dict[str, Any], server_info: Any) -> None:
        """The era's opening succeeded: keep what the server said about itself."""
        self.protocol_version = version
        self.initialize_result = result
        self.server_info = dict(server_info) if isinstance(server_info, dict) else {}
        capabilities = result.get("capabilities")
        self.server_capabilities = dict(capabilities) if isinstance(capabilities, dict) else {}
        instructions = result.get("instructions")
        self.instructions = instructions if isinstance(instructions, str) else None
        self.transport.set_protocol_version(version, stateless=is_stateless(version))

    def declared_capabilities(self) -> dict[str, Any]:
        """The client capabilities: what the responders can answer, plus extras."""
        return {**self.responders.capabilities(), **self.extra_capabilities}

    # -- sending ---------------------------------------------------------------------

    def start_soon(self, func: Callable[..., Any], *args: Any) -> None:
        """Run a background task for the session's lifetime (responders, re-listing)."""
        if self._tg is not None:
            self._tg.start_soon(func, *args)

    def next_id(self) -> int:
        return next(self._ids)

    async def request(
        self,
        method: str,
        params: dict[str, Any] | None = None,
        *,
        timeout: float | None = None,
        on_progress: ProgressCallback | None = None,
        request_id: RequestId | None = None,
        check: ResponseCheck | None = None,
    ) -> Any:
        """Send a request and wait for its result; raises ``RpcError`` subclasses.

        The era stamps the params (the stateless ``_meta`` envelope) and settles the
        result (answering ``input_required`` and retrying). ``check``: findings about the
        response, on its wire event (what only the caller knows is wrong with it)."""

        async def resend(retry: dict[str, Any]) -> Any:
            return await self._exchange(
                method, self._stamp(retry), timeout, on_progress, None, check
            )

        first = request_id if request_id is not None else self.next_id()
        try:
            result = await self._exchange(
                method, self._stamp(params), timeout, on_progress, first, check
            )
        except RpcError as exc:
            if not self.era.resendable(method, exc) or self.lost is not None:
                raise
            again = self.next_id()
            self.note(
                f"{method}: the response stream of request {first!r} ended before its response; "
                f"sent again as request {again!r} ({method} changes nothing on the server, and "
                "2026-07-28 streams cannot be resumed)",
                severity="warning",
                resend_of=first,
                resent_as=again,
            )
            result = await self._exchange(
                method, self._stamp(params), timeout, on_progress, again, check
            )
        return await self.era.settle(self, method, params, result, resend)

    def _stamp(self, params: dict[str, Any] | None) -> dict[str, Any] | None:
        return self.era.stamp(
            params, self.declared_capabilities(), self.client_info, self.log_level
        )

    async def _exchange(
        self,
        method: str,
        params: dict[str, Any] | None,
        timeout: float | None,
        on_progress: ProgressCallback | None,
        request_id: RequestId | None,
        check: ResponseCheck | None = None,
    ) -> Any:
        """One request on the wire and its response (one round trip)."""
        self._check_open()
        id_ = request_id if request_id is not None else self.next_id()
        pending = PendingRequest(id_, method, params, on_progress=on_progress, check=check)
        pending.fold = folds(method)  # its big answer parsed folded (``folded_results``)
        if on_progress is not None:
            pending.progress_token = f"progress-{id_}"
            params = dict(params or {})
            params["_meta"] = {
                **(params.get("_meta") or {}),
                "progressToken": pending.progress_token,
            }
        if self.request_hook is not None:
            params = self.request_hook(method, params)
        self._requests.add(pending)
        limit = timeout if timeout is not None else self.timeout
        try:
            # handing the request to the transport counts against its time too (a full
            # pipe, a legacy POST the server does not answer)
            hard = self.max_timeout < limit
            with anyio.CancelScope() as sending:
                self._requests.bound_send(sending, self.max_timeout if hard else limit)
                try:
                    with self._lost_on_failure():
                        await self.transport.send(jsonrpc.request(id_, method, params))
                finally:
                    self._requests.sent(sending)
            if sending.cancelled_caught:
                await self._time_out(pending, self.max_timeout if hard else limit, hard)
            else:
                passed = await self._requests.wait(pending, limit, self.max_timeout)
                if passed is not None:  # no response in time: (seconds, hard)
                    await self._time_out(pending, *passed)
        finally:
            self._requests.discard(pending)
        if pending.error is not None:
            raise pending.error
        return pending.result

    async def _time_out(self, pending: PendingRequest, seconds: float, hard: bool) -> None:
        """Fail the request now; its cancel goes out without spending the user's time."""
        pending.error = RequestTimeoutError(pending.method, seconds, hard)
        reason = f"timed out after {seconds:g} s"
        self._outcomes.report_pending(pending, TIMEOUT, reason, given_up=TIMED_OUT)
        await self._send_cancel(pending.id, reason, TIMED_OUT)

    async def notify(self, method: str, params: dict[str, Any] | None = None) -> None:
        """Send a notification (one the era removed is not sent: a note says why)."""
        self._check_open()
        if (why := self.era.gone(method)) is not None:
            self.note(
                f"{method} not sent: it does not exist at protocol {self.era.requested} ({why})"
            )
            return
        with self._lost_on_failure():
            await self.transport.send(jsonrpc.notification(method, params))

    async def send_raw(self, raw: bytes) -> None:
        """Send bytes as they are (the raw editor; a debugger may send anything). In the
        stateless era a request or notification that lacks the per-request ``_meta``
        envelope gets it (the keys it sets itself are kept): without it a 2026-07-28
        server refuses every message."""
        self._check_open()
        if self.era.stateless:
            raw = with_envelope(raw, self._stamp, self.note)
        with self._lost_on_failure():
            await self.transport.send_raw(raw)

    @contextlib.contextmanager
    def _lost_on_failure(self) -> Iterator[None]:
        """A send that failed because the connection was lost meanwhile (a stdio server
        that exited before reading: the transport reports its exit code and stderr, then
        fails the write) raises that loss, as a pending request gets it: which of the two
        a user saw was a race, and only the loss says why."""
        try:
            yield
        except TransportError as exc:
            if self.lost is None:
                raise
            raise ConnectionClosedError(self.lost) from exc

    async def cancel(
        self, request_id: RequestId, reason: str = "cancelled by the user", *, by_user: bool = True
    ) -> bool:
        """Cancel a pending request: notifications/cancelled, and fail it locally with
        ``RequestCancelledError`` (``by_user`` False when the inspector itself cancels)."""
        pending = self.pending.get(request_id)
        if pending is None:
            return False
        pending.error = RequestCancelledError(pending.method, reason, by_user=by_user)
        pending.done.set()
        why = CANCELLED_BY_USER if by_user else CANCELLED
        self._outcomes.report_pending(pending, CANCELLED_OUTCOME, reason, given_up=why)
        await self._send_cancel(request_id, reason, why)
        return True

    def given_up(self, request_id: Any) -> str | None:
        """Why the client gave up on ``request_id`` (``TIMED_OUT``, ``CANCELLED``,
        ``CANCELLED_BY_USER``), or None if it did not (it was answered, or is pending)."""
        return self._requests.given_up(request_id)

    async def _send_cancel(self, request_id: RequestId, reason: str, why: str) -> None:
        self._requests.give_up(request_id, why)
        if self.lost is None:
            params = {"requestId": request_id, "reason": reason}
            # transports hand a cancel over at once (HTTP posts it in the background); the
            # bound is for a stdio server that stopped reading its stdin
            with anyio.move_on_after(CANCEL_SEND_BOUND) as scope:
                try:
                    await self.transport.send(
                        jsonrpc.notification("notifications/cancelled", params)
                    )
                except Exception as exc:  # the connection may be going away; the note says so
                    self.note(f"could not send notifications/cancelled: {exc}", severity="warning")
            if scope.cancelled_caught:
                self.note(
                    f"notifications/cancelled for request {request_id!r} not handed over within "
                    f"{CANCEL_SEND_BOUND:g} s",
                    severity="warning",
                )

    def _check_open(self) -> None:
        if self.lost is not None:
            raise ConnectionClosedError(self.lost)

    # -- observing -------------------------------------------------------------------

    def subscribe(self, topic: Topic[T], callback: Callable[[T], None]) -> None:
        """Call ``callback`` with what the session reports on ``topic`` (``subscribers``:
        ``EVENTS``, ``FINISHED``, ``CONNECTION_LOST``, ``notification(method)``)."""
        self._subscribers.subscribe(topic, callback)

    def unsubscribe(self, callback: Callable[[Any], None], topic: Topic[Any] | None = None) -> None:
        """Stop calling ``callback`` (for ``topic``; None: for every topic it is on)."""
        self._subscribers.unsubscribe(callback, topic)

    # the same, by topic
    def add_observer(self, observer: Observer) -> None:
        self.subscribe(EVENTS, observer)

    def remove_observer(self, observer: Observer) -> None:
        self.unsubscribe(observer, EVENTS)

    def on_finished(self, callback: FinishedCallback) -> None:
        """Call ``callback`` with each request's ``RequestFinished`` (then late responses)."""
        self.subscribe(FINISHED, callback)

    def off_finished(self, callback: FinishedCallback) -> None:
        self.unsubscribe(callback, FINISHED)

    def on_notification(self, method: str, callback: NotificationCallback) -> None:
        self.subscribe(notification(method), callback)

    def off_notification(self, callback: NotificationCallback) -> None:
        """Remove ``callback`` from every method it was registered for."""
        self.unsubscribe(callback)

    def on_lost(self, callback: Callable[[ConnectionLost], None]) -> None:
        self.subscribe(CONNECTION_LOST, callback)

    @property
    def _notification_callbacks(self) -> set[Hashable]:
        """The notification methods (and topics) someone listens to."""
        return self._subscribers.keys()

    def _publish_finished(self, finished: RequestFinished) -> None:
        self._subscribers.publish(FINISHED, finished)

    def note(self, text: str, severity: str = "info", **meta: Any) -> None:
        """Put the inspector's own lifecycle note on the wire (a LOCAL event)."""
        event = WireEvent(
            Direction.LOCAL,
            Channel.SYSTEM,
            text.encode("utf-8"),
            meta={"severity": severity, **meta},
        )
        self.emit(event)

    # -- the wire: TransportHost -----------------------------------------------------

    def emit(self, event: WireEvent) -> None:
        """Every frame comes through here: seq, findings, record, observers, routing."""
        self.emit_many((event,))

    def emit_many(self, events: Iterable[WireEvent]) -> None:
        """Frames read together, in order, each as ``emit`` does it, the recording
        flushed once for them before any is acted on (``intake.Intake``)."""
        self._intake.emit_many(events)

    def _check(self, event: WireEvent) -> None:
        """An event's findings, before it is recorded; an OAuth hold noted."""
        if event.channel is Channel.AUTH:  # OAuth HTTP, not JSON-RPC: no lint, no routing
            self._requests.hold(event.meta.get("hold"))
        elif event.message is not None and event.channel not in (Channel.SYSTEM, Channel.HTTP):
            event.findings.extend(check_message(event.message))
            if event.direction is Direction.IN and not event.meta.get("observed"):
                event.findings.extend(
                    self._requests.flow_findings(
                        event.message, self.era, self.declared_capabilities
                    )
                )
        elif event.error is not None and event.channel not in (Channel.STDERR, Channel.SYSTEM):
            event.findings.append(Finding("invalid", event.error, "error"))

    def _act_on(self, event: WireEvent) -> None:
        self._subscribers.publish(EVENTS, event)
        if event.channel is Channel.AUTH:
            return
        # a frame seen on a proxy's wire that is not ours (the host's): not acted on
        mine = not event.meta.get("observed")
        self._outcomes.follow(event, mine)
        if event.direction is Direction.IN and event.message is not None and mine:
            self._big = big_result(event)
            self._route(event.message)  # includes responses synthesized for HTTP failures

    def take_frame(self, result: Any) -> bytes | None:
        """The raw frame whose ``result`` is ``result``, when that is the last frame in
        and a big one (``BIG_FRAME``), or a folded result: a caller can keep the bytes
        (which the log holds anyway) instead of the tree, and parse them again
        (``["result"]``) when needed."""
        big, self._big = self._big, None
        return frame_of(result, big)

    def connection_lost(self, lost: ConnectionLost) -> None:
        if self.lost is not None:
            return
        self.lost = lost
        self.note(
            ("closed: " if lost.expected else "connection lost: ") + lost.describe(),
            severity="info" if lost.expected else "error",
            exit_code=lost.exit_code,
            http_status=lost.http_status,
        )
        error = ConnectionClosedError(lost)
        for pending in list(self.pending.values()):
            if not pending.done.is_set():
                pending.error = error
                pending.done.set()
                self._outcomes.report_pending(pending, LOST, error.message)
        self._subscribers.publish(CONNECTION_LOST, lost)

    def answered_by(self, id_: Any) -> PendingRequest | None:
        """The pending request a response with ``id_`` answers, a wrongly typed id too."""
        return self._requests.answered_by(id_)

    def _route(self, message: Any) -> None:
        if isinstance(message, list):
            for item in message:
                self._route(item)
            return
        if not isinstance(message, dict):
            return
        if "method" not in message:  # jsonrpc's is_response, is_request, is_notification
            if "result" in message or "error" in message:
                self._resolve(message)
        elif "id" in message:
            assert self._tg is not None
            self._tg.start_soon(self._answer_server_request, message)
        else:
            self._dispatch_notification(message)

    def _resolve(self, message: dict[str, Any]) -> None:
        id_ = message.get("id")
        pending = self.answered_by(id_) if id_ is not None else None
        if pending is None or pending.done.is_set():
            return
        if "error" in message:
            error = message["error"]
            pending.error = RpcError.from_error(error)
            detail = str(error.get("message", "")) if isinstance(error, dict) else ""
            self._outcomes.report_pending(pending, ERROR, detail)
        else:
            pending.result = message.get("result")
            self._outcomes.report_pending(pending, *result_outcome(pending.result))
        pending.done.set()

    def _dispatch_notification(self, message: dict[str, Any]) -> None:
        method = message.get("method")
        params = message.get("params")
        params = params if isinstance(params, dict) else {}
        if method == "notifications/progress":
            self._requests.progress(params)
        elif method == "notifications/cancelled":
            self._server_requests.cancel(params.get("requestId"))
        self._subscribers.publish_notification(str(method), params)

    async def respond(self, method: str, params: dict[str, Any]) -> dict[str, Any]:
        """The client's answer to a server's request (sent on its own, or embedded in an
        ``input_required`` result); raises ``RpcError``."""
        return await respond_with(self.responders, method, params)

    async def _answer_server_request(self, message: dict[str, Any]) -> None:
        id_, method = message.get("id"), str(message.get("method"))
        reply = await self._server_requests.answer(message, self.respond)
        if reply is None:
            self.note(f"server cancelled its {method} request {id_!r}; no answer sent")
            return
        if self.lost is None:
            try:
                await self.transport.send(reply)
            except Exception as exc:
                self.note(f"could not answer {method}: {exc}", severity="error")
