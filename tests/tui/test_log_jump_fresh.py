"""A jump to a frame that just came (the log's rows grow at most every GROW_EVERY
seconds) lands on that frame, not on the last row shown before it came: `g` from the call
history, a test's select_index right after a call's answer (a CI run opened the request's
detail instead of the response's)."""

from __future__ import annotations

import pytest
from tui_helpers import select_item, wait_connected, wait_for

from inspector.target import demo_target
from inspector.tui.app import InspectorApp
from inspector.tui.widgets.message_log import MessageLog
from inspector.tui.widgets.result_view import ResultView
from inspector.wire.events import Kind


@pytest.mark.slow
async def test_a_jump_to_a_frame_just_come_lands_on_it(monkeypatch: pytest.MonkeyPatch) -> None:
    # every growth after the first held back for the whole test: the answer's row is in
    # the source but not yet shown when the jump asks for it
    monkeypatch.setattr("inspector.tui.widgets.message_log.GROW_EVERY", 3600.0)
    app = InspectorApp(demo_target())
    async with app.run_test(size=(120, 35)) as pilot:
        await wait_connected(pilot)
        await select_item(pilot, "tools", "echo")
        await pilot.press(*"hi", "ctrl+s")
        view = app.query_one(ResultView)
        await wait_for(pilot, lambda: view.outcome is not None)
        log = app.query_one(MessageLog)
        source = log.source
        answer = max(i for i in range(len(source)) if source.kind(i) is Kind.RESPONSE)
        assert log.shown <= answer  # held back: the rows do not reach the answer yet
        log.select_index(answer)
        assert log.cursor_index == answer
