"""The TUI in the 2026-07-28 stateless era: the status bar says there is no session, and
the open ``subscriptions/listen`` stream is labelled as such in the In flight tab and not
counted as a pending call (Pilot, the real SDK server over stdio)."""

from __future__ import annotations

import sys
from typing import Any

from paths import SERVERS
from textual.widgets import DataTable
from tui_helpers import log_methods, plain, wait_for

from inspector.engine.session import PendingRequest
from inspector.target import target_from_words
from inspector.tui.app import InspectorApp
from inspector.tui.widgets.inflight import InFlightView, calls, describe
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


async def test_the_handshake_era_keeps_its_plain_protocol() -> None:
    target = target_from_words([sys.executable, str(SERVER), "stdio"])
    app = InspectorApp(target, timeout=30)
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
