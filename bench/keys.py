"""A key's delay through a busy app, as a person feels it: the key posted as the driver
posts it, timed until a spy on the widget that handles it runs.

``pilot.press`` is not that measure: it waits for an idle screen (a flood never gives
one, and a workspace connecting twenty servers seldom does), so it times the app's
quiet, not the key (a median of 72 ms with one server alone).

    handled = []                        # the spy appends perf_counter() when it runs
    delays = await press_keys(app, handled, time.perf_counter() + 5)
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Sequence
from typing import Any

from textual import events
from textual.app import App

SCROLL_KEYS = ("up", "up", "pageup", "down", "pagedown", "up", "home", "end")
GIVE_UP = 5.0  # seconds: a key not handled by then counts as this long


async def press_keys(
    app: App[Any],
    handled: list[float],
    stop: float | Callable[[], bool],
    keys: Sequence[str] = SCROLL_KEYS,
) -> list[float]:
    """A key every 50 ms (``keys`` in turn) until ``stop`` (a ``perf_counter`` time, or a
    test that says when); each one's delay in seconds until ``handled`` grows."""
    done = stop if callable(stop) else (lambda: time.perf_counter() >= stop)
    delays: list[float] = []
    n = 0
    while not done():
        before = len(handled)
        pressed = time.perf_counter()
        app.post_message(events.Key(keys[n % len(keys)], None))
        n += 1
        until = time.perf_counter() + GIVE_UP
        while len(handled) == before and time.perf_counter() < until:
            await asyncio.sleep(0.001)
        delays.append((handled[before] if len(handled) > before else until) - pressed)
        await asyncio.sleep(max(0.0, 0.05 - (time.perf_counter() - pressed)))
    return delays
