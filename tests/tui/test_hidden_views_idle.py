"""Hidden bottom tabs draw nothing: the In flight table is rebuilt for a pending call's
ticking time and progress only while it is on screen, and catches up when shown. (An idle
app, or one with the Log tab in front, spent CPU rebuilding tables nobody saw.) Through
the real app, the demo server and the keys a user presses."""

from __future__ import annotations

from typing import Any

import pytest
from textual.widgets import DataTable
from tui_helpers import select_item, wait_connected, wait_for

from inspector.target import demo_target
from inspector.tui.app import InspectorApp
from inspector.tui.widgets.inflight import InFlightView
from inspector.tui.widgets.item_panel import ItemPanel

SIZE = (140, 40)


def counted(view: InFlightView) -> list[int]:
    """Count the view's table rebuilds."""
    calls = [0]
    real = view.refresh_rows

    def spy() -> None:
        calls[0] += 1
        real()

    view.refresh_rows = spy  # type: ignore[method-assign]
    return calls


def rows(view: InFlightView) -> list[str]:
    table: DataTable[Any] = view.query_one("#inflight-table", DataTable)
    return [" ".join(str(c) for c in table.get_row_at(i)) for i in range(table.row_count)]


@pytest.mark.slow
async def test_the_in_flight_table_is_drawn_only_when_shown() -> None:
    app = InspectorApp(demo_target())
    async with app.run_test(size=SIZE) as pilot:
        await wait_connected(pilot)
        view = app.query_one(InFlightView)
        rebuilds = counted(view)
        await select_item(pilot, "tools", "slow_count")
        form = app.query_one(ItemPanel).form
        assert form is not None
        # long enough to be in flight however slowly the machine runs the keys below
        # (an 8 s call could end before the tab was shown, on a loaded machine)
        form.set_arguments({"seconds": 60, "steps": 600})
        await pilot.pause(0.1)
        await pilot.press("ctrl+s")  # a call with progress, the Log tab in front
        await wait_for(pilot, lambda: app.query_one("#tab-inflight").display is False)
        await pilot.pause(1.0)  # progress arrives, the clock ticks
        assert rebuilds[0] == 0
        await pilot.press("escape")  # out of the form: letter keys act
        await pilot.press("f")  # the In flight tab
        await wait_for(pilot, lambda: any("slow_count" in r and "/600" in r for r in rows(view)))
        shown = rebuilds[0]
        assert shown >= 1  # caught up when shown
        await pilot.pause(0.8)
        assert rebuilds[0] > shown  # and follows the call while shown
