"""Running the calls: the closed model (N users, each calling as soon as its last call
ended) and the open model (R calls a second on a schedule, whatever the latency).

In the open model a slow server shows as queueing (latency grows, calls pile up in
flight), not as a slower client: the schedule does not wait for answers. Calls that would
pass ``max_in_flight`` are not started and counted as ``dropped`` (the client is
saturated, so its numbers stop meaning anything). Sessions are opened in parallel, each by
the caller's ``open_session``; with ``share_session`` one session carries every call."""

from __future__ import annotations

import json
import time
from collections.abc import AsyncIterator, Callable, Sequence
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from dataclasses import dataclass
from typing import Any

import anyio
from anyio.abc import TaskStatus

from inspector.engine.session import Session
from inspector.errors import InspectorError
from inspector.load.stats import Stats, error_kind
from inspector.load.workload import Call
from inspector.wire.events import Channel, WireEvent
from inspector.wire.jsonrpc import RpcError

OpenSession = Callable[[], AbstractAsyncContextManager[Session]]
Tick = Callable[[Stats], None]
TICK = 0.25  # how often ``on_tick`` sees the numbers
MAX_STDERR_LINES = 1000  # distinct stderr lines kept (counted); more are folded into one


class LoadError(InspectorError):
    """A run that could not start (no session could be opened); the message says why."""


@dataclass(frozen=True, slots=True)
class LoadOptions:
    concurrency: int = 1
    rate: float | None = None  # calls a second: the open model; None: the closed model
    duration: float | None = None  # seconds of measured calls
    requests: int | None = None  # measured calls in all
    warmup: float = 0.0  # seconds of calls before measuring (not counted)
    timeout: float = 30.0  # one call's bound
    share_session: bool = False
    max_in_flight: int = 10_000
    drain: float = 10.0  # after the last scheduled call, how long in-flight calls may take

    def describe(self) -> str:
        model = f"{self.rate:g} calls/s (open model)" if self.rate else "closed model"
        bound = f"{self.requests} calls" if self.requests is not None else f"{self.duration:g} s"
        sessions = "1 shared session" if self.share_session else f"{self.concurrency} sessions"
        return f"{sessions}, {model}, {bound}"


class _Budget:
    """When the measured part ends (a deadline, a number of calls, or both), and which
    call comes next: the run takes the workload's calls in turn, so with ``--requests`` each
    call's count is exact whatever the users' speeds."""

    def __init__(self, options: LoadOptions) -> None:
        self.deadline = (
            time.monotonic() + options.duration if options.duration is not None else None
        )
        self.left = options.requests
        self.taken = 0

    def take(self) -> int | None:
        """The number of the next call, or None when the run is over."""
        if self.deadline is not None and time.monotonic() >= self.deadline:
            return None
        if self.left is not None:
            if self.left <= 0:
                return None
            self.left -= 1
        self.taken += 1
        return self.taken - 1


class _Flights:
    """The calls started and not yet recorded. A call counts as in flight from the moment
    it is scheduled, not when its task first runs: the open model's drain looks at that
    count right after scheduling the last call, and must not end before the call began.
    Calls the end of a run cuts off are counted as ``unfinished``, never lost."""

    def __init__(self, stats: Stats) -> None:
        self.stats = stats
        self.pending: dict[int, tuple[str, float]] = {}
        self.next_ticket = 0

    def begin(self, label: str) -> int:
        ticket = self.next_ticket
        self.next_ticket += 1
        self.pending[ticket] = (label, time.monotonic())
        self.stats.in_flight += 1
        return ticket

    def end(self, ticket: int) -> None:
        if self.pending.pop(ticket, None) is not None:
            self.stats.in_flight -= 1

    def abandon(self) -> None:
        """Count every call still pending as unfinished: sent, but the run (a stop, the
        end of the drain) ended before its answer, so it has no latency to record."""
        self.stats.unfinished += len(self.pending)
        self.stats.in_flight -= len(self.pending)
        self.pending.clear()


async def _call(
    session: Session, call: Call, flights: _Flights, ticket: int, timeout: float
) -> None:
    stats = flights.stats
    started = time.monotonic()
    try:
        result = await session.request(call.method, dict(call.params), timeout=timeout)
    except RpcError as exc:
        now = time.monotonic()
        sample = json.dumps({"error": exc.to_error()}, ensure_ascii=False, default=str)
        stats.record_error(call.label, error_kind(exc), sample, now - started, now)
    except (OSError, InspectorError) as exc:
        now = time.monotonic()
        stats.record_error(call.label, error_kind(exc), str(exc), now - started, now)
    else:
        now = time.monotonic()
        if isinstance(result, dict) and result.get("isError") is True:
            sample = json.dumps(result, ensure_ascii=False, default=str)
            stats.record_error(call.label, "tool_error", sample, now - started, now)
        else:
            stats.record_ok(call.label, now - started, now)
    flights.end(ticket)  # not reached when cancelled: ``abandon`` records that call


def _watch_stderr(session: Session, stats: Stats) -> None:
    def observe(event: WireEvent) -> None:
        if event.channel is not Channel.STDERR:
            return
        line = event.text().rstrip()
        if line in stats.stderr or len(stats.stderr) < MAX_STDERR_LINES:
            stats.stderr[line] += 1
        else:
            stats.stderr["(more distinct lines)"] += 1

    session.add_observer(observe)


@asynccontextmanager
async def _sessions(open_session: OpenSession, count: int) -> AsyncIterator[list[Session]]:
    """``count`` sessions opened in parallel. Each is held open by a task of its own (a
    session's task group must end in the task that began it) until the run is over; a
    session that cannot be opened ends them all, said once."""
    opened: list[Session] = []
    failures: list[BaseException] = []
    release = anyio.Event()

    async def hold(*, task_status: TaskStatus[None] = anyio.TASK_STATUS_IGNORED) -> None:
        started = False
        try:
            async with open_session() as session:
                opened.append(session)
                started = True
                task_status.started()
                await release.wait()
        except Exception as exc:  # a server that cannot be reached, or one gone at the end
            if not started:
                failures.append(exc)
                task_status.started()

    async with anyio.create_task_group() as holders:
        async with anyio.create_task_group() as starting:
            for _ in range(count):
                starting.start_soon(holders.start, hold)
        try:
            if failures:
                raise LoadError(
                    f"{len(failures)} of {count} sessions could not be opened: {failures[0]}"
                ) from failures[0]
            yield opened
        finally:
            release.set()


async def _closed(
    sessions: Sequence[Session], calls: Sequence[Call], stats: Stats, options: LoadOptions
) -> None:
    budget = _Budget(options)
    flights = _Flights(stats)

    async def user(number: int) -> None:
        session = sessions[number % len(sessions)]
        while not session.closed:
            ticket = budget.take()
            if ticket is None:
                return
            call = calls[ticket % len(calls)]
            await _call(session, call, flights, flights.begin(call.label), options.timeout)

    try:
        async with anyio.create_task_group() as tg:
            for number in range(options.concurrency):
                tg.start_soon(user, number)
    finally:
        flights.abandon()


async def _open(
    sessions: Sequence[Session], calls: Sequence[Call], stats: Stats, options: LoadOptions
) -> None:
    assert options.rate
    budget = _Budget(options)
    flights = _Flights(stats)
    period = 1.0 / options.rate
    try:
        await _schedule(sessions, calls, flights, budget, period, options)
    finally:
        flights.abandon()


async def _schedule(
    sessions: Sequence[Session],
    calls: Sequence[Call],
    flights: _Flights,
    budget: _Budget,
    period: float,
    options: LoadOptions,
) -> None:
    stats = flights.stats
    async with anyio.create_task_group() as tg:
        start = time.monotonic()
        number = 0
        while budget.take() is not None:
            due = start + number * period
            delay = due - time.monotonic()
            if delay > 0:
                await anyio.sleep(delay)
            now = time.monotonic()
            stats.lag = max(stats.lag, now - due)
            stats.offered += 1
            stats.offered_span = now - start
            session = sessions[number % len(sessions)]
            if stats.in_flight >= options.max_in_flight or session.closed:
                stats.dropped += 1
            else:
                call = calls[number % len(calls)]
                ticket = flights.begin(call.label)
                tg.start_soon(_call, session, call, flights, ticket, options.timeout)
            number += 1
        with anyio.move_on_after(options.drain):
            while stats.in_flight:
                await anyio.sleep(0.01)
        tg.cancel_scope.cancel()


async def run_load(
    open_session: OpenSession,
    calls: Sequence[Call],
    options: LoadOptions,
    *,
    on_tick: Tick | None = None,
    stats: Stats | None = None,
) -> Stats:
    """Run ``calls`` under ``options``; returns the measured numbers (also when cancelled:
    the caller's cancel scope ends the run, ``stats`` keeps what ran)."""
    if not calls:
        raise LoadError("nothing to call")
    if options.duration is None and options.requests is None:
        raise LoadError("a run needs a bound: a duration or a number of requests")
    stats = stats if stats is not None else Stats()
    count = 1 if options.share_session else max(1, options.concurrency)
    async with _sessions(open_session, count) as sessions:
        for session in sessions:
            _watch_stderr(session, stats)
        run = _open if options.rate else _closed
        if options.warmup > 0:
            warm = LoadOptions(
                concurrency=options.concurrency,
                rate=options.rate,
                duration=options.warmup,
                timeout=options.timeout,
                max_in_flight=options.max_in_flight,
                drain=options.timeout,
            )
            await run(sessions, calls, Stats(), warm)
        stats.started = time.monotonic()
        try:
            async with anyio.create_task_group() as tg:
                if on_tick is not None:
                    tg.start_soon(_ticker, on_tick, stats)
                await run(sessions, calls, stats, options)
                tg.cancel_scope.cancel()
        finally:
            stats.ended = time.monotonic()
    return stats


async def _ticker(on_tick: Tick, stats: Stats) -> None:
    while True:
        on_tick(stats)
        await anyio.sleep(TICK)


def run_summary(stats: Stats) -> dict[str, Any]:
    """The numbers a live display shows."""
    return {
        "calls": stats.total,
        "throughput": stats.throughput,
        "errors": stats.failed,
        "in_flight": stats.in_flight,
        "p50": stats.percentile_ms(50),
        "p99": stats.percentile_ms(99),
    }
