"""Re-run a recorded session against a live server and compare the answers.

:func:`inspector.replay.plan.build_plan` turns recorded events into a script (a
:class:`Plan`). :func:`replay` runs it on a new session: requests go with fresh ids (those
the recording had in flight together, together),
progress tokens are renewed, server requests are answered from the recording,
and volatile ids learned from earlier answers (task ids...) are mapped into later
params. Each recorded response is compared with the live one (:mod:`diff`).

A recording of the 2026-07-28 stateless era opens with ``server/discover`` instead of
initialize: the live session is opened in the recording's era (its version read from
the requests' ``_meta`` envelope), and a multi-round-trip call (an ``input_required``
result, then retries) is one exchange: the live session does its own retries, answered
from the recorded ``inputResponses``, and its final answer is compared with the
recorded final one. What was found is a :class:`~inspector.replay.report.Report`; the
server's requests are answered by :class:`~inspector.replay.responders.RecordedResponders`.
"""

from __future__ import annotations

import copy
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import anyio

from inspector.engine.era import (
    is_stateless,
)
from inspector.engine.request_errors import ConnectionClosedError, RequestTimeoutError
from inspector.engine.session import EventRecorder, Session
from inspector.replay.diff import IgnoreRule, diff
from inspector.replay.listing import next_pages, replay_listing, starts_listing
from inspector.replay.notices import METHODS, Attributor, compare
from inspector.replay.plan import OPENINGS, Plan, Step, messages_of, typed_id_key
from inspector.replay.report import CHANGED, MISSING, NEW, SAME, Item, Report
from inspector.replay.responders import RecordedResponders
from inspector.wire.events import Direction, Kind, WireEvent, classify_message
from inspector.wire.jsonrpc import RpcError
from inspector.wire.transport import Transport

UNANSWERED_WAIT = 5.0  # longest wait for a request the recording never saw answered


@dataclass
class ReplayOptions:
    rules: Sequence[IgnoreRule] = ()
    timeout: float = 30.0
    max_timeout: float | None = None
    notifications: str = METHODS  # strict | methods | ignore (see notices.py)


async def replay(
    plan: Plan,
    transport: Transport,
    options: ReplayOptions,
    recorder: EventRecorder | None = None,
) -> Report:
    """Run the plan on a new session over ``transport``. A connection that fails before
    initialize is answered raises (the caller maps it to an exit code); one lost later
    makes the remaining recorded answers missing."""
    report = Report(notification_mode=options.notifications)
    if plan.unsent:
        report.notes.append(
            f"{plan.unsent} frame(s) the client sent were not JSON-RPC "
            "messages; they were not sent again"
        )
    runner = _Runner(plan, options, report)
    responders = RecordedResponders([*plan.server_requests, *plan.input_answers], options.rules)
    session = Session(
        transport,
        responders=responders,
        timeout=options.timeout,
        max_timeout=options.max_timeout,
        recorder=recorder,
        **plan.session_options(),
    )
    if is_stateless(plan.protocol_version):
        report.notes.append(
            f"stateless recording (protocol {plan.protocol_version}): the "
            "live session was opened in the same era"
        )
    session.add_observer(runner.observe)
    async with session:
        await runner.run(session)
    runner.compare_notifications()
    if runner.groups:
        report.notes.append(
            f"{runner.groups} group(s) of requests the recording sent before "
            "any was answered were sent together again"
        )
    runner.compare_server_requests(responders)
    return report


class _Runner:
    def __init__(self, plan: Plan, options: ReplayOptions, report: Report) -> None:
        self.plan = plan
        self.options = options
        self.report = report
        self.responses: dict[Any, dict[str, Any]] = {}
        self.init_id: Any = None
        self.live_server_requests: list[dict[str, Any]] = []
        self.id_map: dict[Any, Any] = {}  # volatile recorded value -> live value
        self.notices = Attributor()  # live notifications, filed under the live id's key
        self.compared: list[tuple[Item, Step, Any]] = []  # notifications compared at the end
        self.on_sent: dict[Any, anyio.Event] = {}  # a grouped request is on the wire
        self.groups = 0
        self.next_pages: set[int] = set()  # steps that were a listing's next pages

    def observe(self, event: WireEvent) -> None:
        for msg in messages_of(event) if event.message is not None else []:
            kind = classify_message(msg)
            if event.direction is Direction.OUT and kind is Kind.REQUEST:
                if msg.get("method") in OPENINGS and self.init_id is None:
                    self.init_id = msg.get("id")
                self.notices.request(msg.get("id"), typed_id_key(msg.get("id")), msg.get("params"))
                if (sent := self.on_sent.pop(typed_id_key(msg.get("id")), None)) is not None:
                    sent.set()
            elif event.direction is Direction.OUT and kind is Kind.NOTIFICATION:
                params = msg.get("params")
                if msg.get("method") == "notifications/cancelled" and isinstance(params, dict):
                    self.notices.finished(params.get("requestId"))
            elif kind in (Kind.RESPONSE, Kind.ERROR) and event.direction is not Direction.OUT:
                self.responses.setdefault(typed_id_key(msg.get("id")), msg)
                self.notices.finished(msg.get("id"))
            elif kind is Kind.REQUEST and event.direction is Direction.IN:
                self.live_server_requests.append(msg)
            elif kind is Kind.NOTIFICATION and event.direction is Direction.IN:
                self.notices.notification(msg)

    async def run(self, session: Session) -> None:
        init = self.plan.initialize
        try:
            result = await session.initialize()
            self.report.server_info = dict(session.server_info)
        except ConnectionClosedError:
            raise  # no server to compare with: a connection failure, not a difference
        except (RpcError, Exception) as exc:
            live = self.responses.get(typed_id_key(self.init_id))
            self._init_item(init, live, f"initialize failed: {exc}")
            self._rest_missing(0, "no session: initialize failed")
            return
        del result
        self._init_item(init, self.responses.get(typed_id_key(self.init_id)), "", self.init_id)
        steps = self.plan.steps
        n = 0
        while n < len(steps):
            step = steps[n]
            if session.lost is not None:
                self._rest_missing(n, f"connection lost: {session.lost.describe()}")
                return
            if step.retry:
                n += 1  # the live session retried on its own (its answer is compared)
                continue
            if n in self.next_pages:
                n += 1  # compared with the listing's first page
                continue
            if starts_listing(steps, n):
                pages = next_pages(steps, n)
                self.next_pages.update(pages)
                await self._listing(session, [step, *(steps[i] for i in pages)])
                n += 1
                continue
            if step.notification:
                try:
                    await session.notify(step.method, self._remap(step.params))
                except Exception as exc:
                    self.report.notes.append(f"could not send {step.method}: {exc}")
                n += 1
                continue
            group = [step]
            while (
                step.group
                and n + len(group) < len(steps)
                and steps[n + len(group)].group == step.group
            ):
                group.append(steps[n + len(group)])
            if len(group) == 1:
                await self._request(session, step)
            else:
                await self._group(session, group)
            n += len(group)

    async def _group(self, session: Session, group: list[Step]) -> None:
        """Requests the recording sent before any was answered: sent again in order, each
        once the previous is on the wire, then awaited together."""
        self.groups += 1
        first = len(self.report.items)
        async with anyio.create_task_group() as tg:
            for step in group:
                sent = anyio.Event()
                tg.start_soon(self._request, session, step, sent)
                with anyio.move_on_after(self.options.timeout):
                    await sent.wait()
        # the report keeps the recorded order, whatever order the answers came in
        self.report.items[first:] = sorted(self.report.items[first:], key=lambda i: i.seq)

    async def _listing(self, session: Session, pages: list[Step]) -> None:
        """A recorded listing (all its pages) against the whole live listing, by name."""
        got = await replay_listing(session, pages, self._remap(pages[0].params), self.options)
        status = MISSING if got.live is None else CHANGED if got.changes or got.failed else SAME
        self.report.items.append(
            Item(
                "request",
                pages[0].method,
                pages[0].seq,
                status,
                changes=got.changes,
                ignored=got.ignored,
                reason=got.reason,
                recorded=got.recorded,
                live=got.live,
            )
        )

    def _init_item(
        self, init: Step | None, live: dict[str, Any] | None, reason: str, live_id: Any = None
    ) -> None:
        if init is None:
            self.report.notes.append(
                "the recording has no initialize request; the session "
                "was opened with mcp-inspect's own"
            )
            return
        self._compare("request", init, live, reason, live_id)

    def _rest_missing(self, start: int, reason: str) -> None:
        for step in self.plan.steps[start:]:
            if not step.notification and not step.retry:
                status = MISSING if step.response is not None else SAME
                self.report.items.append(
                    Item(
                        "request",
                        step.method,
                        step.seq,
                        status,
                        reason=reason,
                        recorded=step.response,
                        detail=_detail(step.params),
                    )
                )

    async def _request(self, session: Session, step: Step, sent: anyio.Event | None = None) -> None:
        try:
            await self._send_and_compare(session, step, sent)
        finally:
            if sent is not None:
                sent.set()  # also when sending failed: the group goes on

    async def _send_and_compare(
        self, session: Session, step: Step, sent: anyio.Event | None
    ) -> None:
        params = self._remap(step.params)
        on_progress = None
        if (
            isinstance(params, dict)
            and isinstance(params.get("_meta"), dict)
            and "progressToken" in params["_meta"]
        ):
            meta = {k: v for k, v in params["_meta"].items() if k != "progressToken"}
            params = (
                {**params, "_meta": meta}
                if meta
                else {k: v for k, v in params.items() if k != "_meta"}
            )
            on_progress = _ignore_progress  # the session makes a fresh token
        rid = session.next_id()
        if sent is not None:
            self.on_sent[typed_id_key(rid)] = sent
        reason = ""
        returned: Any = None
        unanswered = step.response is None
        limit = (
            min(max(step.waited or 0.0, 0.2), UNANSWERED_WAIT)
            if unanswered
            else self.options.timeout
        )
        try:
            if unanswered:
                with anyio.move_on_after(limit):
                    await session.request(
                        step.method,
                        params,
                        request_id=rid,
                        timeout=limit + 1.0,
                        on_progress=on_progress,
                    )
                if typed_id_key(rid) not in self.responses and session.lost is None:
                    await session.notify(
                        "notifications/cancelled",
                        {"requestId": rid, "reason": "replay: the recording never got an answer"},
                    )
            else:
                returned = await session.request(
                    step.method, params, request_id=rid, timeout=limit, on_progress=on_progress
                )
        except RequestTimeoutError:
            reason = f"no answer within {limit:g} s"
        except ConnectionClosedError as exc:
            reason = f"connection lost: {exc.lost.describe()}"
        except RpcError:
            pass  # an error response: compared like any other
        live = self.responses.get(typed_id_key(rid))
        if step.settled is not None and returned is not None:
            # the live final answer (after the session's own retries) vs the recorded one
            live = {"jsonrpc": "2.0", "id": rid, "result": returned}
        self._compare("request", step, live, reason, rid)

    def _compare(
        self, kind: str, step: Step, live: dict[str, Any] | None, reason: str, live_id: Any = None
    ) -> None:
        recorded = step.settled or step.response
        if recorded is None and live is None:
            item = Item(
                kind, step.method, step.seq, SAME, reason="unanswered in the recording and live"
            )
        elif recorded is None:
            item = Item(
                kind,
                step.method,
                step.seq,
                NEW,
                live=live,
                reason="the recording has no answer; the live server answered",
            )
        elif live is None:
            item = Item(
                kind,
                step.method,
                step.seq,
                MISSING,
                recorded=recorded,
                reason=reason or "no live answer",
            )
        else:
            result = diff(recorded, live, self.options.rules)
            self._learn(result.ignored)
            item = Item(
                kind,
                step.method,
                step.seq,
                SAME if result.same else CHANGED,
                changes=[c.to_json() for c in result.changes],
                ignored=len(result.ignored),
                recorded=recorded,
                live=live,
            )
        item.detail = _detail(step.params)
        self.report.items.append(item)
        if live_id is not None:
            self.compared.append((item, step, typed_id_key(live_id)))

    def compare_notifications(self) -> None:
        """Each request's notifications, recorded vs live, once the run is over (progress
        may come after the answer). A counted difference makes a same request changed."""
        for item, step, live_key in self.compared:
            result = compare(
                step.notifications,
                self.notices.of(live_key),
                self.options.notifications,
                self.options.rules,
            )
            item.notifications = result
            if result is not None and result.status == "changed" and item.status == SAME:
                item.status = CHANGED
                item.reason = item.reason or "the server's notifications differ"
                if item.recorded is None:
                    item.recorded, item.live = step.response, self.responses.get(live_key)

    def _learn(self, ignored: Iterable[Any]) -> None:
        for change in ignored:
            if change.path == "$.id" or change.kind != "changed":
                continue
            if isinstance(change.old, str) and isinstance(change.new, str) and change.old:
                self.id_map[change.old] = change.new

    def _remap(self, params: Any) -> Any:
        if not self.id_map or params is None:
            return params
        return _substitute(copy.deepcopy(params), self.id_map)

    def compare_server_requests(self, responders: RecordedResponders) -> None:
        """Recorded server requests vs live ones, paired by method in order."""
        live_by_method: dict[str, list[Any]] = {}
        for msg in self.live_server_requests:
            live_by_method.setdefault(str(msg.get("method")), []).append(msg.get("params"))
        seen: dict[str, int] = {}
        for exchange in self.plan.server_requests:
            n = seen.get(exchange.method, 0)
            seen[exchange.method] = n + 1
            lives = live_by_method.get(exchange.method, [])
            if exchange.method == "ping":
                continue  # keep-alives come and go with timing
            if n >= len(lives):
                self.report.items.append(
                    Item(
                        "server-request",
                        exchange.method,
                        exchange.seq,
                        MISSING,
                        reason="the server sent this request in the recording, not live",
                        recorded=exchange.params,
                    )
                )
                continue
            # compared as messages without ids, so ignore paths read $.params.message
            result = diff(
                {"method": exchange.method, "params": exchange.params},
                {"method": exchange.method, "params": lives[n]},
                self.options.rules,
            )
            self.report.items.append(
                Item(
                    "server-request",
                    exchange.method,
                    exchange.seq,
                    SAME if result.same else CHANGED,
                    changes=[c.to_json() for c in result.changes],
                    ignored=len(result.ignored),
                    recorded=exchange.params,
                    live=lives[n],
                )
            )
        for method, lives in live_by_method.items():
            if method == "ping":
                continue
            for extra in lives[seen.get(method, 0) :]:
                self.report.items.append(
                    Item(
                        "server-request",
                        method,
                        0,
                        NEW,
                        live=extra,
                        reason="the live server sent a request the recording does not have",
                    )
                )


def _detail(params: Any) -> str:
    if isinstance(params, dict):
        for key in ("name", "uri"):
            if isinstance(params.get(key), str):
                return str(params[key])
        ref = params.get("ref")
        if isinstance(ref, dict):
            return str(ref.get("name") or ref.get("uri") or "")
    return ""


def _ignore_progress(progress: float, total: float | None, message: str | None) -> None:
    return None


def _substitute(value: Any, mapping: dict[Any, Any]) -> Any:
    if isinstance(value, dict):
        return {k: _substitute(v, mapping) for k, v in value.items()}
    if isinstance(value, list):
        return [_substitute(v, mapping) for v in value]
    if isinstance(value, str) and value in mapping:
        return mapping[value]
    return value
