"""A call the client gave up on (timeout, lost connection) says so in the result pane: no
answer came, so it is not shown as a JSON-RPC error with the SDKs' made-up code."""

from __future__ import annotations

import asyncio
import os
import signal
from typing import Any

import pytest
from tui_helpers import screen_text, select_item, wait_connected, wait_for

from inspector.engine.request_errors import ConnectionClosedError
from inspector.target import demo_target
from inspector.transports.stdio import StdioTransport
from inspector.tui import call_runner
from inspector.tui.app import InspectorApp
from inspector.tui.widgets.item_panel import ItemPanel
from inspector.tui.widgets.result_view import ResultView

pytestmark = pytest.mark.slow  # end to end: see pyproject's markers

SIZE = (140, 45)


async def _call_slow_count(pilot: Any, app: InspectorApp) -> None:
    await wait_connected(pilot)
    await select_item(pilot, "tools", "slow_count")
    form = app.query_one(ItemPanel).form
    assert form is not None
    # progress every 3 s: it resets the soft timeout, so a step each second would race the
    # 1 s timeout of the first test (a late loop let the first step win, and the call ran on)
    form.set_arguments({"seconds": 30, "steps": 10})
    await pilot.press("ctrl+s")


async def _kill_the_server_mid_call(pilot: Any, app: InspectorApp) -> None:
    """Call ``slow_count``, and SIGKILL the server's group once the call is in flight."""
    await _call_slow_count(pilot, app)
    session = app.controller.session if app.controller else None
    assert session is not None
    await wait_for(pilot, lambda: any(p.method == "tools/call" for p in session.pending.values()))
    transport = session.transport
    assert isinstance(transport, StdioTransport) and transport.process is not None
    os.killpg(transport.process.pid, signal.SIGKILL)


async def test_a_timed_out_call_says_no_answer_came() -> None:
    app = InspectorApp(demo_target(), timeout=1.0)
    async with app.run_test(size=SIZE) as pilot:
        await _call_slow_count(pilot, app)
        view = app.query_one(ResultView)
        await wait_for(pilot, lambda: "no answer from the server" in screen_text(app), timeout=10)
        outcome: Any = view.outcome
        shown = " ".join(screen_text(app).split())
    assert outcome.error is None and "within the timeout of 1 s" in outcome.no_answer
    assert "within the timeout of 1 s" in shown
    assert "JSON-RPC error" not in shown and "-32001" not in shown


async def test_a_call_cut_by_a_dead_server_says_the_connection_was_lost() -> None:
    app = InspectorApp(demo_target())
    async with app.run_test(size=SIZE) as pilot:
        await _kill_the_server_mid_call(pilot, app)
        try:
            await wait_for(pilot, lambda: "press r to reconnect" in screen_text(app), timeout=10)
        except TimeoutError:  # once in a loaded CI run: what the screen said instead
            raise AssertionError(screen_text(app)) from None
        await pilot.pause(0.3)  # a late outcome of the cut call must not replace it
        shown = screen_text(app)
    assert "connection lost: the server exited" in shown
    assert "JSON-RPC error" not in shown and "-32000" not in shown


async def test_the_cut_calls_outcome_coming_second_keeps_the_connection_lost_text(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The other order of the race above, made certain: the call's failure reaches its
    worker only once the connection-lost text is up. It stays (why, and press r)."""
    app = InspectorApp(demo_target())
    real = call_runner.perform

    async def late(*args: Any, **kw: Any) -> Any:
        try:
            return await real(*args, **kw)
        except ConnectionClosedError:
            while "press r to reconnect" not in screen_text(app):
                await asyncio.sleep(0.02)
            raise

    monkeypatch.setattr(call_runner, "perform", late)
    async with app.run_test(size=SIZE) as pilot:
        await _kill_the_server_mid_call(pilot, app)
        await wait_for(pilot, lambda: "press r to reconnect" in screen_text(app), timeout=10)
        await pilot.pause(0.5)  # the late outcome has come by now
        shown = screen_text(app)
    assert "press r to reconnect" in shown and "connection lost: the server exited" in shown
