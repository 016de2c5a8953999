"""A host session on the HTTP front passes the host's frames on in the order they came:
directly from the request's task when nothing is ahead, else queued for the relay's pump,
which waits for a frame still on its way."""

from __future__ import annotations

from typing import Any, cast

import anyio

from inspector.proxy.front_session import FrontSession
from inspector.proxy.relay import Relay


class SlowRelay:
    """What a session needs of its relay; frame b"1" waits at ``gate``."""

    def __init__(self, passed: list[bytes], gate: anyio.Event) -> None:
        self.pumping = True
        self.done = anyio.Event()
        self.passed = passed
        self.gate = gate
        self.through = anyio.Event()  # set as 1 goes through (its waiter runs before the pump)

    async def host_frame(self, raw: bytes, message: object = None) -> None:
        self.passed.append(raw)
        if raw == b"1":
            await self.gate.wait()
            self.through.set()


async def until(predicate: Any) -> None:
    with anyio.fail_after(5):
        while not predicate():
            await anyio.sleep(0.001)


async def test_frames_keep_their_order_passed_directly_or_queued() -> None:
    passed: list[bytes] = []
    gate = anyio.Event()
    session = FrontSession("s", 1)
    relay = SlowRelay(passed, gate)
    session.relay = cast(Relay, relay)

    async def late() -> None:
        """Comes between 1's end and the pump passing 2: must still queue behind 2."""
        await relay.through.wait()
        await session.deliver(b"5")

    async def pump() -> None:  # as Relay._pump_host reads them
        async for raw, _ in session.frames():
            passed.append(raw)
            await anyio.sleep(0)

    async with anyio.create_task_group() as tg:
        tg.start_soon(pump)
        tg.start_soon(late)
        tg.start_soon(session.deliver, b"1")  # nothing ahead: passed directly, then held
        await until(lambda: passed == [b"1"])
        await session.deliver(b"2")  # 1 is on its way: queued (the pump holds it)
        await anyio.sleep(0.05)
        assert passed == [b"1"]  # the pump waits for 1
        gate.set()
        await until(lambda: len(passed) == 3)
        assert passed == [b"1", b"2", b"5"]
        await session.deliver(b"4")  # nothing ahead again: directly
        assert passed[-1] == b"4"
        tg.cancel_scope.cancel()
