"""The load runner's bookkeeping of calls in flight: every scheduled call ends up in the
numbers, whether it answered, failed, or was cut off by the end of the run.

A fake session stands in for the server here: the cases are scheduler instants (a call
whose task has not run yet when the drain looks) that no real server can produce on
demand."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import anyio
import pytest

from inspector.load.report import report_text
from inspector.load.runner import LoadOptions, run_load
from inspector.load.stats import Stats
from inspector.load.workload import Call


class InstantSession:
    """Answers every call at the next scheduler turn, or never (``hang``)."""

    closed = False

    def __init__(self, hang: bool = False) -> None:
        self.hang = hang
        self.calls = 0

    async def request(self, method: str, params: dict[str, Any], timeout: float) -> Any:
        self.calls += 1
        if self.hang:
            await anyio.sleep_forever()
        await anyio.sleep(0)
        return {"content": []}

    def add_observer(self, observer: Any) -> None:
        pass


def opener(session: InstantSession) -> Any:
    @asynccontextmanager
    async def open_session() -> AsyncIterator[Any]:
        yield session

    return open_session


CALL = Call(method="tools/call", params={"name": "add"})


@pytest.mark.parametrize("rate", [None, 1000.0])
async def test_every_call_of_a_fast_server_is_counted(rate: float | None) -> None:
    # the last call is scheduled while every earlier one has already answered: the
    # drain must wait for it, not see zero calls running and end the run under it
    session = InstantSession()
    options = LoadOptions(concurrency=2, rate=rate, requests=30)
    stats = await run_load(opener(session), [CALL], options)
    assert (stats.ok, stats.failed, stats.in_flight) == (30, 0, 0)
    assert session.calls == 30


async def test_calls_the_drain_cuts_off_are_unfinished_not_lost() -> None:
    session = InstantSession(hang=True)
    options = LoadOptions(concurrency=1, rate=200.0, requests=5, drain=0.05)
    stats = await run_load(opener(session), [CALL], options)
    assert (stats.total, stats.unfinished, stats.in_flight) == (0, 5, 0)
    assert "unfinished 5 (cut off)" in report_text(stats, {})
    assert stats.to_json()["unfinished"] == 5


async def test_a_stopped_closed_run_counts_the_calls_it_cut_off() -> None:
    session = InstantSession(hang=True)
    options = LoadOptions(concurrency=3, duration=60)
    stats = Stats()
    with anyio.move_on_after(0.1):  # the user's stop: the caller's cancel scope
        await run_load(opener(session), [CALL], options, stats=stats)
    assert session.calls == 3  # each user's first call, never answered
    assert (stats.total, stats.unfinished, stats.in_flight) == (0, 3, 0)
