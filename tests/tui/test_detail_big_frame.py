"""The detail of a big frame (issue 25 item 9) does not keep its parsed message once
shown (the result pane holds the result already; a big structured one is over 3x its
size as a tree), only its envelope: ``r`` shows the raw bytes, then parses it again to
show the JSON; ``s`` still names it ``.json``."""

from __future__ import annotations

import pytest
from textual.widgets import Input
from tui_helpers import call_tool, wait_connected, wait_for

from inspector.target import demo_target
from inspector.tui.app import InspectorApp
from inspector.tui.widgets.document_view import THREAD_BYTES
from inspector.tui.widgets.message_detail import MessageDetail
from inspector.tui.widgets.message_log import MessageLog
from inspector.wire.events import Kind


@pytest.mark.slow
async def test_the_detail_of_a_big_frame_lets_its_tree_go() -> None:
    app = InspectorApp(demo_target())
    async with app.run_test(size=(140, 40)) as pilot:
        await wait_connected(pilot)
        view = await call_tool(pilot, "lorem", {"lines": 5000})
        await wait_for(pilot, lambda: view.outcome is not None and view.complete, 30)
        log = app.query_one(MessageLog)
        source = log.source
        response = next(
            i
            for i in range(len(source))
            if source.kind(i) is Kind.RESPONSE and source.stored_size(i) > THREAD_BYTES
        )
        await pilot.press("g")
        await wait_for(pilot, lambda: log.lines.has_focus)
        log.select_index(response)
        await pilot.press("enter")
        detail = app.query_one(MessageDetail)
        await wait_for(pilot, lambda: detail.event is not None and detail.index == response, 30)
        assert detail.event is not None and detail.slim
        assert detail.event.message == {"jsonrpc": "2.0", "id": detail.event.msg_id, "result": None}
        for _ in range(12):  # Tab to the detail, as a user does
            if detail.view.has_focus:
                break
            await pilot.press("tab")
        assert detail.view.has_focus
        # v: the raw bytes, then the pretty JSON again (parsed again, not kept)
        await pilot.press("v")
        await wait_for(pilot, lambda: detail.raw_mode, 30)
        await pilot.press("v")
        await wait_for(pilot, lambda: not detail.raw_mode, 30)
        assert detail.event is not None and detail.slim
        assert detail.event.message is not None and detail.event.message["result"] is None
        await pilot.press("s")
        box = detail.query_one("#detail-save", Input)
        await wait_for(pilot, lambda: box.has_focus)
        assert box.value.endswith(".json")
