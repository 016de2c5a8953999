"""An idle app lays nothing out: views redrawn on a timer (in flight, tasks) leave the
screen alone while what they show is unchanged, since each layout re-arranges and
repaints the whole screen (it made every resize and key wait behind it)."""

from __future__ import annotations

import asyncio
import gc
from typing import Any

import pytest
from tui_helpers import wait_connected

from inspector.target import demo_target
from inspector.tui.app import InspectorApp
from inspector.tui.widgets.inflight import REFRESH

pytestmark = pytest.mark.slow  # end to end: see pyproject's markers


async def test_idle_app_lays_nothing_out(monkeypatch: pytest.MonkeyPatch) -> None:
    app = InspectorApp(demo_target())
    async with app.run_test(size=(160, 50)) as pilot:
        await wait_connected(pilot)
        await pilot.pause()
        screen = app.screen
        layouts: list[object] = []
        original = screen._refresh_layout

        def spy(*args: Any, **kwargs: Any) -> None:
            layouts.append(args)
            original(*args, **kwargs)

        monkeypatch.setattr(screen, "_refresh_layout", spy)
        # several in-flight ticks and one of the tasks view's (1 s)
        await asyncio.sleep(max(1.2, 5 * REFRESH))
        assert layouts == []


async def test_startup_heap_is_frozen_while_the_app_runs() -> None:
    """A full collection (every few resizes) need not walk the modules, classes and
    widgets made at startup; they go back to the collector when the app ends."""
    app = InspectorApp(demo_target())
    async with app.run_test(size=(160, 50)) as pilot:
        await wait_connected(pilot)
        assert gc.get_freeze_count() > 50_000
    assert gc.get_freeze_count() == 0
