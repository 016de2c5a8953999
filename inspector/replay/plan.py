"""The script of a replay: what a recorded session asked, in order, and what it got.

:func:`build_plan` turns recorded events into a :class:`Plan`: the opening request
(``initialize``, or ``server/discover`` in the 2026-07-28 stateless era), then each
client request with the response it got and each client notification in order, the
server's requests with the answers the client gave, and groups of requests that were in
flight together. A multi-round-trip call (``input_required``, then retries) is folded
into one step. :mod:`inspector.replay.run` runs the plan.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from inspector.engine.era import (
    LATEST_VERSION,
    META_CLIENT_CAPABILITIES,
    META_CLIENT_INFO,
    META_PROTOCOL_VERSION,
)
from inspector.replay.notices import Attributor
from inspector.wire.events import (
    ATTACH_KEY,
    SIDE_KEY,
    Channel,
    Direction,
    Kind,
    WireEvent,
    classify_message,
)

OPENINGS = ("initialize", "server/discover")  # the handshake era's, the stateless era's


@dataclass
class Step:
    """One recorded client message to send again."""

    seq: int
    method: str
    params: Any
    notification: bool = False
    response: dict[str, Any] | None = None  # the recorded response message, if any
    waited: float | None = None  # seconds until the recording gave up (cancel / end)
    sent_mono: float = 0.0
    notifications: list[dict[str, Any]] = field(default_factory=list)  # the server's, its own
    # requests the server sent while this one was answered (sampling, elicitation, roots)
    server_requests: list[ServerExchange] = field(default_factory=list)
    group: int = 0  # the seq of the first request of its concurrent group (sent together)
    retry: bool = False  # a stateless multi-round-trip retry: the live session makes its own
    settled: dict[str, Any] | None = None  # the recorded final response after its retries


@dataclass
class ServerExchange:
    """A request the server sent during the recording and the client's answer."""

    seq: int
    method: str
    params: Any
    answer: dict[str, Any] | None = None


@dataclass
class Plan:
    initialize: Step | None = None
    steps: list[Step] = field(default_factory=list)
    server_requests: list[ServerExchange] = field(default_factory=list)
    unsent: int = 0  # frames the client sent that were not JSON-RPC (raw editor): not re-sent
    # the recorded answers to the input requests embedded in input_required results
    input_answers: list[ServerExchange] = field(default_factory=list)

    @property
    def requests(self) -> list[Step]:
        return [s for s in self.steps if not s.notification]

    @property
    def stateless(self) -> bool:
        """Recorded in the 2026-07-28 stateless era (opened with server/discover)."""
        return self.initialize is not None and self.initialize.method == "server/discover"

    def envelope(self) -> dict[str, Any]:
        """The ``_meta`` envelope of the first recorded request that carries one."""
        for step in ([self.initialize] if self.initialize else []) + self.requests:
            meta = step.params.get("_meta") if isinstance(step.params, dict) else None
            if isinstance(meta, dict) and META_PROTOCOL_VERSION in meta:
                return meta
        return {}

    @property
    def protocol_version(self) -> str | None:
        """The version the recording spoke: initialize's, else the stateless envelope's."""
        init = self.initialize
        if init is not None and init.method == "initialize" and isinstance(init.params, dict):
            version = init.params.get("protocolVersion")
            return str(version) if version else None
        version = self.envelope().get(META_PROTOCOL_VERSION)
        return str(version) if isinstance(version, str) else None

    def session_options(self) -> dict[str, Any]:
        """Client info, capabilities and version for a live session like the recorded one."""
        init = self.initialize
        if init is not None and init.method == "initialize":
            params = init.params if isinstance(init.params, dict) else {}
            info, caps = params.get("clientInfo"), params.get("capabilities")
        else:
            envelope = self.envelope()
            info, caps = envelope.get(META_CLIENT_INFO), envelope.get(META_CLIENT_CAPABILITIES)
        return {
            "client_info": info if isinstance(info, dict) else None,
            "capabilities": caps if isinstance(caps, dict) else {},
            "protocol_version": self.protocol_version or LATEST_VERSION,
        }


def messages_of(event: WireEvent) -> list[dict[str, Any]]:
    msg = event.message
    items = msg if isinstance(msg, list) else [msg]
    return [m for m in items if isinstance(m, dict)]


def build_plan(events: Iterable[WireEvent]) -> Plan:
    """The replay script from recorded events (one pass; keeps only messages)."""
    plan = Plan()
    pending: dict[Any, Step] = {}
    server_pending: dict[Any, ServerExchange] = {}
    notices = Attributor()
    group: list[Step] = []  # requests sent before any of them was answered
    group_open = False
    last_mono = 0.0
    opened: tuple[Any, ...] = ()  # the side whose opening is the plan's
    for event in events:
        if event.channel is Channel.AUTH or event.meta.get("auth_retry"):
            continue  # OAuth exchanges, and a request sent again after one, are the connection's
        if event.channel in (Channel.HTTP, Channel.STDERR, Channel.SYSTEM) and not (
            isinstance(event.message, dict)
        ):
            continue
        if event.message is None:
            if event.direction is Direction.OUT:
                plan.unsent += 1
            continue
        last_mono = max(last_mono, event.mono)
        scope = side_scope(event)
        for msg in messages_of(event):
            kind = classify_message(msg)
            key = scoped(scope, msg.get("id"))
            if event.direction is Direction.OUT:
                if kind is Kind.REQUEST:
                    step = Step(
                        event.seq, str(msg.get("method")), msg.get("params"), sent_mono=event.mono
                    )
                    if step.method in OPENINGS and plan.initialize is None and not plan.steps:
                        plan.initialize = step
                        opened = scope
                    elif _after_probe(plan, step, scope, opened):
                        plan.initialize = step  # the era probe was refused: this opened it
                    elif step.method in OPENINGS and scope != opened:
                        pass  # another host session's opening (a proxy's HTTP front): one is made
                    else:
                        plan.steps.append(step)
                        group = [*group, step] if group_open else [step]
                        group_open = True
                        step.group = group[0].seq
                    pending[key] = step
                    notices.request(msg.get("id"), step.seq, step.params)
                elif kind is Kind.NOTIFICATION:
                    group_open = False  # a notification (a cancel...) keeps its place
                    _client_notification(plan, pending, msg, event.mono, notices, scope)
                elif kind in (Kind.RESPONSE, Kind.ERROR) and key in server_pending:
                    server_pending.pop(key).answer = msg
            elif kind is Kind.REQUEST and event.direction is Direction.IN:
                exchange = ServerExchange(event.seq, str(msg.get("method")), msg.get("params"))
                plan.server_requests.append(exchange)
                if pending:  # while a client request was answered: the oldest, like notices
                    next(iter(pending.values())).server_requests.append(exchange)
                server_pending[key] = exchange
            elif kind is Kind.NOTIFICATION and event.direction is Direction.IN:
                notices.notification(msg)
            elif kind in (Kind.RESPONSE, Kind.ERROR) and key in pending:
                # IN responses, and LOCAL ones the session made up (HTTP errors)
                step = pending.pop(key)
                notices.finished(msg.get("id"))
                group_open = group_open and all(s is not step for s in group)
                if step.waited is None:
                    step.response = msg
    for step in pending.values():
        if step.waited is None:
            step.waited = max(0.0, last_mono - step.sent_mono)
    for step in ([plan.initialize] if plan.initialize else []) + plan.requests:
        step.notifications = notices.of(step.seq)
    _fold_retries(plan)
    return plan


def _after_probe(plan: Plan, step: Step, scope: tuple[Any, ...], opened: tuple[Any, ...]) -> bool:
    """``step`` is the ``initialize`` that followed a ``server/discover`` era probe on the
    same side (refused, or unanswered in time): the session opened in the handshake era."""
    probe = plan.initialize
    return (
        step.method == "initialize"
        and probe is not None
        and probe.method == "server/discover"
        and scope == opened
        and not plan.steps
    )


def _fold_retries(plan: Plan) -> None:
    """Stateless multi round-trips: a request answered ``input_required`` and the retries
    that followed (same method, carrying ``requestState`` or ``inputResponses``) become one
    exchange whose recorded answer is the last retry's; the answers the client gave to
    the embedded input requests are kept to answer the live server's."""
    if not plan.stateless:
        return
    requests = plan.requests
    for n, step in enumerate(requests):
        if step.retry:
            continue
        current = step
        for later in requests[n + 1 :]:
            asks = _input_requests(current.response)
            if asks is None:
                break
            if later.method != step.method or not _is_retry(later.params):
                continue
            later.retry = True
            answers = later.params.get("inputResponses") if isinstance(later.params, dict) else None
            for key, ask in asks.items():
                answer = answers.get(key) if isinstance(answers, dict) else None
                if isinstance(ask, dict) and isinstance(answer, dict):
                    plan.input_answers.append(
                        ServerExchange(
                            later.seq, str(ask.get("method")), ask.get("params"), {"result": answer}
                        )
                    )
            current = later
        if current is not step:
            step.settled = current.response


def _input_requests(response: dict[str, Any] | None) -> dict[str, Any] | None:
    result = response.get("result") if isinstance(response, dict) else None
    if not isinstance(result, dict) or result.get("resultType") != "input_required":
        return None
    asks = result.get("inputRequests")
    return asks if isinstance(asks, dict) else {}


def _is_retry(params: Any) -> bool:
    return isinstance(params, dict) and ("requestState" in params or "inputResponses" in params)


def _client_notification(
    plan: Plan,
    pending: dict[Any, Step],
    msg: dict[str, Any],
    mono: float,
    notices: Attributor,
    scope: tuple[Any, ...] = (),
) -> None:
    method = str(msg.get("method"))
    params = msg.get("params")
    if method == "notifications/initialized":
        return  # the session sends its own after initialize
    if method == "notifications/cancelled" and isinstance(params, dict):
        step = pending.get(scoped(scope, params.get("requestId")))
        notices.finished(params.get("requestId"))
        if step is not None:
            step.waited = max(0.0, mono - step.sent_mono)  # replayed as a cancel after this
        return
    plan.steps.append(Step(0, method, params, notification=True))


def typed_id_key(value: Any) -> Any:
    """A request id as replay matches it: its type too (a recorded ``"1"`` is not ``1``,
    as a server must not take one for the other); None for an id that cannot match."""
    return (type(value).__name__, value) if isinstance(value, str | int) else None


def side_scope(event: WireEvent) -> tuple[Any, ...]:
    """Whose ids a frame's are, in a proxy's recording (or an attached inspector's): the
    host's (in each of its sessions on an HTTP front: ``link``) or an inspector's; an
    ordinary recording has one side. The same id on two sides is two requests."""
    meta = event.meta
    side = meta.get(SIDE_KEY)
    if side is None:
        return ()
    # an inspector's ids are its own session's, whichever host session it was attached to
    return (side, meta.get(ATTACH_KEY), meta.get("link") if side == "host" else None)


def scoped(scope: tuple[Any, ...], value: Any) -> Any:
    key = typed_id_key(value)
    return None if key is None else (*scope, *key)
