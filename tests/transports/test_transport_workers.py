"""Workers: jobs run soon on tasks reused from one job to the next, concurrently when
they overlap, ended with their task group."""

from __future__ import annotations

import asyncio

import anyio
import pytest

from inspector.transports.http import StreamableHttpTransport
from inspector.transports.workers import Workers
from inspector.wire.events import Channel, Direction, WireEvent
from inspector.wire.jsonrpc import encode
from inspector.wire.transport import ConnectionLost
from tests.proxy_support import INIT


async def test_jobs_one_after_another_share_a_task_and_overlapping_ones_do_not() -> None:
    tasks: list[asyncio.Task[object] | None] = []
    gate = anyio.Event()

    async def quick() -> None:
        tasks.append(asyncio.current_task())

    async def held() -> None:
        tasks.append(asyncio.current_task())
        await gate.wait()

    async with anyio.create_task_group() as tg:
        workers = Workers(tg)
        for _ in range(3):  # each done before the next: one task for all three
            workers.run_soon(quick)
            await anyio.sleep(0.01)
        assert len(tasks) == 3 and len(set(tasks)) == 1
        tasks.clear()
        workers.run_soon(held)
        workers.run_soon(held)  # the first still runs: another task, at the same time
        await anyio.sleep(0.01)
        assert len(tasks) == 2 and len(set(tasks)) == 2
        gate.set()
        await anyio.sleep(0.01)
        tasks.clear()
        for _ in range(2):  # both tasks wait for work now: no third one
            workers.run_soon(quick)
        await anyio.sleep(0.01)
        assert len(set(tasks)) == 2
        tg.cancel_scope.cancel()


async def test_a_job_starts_on_the_next_turn_like_start_soon() -> None:
    ran: list[str] = []

    async def job() -> None:
        ran.append("job")

    async with anyio.create_task_group() as tg:
        workers = Workers(tg)
        workers.run_soon(job)
        await anyio.sleep(0.01)
        workers.run_soon(job)  # to a task that waits
        ran.append("caller")  # the caller goes on first
        await anyio.sleep(0.01)
        tg.cancel_scope.cancel()
    assert ran == ["job", "caller", "job"]


async def test_the_group_ending_ends_running_and_waiting_tasks() -> None:
    cancelled: list[str] = []

    async def forever() -> None:
        try:
            await anyio.sleep_forever()
        except anyio.get_cancelled_exc_class():
            cancelled.append("job")
            raise

    async def quick() -> None:
        pass

    with anyio.fail_after(5):
        async with anyio.create_task_group() as tg:
            workers = Workers(tg)
            workers.run_soon(quick)  # then waits for work
            await anyio.sleep(0.01)
            workers.run_soon(forever)  # the waiting task takes it
            workers.run_soon(quick)  # a new one: then it waits
            await anyio.sleep(0.01)
            tg.cancel_scope.cancel()
    assert cancelled == ["job"]
    assert not workers._idle  # the waiting task's turn went with it


async def test_no_more_tasks_wait_than_kept() -> None:
    gate = anyio.Event()
    started = 0

    async def held() -> None:
        nonlocal started
        started += 1
        await gate.wait()

    async with anyio.create_task_group() as tg:
        workers = Workers(tg, idle_kept=2)
        for _ in range(5):
            workers.run_soon(held)
        await anyio.sleep(0.01)
        gate.set()
        await anyio.sleep(0.01)
        assert started == 5 and len(workers._idle) == 2  # three ended
        tg.cancel_scope.cancel()


async def test_closed_the_waiting_tasks_end_and_the_group_ends_by_itself() -> None:
    async def quick() -> None:
        pass

    with anyio.fail_after(5):
        async with anyio.create_task_group() as tg:
            workers = Workers(tg)
            workers.run_soon(quick)
            workers.run_soon(quick)
            await anyio.sleep(0.01)
            assert len(workers._idle) == 2
            workers.close()  # no cancel: the group's exit waits for its tasks
    assert not workers._idle


@pytest.mark.slow
async def test_a_closed_transport_holds_no_task_of_its_group(sdk_json_base: str) -> None:
    """A session's task group ends by itself once the transport closed: the tasks its
    requests ran on do not wait for more."""
    seen: list[WireEvent] = []
    answered = anyio.Event()

    class Host:
        def emit(self, event: WireEvent) -> None:
            seen.append(event)
            if event.channel is Channel.BODY and event.direction is Direction.IN:
                answered.set()

        def connection_lost(self, lost: ConnectionLost) -> None:
            pass

    base = sdk_json_base  # the worker's shared server (conftest)
    with anyio.fail_after(30):
        async with anyio.create_task_group() as tg:
            transport = StreamableHttpTransport(f"{base}/mcp", open_get_stream=False)
            await transport.start(Host(), tg)
            await transport.send_line(encode(INIT))
            await answered.wait()
            assert transport._workers is not None and len(transport._workers._idle) == 1
            await transport.close()  # no cancel: the group's exit waits for its tasks
    assert any(b'"protocolVersion"' in e.raw for e in seen if e.channel is Channel.BODY)
