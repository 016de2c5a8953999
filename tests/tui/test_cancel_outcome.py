"""A call the user cancels is "cancelled by you" (the result pane and In flight), never a
JSON-RPC error: no such response came over the wire, and none is recorded."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import anyio
import pytest
from memory_peer import handshake
from textual.widgets import DataTable
from tui_helpers import screen_text, select_item, wait_connected, wait_for

from inspector.engine.outcomes import CANCELLED, CANCELLED_BY_USER
from inspector.engine.session import RequestCancelledError, Session
from inspector.record.format import SessionHeader
from inspector.record.reader import read_session
from inspector.record.recorder import Recorder
from inspector.target import demo_target, target_info
from inspector.transports.memory import memory_pair
from inspector.tui.app import InspectorApp
from inspector.tui.widgets.inflight import InFlightView
from inspector.tui.widgets.item_panel import ItemPanel
from inspector.tui.widgets.result_view import ResultView
from inspector.wire import jsonrpc
from inspector.wire.events import Direction

SIZE = (140, 40)


async def test_the_engine_says_who_cancelled() -> None:
    transport, server = memory_pair()
    failures: dict[str, BaseException] = {}
    with anyio.fail_after(5):
        async with Session(transport) as session, anyio.create_task_group() as tg:
            tg.start_soon(handshake, server)
            await session.initialize()

            async def ask(name: str) -> None:
                try:
                    await session.request(name)
                except RequestCancelledError as exc:
                    failures[name] = exc

            for name in ("mine", "its"):
                tg.start_soon(ask, name)
            await wait_pending(session, 2)
            ids = {p.method: p.id for p in session.pending.values()}
            await session.cancel(ids["mine"])  # what the In flight tab's c does
            await session.cancel(ids["its"], "re-listening", by_user=False)
    mine, its = failures["mine"], failures["its"]
    assert isinstance(mine, RequestCancelledError) and mine.by_user
    assert isinstance(its, RequestCancelledError) and not its.by_user
    assert session.given_up(ids["mine"]) == CANCELLED_BY_USER
    assert session.given_up(ids["its"]) == CANCELLED


async def wait_pending(session: Session, count: int) -> None:
    with anyio.fail_after(5):
        while len(session.pending) < count:
            await anyio.sleep(0.01)


def _inflight_rows(app: InspectorApp) -> list[str]:
    table = app.query_one("#inflight-table", DataTable)
    return [" ".join(str(c) for c in table.get_row_at(i)) for i in range(table.row_count)]


@pytest.mark.slow
async def test_a_cancelled_call_says_cancelled_by_you(tmp_path: Path) -> None:
    target = demo_target()
    path = tmp_path / "cancel.jsonl"
    recorder = Recorder(path, SessionHeader(target=target_info(target)))
    app = InspectorApp(target, recorder=recorder)
    async with app.run_test(size=SIZE) as pilot:
        await wait_connected(pilot)
        await select_item(pilot, "tools", "slow_count")
        form = app.query_one(ItemPanel).form
        assert form is not None
        form.set_arguments({"seconds": 30, "steps": 30})
        await pilot.press("ctrl+s")
        session = app.controller.session  # type: ignore[union-attr]
        assert session is not None
        await wait_for(
            pilot,
            lambda: any(p.method == "tools/call" and p.progress for p in session.pending.values()),
        )
        call_id = next(p.id for p in session.pending.values() if p.method == "tools/call")
        inflight = app.query_one(InFlightView)
        await pilot.press("escape", "f")  # leave the form, open the In flight tab
        await wait_for(
            pilot, lambda: app.focused is not None and inflight in app.focused.ancestors_with_self
        )
        await pilot.press("c")
        view = app.query_one(ResultView)
        await wait_for(pilot, lambda: view.outcome is not None)
        await wait_for(pilot, lambda: "cancelled by you" in screen_text(app))
        shown = screen_text(app)
        outcome: Any = view.outcome
        rows = _inflight_rows(app)
    recorder.close()
    assert outcome.cancelled and outcome.error is None
    assert "JSON-RPC error" not in shown and "-32001" not in shown
    assert any("slow_count" in r and "cancelled by you" in " ".join(r.split()) for r in rows)
    # the wire: the cancel went out, and no answer (real or made up) came in or was recorded
    events = read_session(path).events
    out = [e.message for e in events if e.direction is Direction.OUT and e.message]
    assert {"requestId": call_id, "reason": "cancelled by the user"} in [
        m.get("params") for m in out if m.get("method") == "notifications/cancelled"
    ]
    answers = [
        e
        for e in events
        if e.direction is Direction.IN
        and isinstance(e.message, dict)
        and jsonrpc.is_response(e.message)
        and e.message.get("id") == call_id
    ]
    assert answers == []
