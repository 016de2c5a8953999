"""The stdio reader lets go of a line once it has handed it on.

The last line a server sent (often its biggest answer: a 1 MB result) stayed referred to
by the reader's loop while it waited for the next line, beside the log's copy of the same
frame: a 1 MB result was held twice for as long as the server said nothing more.
"""

from __future__ import annotations

import asyncio
import gc

import anyio

from inspector.transports.stdio import _read_lines


def holders(value: bytes, *mine: object) -> list[str]:
    """What refers to ``value`` besides ``mine`` (type names; frames and coroutines of a
    suspended reader among them)."""
    gc.collect()
    return [type(r).__name__ for r in gc.get_referrers(value) if not any(r is m for m in mine)]


async def test_a_line_handed_on_is_not_held_while_the_next_is_awaited() -> None:
    reader = asyncio.StreamReader()
    got: list[bytes] = []
    arrived = asyncio.Event()

    def on_lines(lines: list[bytes], terminated: bool) -> None:
        got.extend(lines)  # the reader's own list is not kept
        arrived.set()

    # two lines in one read (one batch: the reader's list of lines), then nothing more
    reader.feed_data(b"small\n" + b"x" * 300_000 + b"\n")
    task = asyncio.create_task(_read_lines(reader, on_lines))
    try:
        with anyio.fail_after(10):
            while len(got) < 2:
                arrived.clear()
                await arrived.wait()
        assert got[1] == b"x" * 300_000
        me = asyncio.current_task()
        assert me is not None
        here = me.get_coro()  # this test's own stack holds the argument it passes
        # the reader is back waiting for data once it asks the stream for more: it may
        # first stand aside a moment (``REST``, a timer) after a slice of reading
        for _ in range(200):
            if reader._waiter is not None:  # type: ignore[attr-defined]
                break
            await asyncio.sleep(0.005)
        assert reader._waiter is not None  # type: ignore[attr-defined]
        assert holders(got[1], got, here) == []
        assert holders(got[0], got, here) == []
    finally:
        reader.feed_eof()
        with anyio.fail_after(10):
            await task
