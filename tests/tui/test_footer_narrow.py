"""The footer on a narrow terminal keeps Help and Quit in view."""

from __future__ import annotations

import pytest
from textual.widgets._footer import FooterKey
from tui_helpers import wait_connected, wait_for

from inspector.target import demo_target
from inspector.tui.app import InspectorApp
from inspector.tui.widgets.key_footer import KeyFooter


def shown_actions(app: InspectorApp) -> list[str]:
    """The footer's keys a user sees: inside the screen's width, left to right."""
    keys = sorted(
        (k for k in app.query_one(KeyFooter).query(FooterKey) if k.action != "command_palette"),
        key=lambda k: k.region.x,
    )
    width = app.size.width
    return [k.action for k in keys if k.region.width and k.region.right <= width]


@pytest.mark.slow
async def test_help_and_quit_stay_in_view_at_80_columns_and_after_a_resize() -> None:
    app = InspectorApp(demo_target())
    async with app.run_test(size=(140, 40)) as pilot:
        await wait_connected(pilot)
        # at the end, where they fit (once the footer is laid out: on a busy machine it
        # can still be empty right after connecting)
        await wait_for(pilot, lambda: shown_actions(app)[-2:] == ["help", "quit_or_ask"])
        await pilot.resize_terminal(80, 24)
        await wait_for(pilot, lambda: shown_actions(app)[:2] == ["help", "quit_or_ask"])
        await pilot.resize_terminal(140, 40)
        await wait_for(pilot, lambda: shown_actions(app)[-2:] == ["help", "quit_or_ask"])
