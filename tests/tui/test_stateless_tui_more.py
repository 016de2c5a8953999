"""The TUI in the 2026-07-28 stateless era: the status bar says there is no session, and
the open ``subscriptions/listen`` stream is labelled as such in the In flight tab and not
counted as a pending call (Pilot, the real SDK server over stdio)."""

from __future__ import annotations

import sys
from typing import Any

import pytest
from paths import SERVERS
from textual.widgets import DataTable
from tui_helpers import log_methods, plain, select_item, wait_for

from inspector.engine.client import LISTEN_RETRY_DELAY
from inspector.engine.session import PendingRequest
from inspector.live.requests import calls, describe
from inspector.target import target_from_words
from inspector.tui.app import InspectorApp
from inspector.tui.widgets.catalog import Catalog
from inspector.tui.widgets.inflight import InFlightView
from inspector.tui.widgets.result_view import ResultView, render_outcome
from inspector.tui.widgets.status_bar import StatusBar

SERVER = SERVERS / "stateless_server.py"


def test_listen_label_and_calls_count() -> None:
    params = {
        "notifications": {
            "toolsListChanged": True,
            "resourcesListChanged": True,
            "resourceSubscriptions": ["a://1", "a://2"],
        },
        "_meta": {},
    }
    assert (
        describe("subscriptions/listen", params)
        == "listening: tools, resources, 2 subscribed resources"
    )
    listen = PendingRequest(1, "subscriptions/listen", params)
    call = PendingRequest(2, "tools/call", {"name": "add"})
    assert calls([listen, call]) == 1
    assert describe("tools/call", {"name": "add"}) == "tools/call add"


def _row_texts(view: InFlightView) -> list[str]:
    table: DataTable[Any] = view.query_one("#inflight-table", DataTable)
    return [" ".join(plain(cell) for cell in table.get_row_at(i)) for i in range(table.row_count)]


@pytest.mark.slow
async def test_status_bar_and_inflight_in_the_stateless_era() -> None:
    target = target_from_words([sys.executable, str(SERVER), "stdio"])
    app = InspectorApp(target, protocol_version="2026-07-28", timeout=30)
    async with app.run_test(size=(140, 40)) as pilot:
        await wait_for(
            pilot,
            lambda: (
                app.controller is not None
                and app.controller.connected
                and "subscriptions/listen" in log_methods(app)
            ),
        )
        session = app.controller.session if app.controller else None
        assert session is not None
        await wait_for(
            pilot, lambda: any(p.method == "subscriptions/listen" for p in session.pending.values())
        )
        bar = app.query_one(StatusBar)
        await wait_for(pilot, lambda: "stateless" in plain(bar.render()))
        assert "protocol 2026-07-28 stateless (no session)" in plain(bar.render())
        await pilot.press("f")  # the In flight tab: a hidden one draws nothing
        view = app.query_one(InFlightView)
        await wait_for(pilot, lambda: any("listening: tools" in row for row in _row_texts(view)))
        row = next(r for r in _row_texts(view) if "listening:" in r)
        assert "stream" in row and "open" in row
        # the catalog's list requests may still be pending: wait until only the stream is
        await wait_for(
            pilot, lambda: "0 pending" in plain(view.query_one("#inflight-title").render())
        )
        title = plain(view.query_one("#inflight-title").render())
        assert "1 listen stream" in title
        # the stream is not a call in flight: the status bar counts none
        await wait_for(pilot, lambda: "in flight" not in plain(bar.render()) and bar.events > 0)
        assert bar.pending == 0
        await pilot.pause()


@pytest.mark.slow
async def test_the_handshake_era_keeps_its_plain_protocol() -> None:
    target = target_from_words([sys.executable, str(SERVER), "stdio"])
    app = InspectorApp(target, timeout=30, protocol_version="2025-11-25")  # it speaks both
    async with app.run_test(size=(140, 40)) as pilot:
        bar = app.query_one(StatusBar)
        await wait_for(
            pilot,
            lambda: (
                app.controller is not None
                and app.controller.connected
                and "protocol" in plain(bar.render())
            ),
        )
        assert "stateless (no session)" not in plain(bar.render())
        await pilot.pause()


@pytest.mark.slow
async def test_a_cancelled_listen_stream_stays_closed_until_shift_l_reopens_it() -> None:
    target = target_from_words([sys.executable, str(SERVER), "stdio"])
    app = InspectorApp(target, timeout=30)  # no --protocol-version: detected stateless
    async with app.run_test(size=(140, 40)) as pilot:
        await wait_for(pilot, lambda: app.controller is not None and app.controller.connected)
        await pilot.press("f")  # the In flight tab: a hidden one draws nothing
        view = app.query_one(InFlightView)
        await wait_for(pilot, lambda: any("listening: tools" in r for r in _row_texts(view)))
        await wait_for(
            pilot, lambda: "0 pending" in plain(view.query_one("#inflight-title").render())
        )
        table: DataTable[Any] = view.query_one("#inflight-table", DataTable)
        table.focus()
        await wait_for(pilot, lambda: table.has_focus)
        row = next(i for i, r in enumerate(_row_texts(view)) if "listening:" in r)
        table.move_cursor(row=row)
        await pilot.press("c")
        assert app.controller is not None and app.controller.client is not None
        client = app.controller.client
        await wait_for(pilot, lambda: client.listen_closed)
        await pilot.pause(LISTEN_RETRY_DELAY * 2)  # the loop would have re-opened it by now
        assert log_methods(app).count("subscriptions/listen") == 1
        assert not any("listening:" in r and "open" in r for r in _row_texts(view))
        await pilot.press("L")
        await wait_for(pilot, lambda: log_methods(app).count("subscriptions/listen") == 2)
        assert not client.listen_closed


@pytest.mark.slow
async def test_ctrl_s_on_a_task_tool_follows_the_extension_task() -> None:
    """2026-07-28 Tasks extension: ctrl+s on a task-required tool runs it through the
    Tasks tab; the server's task is polled with tasks/get to its inline result."""
    era_server = SERVERS / "era_server.py"
    target = target_from_words([sys.executable, str(era_server), "stateless-stdio"])
    app = InspectorApp(target, timeout=30)
    async with app.run_test(size=(140, 40)) as pilot:
        await wait_for(
            pilot,
            lambda: (
                app.controller is not None
                and app.controller.connected
                and any(t.get("name") == "report" for t in app.query_one(Catalog).items["tools"])
            ),
        )
        await select_item(pilot, "tools", "report")
        await pilot.press("ctrl+s")
        view = app.query_one(ResultView)
        await wait_for(
            pilot,
            lambda: (
                view.outcome is not None and "report done" in plain(render_outcome(view.outcome))
            ),
            timeout=20,
        )
        methods = log_methods(app)
    assert "tasks/get" in methods and "tasks/result" not in methods
