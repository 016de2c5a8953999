"""The result view's footer offers ``s`` (save) and ``c`` (copy) when a result is shown,
and ``o`` (open link) only when the result has a link to open."""

from __future__ import annotations

from typing import Any

import pytest
from textual.widgets import TabbedContent
from tui_helpers import (
    footer_keys,
    interactive_demo_app,
    select_item,
    view_text,
    wait_connected,
    wait_for,
)

from inspector.tui.app import InspectorApp
from inspector.tui.widgets.item_panel import ItemPanel
from inspector.tui.widgets.result_view import ResultView

SIZE = (150, 45)


def notified(app: InspectorApp, text: str) -> bool:
    return any(text in str(n.message) for n in app._notifications)


async def call_and_focus_result(pilot: Any, app: InspectorApp, tool: str, words: str) -> None:
    """Select ``tool``, type ``words`` in its first field, ctrl+s, then Tab to the result
    as a user does."""
    await select_item(pilot, "tools", tool)
    view = app.query_one(ItemPanel).result
    if words:
        await pilot.press(*words)
    await pilot.press("ctrl+s")
    await wait_for(pilot, lambda: view.outcome is not None and view.complete)
    for _ in range(8):
        if app.focused is view:
            break
        await pilot.press("tab")
    assert app.focused is view
    await pilot.pause()


@pytest.mark.slow
async def test_result_footer_offers_save_and_open_only_when_they_do_something() -> None:
    app = interactive_demo_app()
    async with app.run_test(size=SIZE) as pilot:
        await wait_connected(pilot)
        # echo: text only - saved or copied (test_result_save), no link to open
        await call_and_focus_result(pilot, app, "echo", "hello")
        view = app.query_one(ResultView)
        assert "hello" in view_text(view)
        shown = footer_keys(app)
        assert "q Quit" in shown
        assert "s Save" in shown and "c Copy" in shown and "o Open link" not in shown
        # pressed anyway: a notice, and the focus stays (o is not the app's Server log)
        bottom = app.query_one("#bottom-tabs", TabbedContent)
        before = bottom.active
        await pilot.press("o")
        await wait_for(pilot, lambda: notified(app, "no resource link"))
        assert bottom.active == before and app.focused is view
        # show_media: an image, audio, a resource link and a blob - both keys work
        await pilot.press("escape")
        await call_and_focus_result(pilot, app, "show_media", "")
        shown = footer_keys(app)
        assert "s Save" in shown and "o Open link" in shown
