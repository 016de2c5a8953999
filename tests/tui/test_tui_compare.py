"""The Compare view through the real app: two versions of one server (diff_server.py:
NEW differs from OLD by one case of each rule) in a workspace, their catalogs side by
side with ``mcp-inspect diff``'s classification."""

from __future__ import annotations

import sys

import pytest
from paths import ROOT
from tui_helpers import screen_text, wait_for

from inspector.target import Target
from inspector.tui.app import InspectorApp
from inspector.tui.mode import Live
from inspector.tui.screens.compare import CompareScreen
from inspector.tui.screens.server_list import ServerListScreen
from inspector.workspace.status import State

pytestmark = pytest.mark.slow  # two servers started, every list read

SERVER = str(ROOT / "tests/servers/diff_server.py")


def version(variant: str) -> Target:
    return Target(command=sys.executable, args=[SERVER, variant])


async def test_two_servers_compared_side_by_side_with_the_diff_classification() -> None:
    app = InspectorApp(Live(version("old")), workspace=[("new", version("new"), None)])
    app.views[0].name = app.views[0].status.name = "old"
    async with app.run_test(size=(140, 40)) as pilot:
        await wait_for(
            pilot, lambda: all(v.status.state is State.CONNECTED for v in app.views), timeout=60
        )
        await wait_for(pilot, lambda: bool(app.main.catalog.items.get("prompts")), timeout=30)
        # W, the other server, c: the shown one (old) against it (new)
        await pilot.press("escape", "W")
        await wait_for(pilot, lambda: isinstance(app.screen, ServerListScreen))
        await pilot.press("down", "c")
        await wait_for(pilot, lambda: isinstance(app.screen, CompareScreen))
        screen = app.screen
        assert isinstance(screen, CompareScreen)
        # a catalog still loading is compared again with r until both are complete
        for _ in range(50):
            if screen.comparison.counts == {"breaking": 10, "compatible": 9, "cosmetic": 3}:
                break
            await pilot.pause(0.2)
            await pilot.press("r")
        comparison = screen.comparison
        assert (comparison.old.name, comparison.new.name) == ("old", "new")
        # the same classification as `mcp-inspect diff old new` (test_diff_command)
        assert comparison.counts == {"breaking": 10, "compatible": 9, "cosmetic": 3}
        assert comparison.mark("tools", "legacy") == ("removed", "breaking")
        assert comparison.mark("tools", "search") == ("changed", "breaking")
        text = screen_text(app)
        assert "- legacy" in text and "10 breaking" in text
        assert "item-removed" in text
        # s: the sides swapped, legacy is now an addition
        await pilot.press("s")
        await wait_for(pilot, lambda: screen.comparison.old.name == "new")
        assert screen.comparison.mark("tools", "legacy") == ("added", "compatible")
        await pilot.press("escape")
        await wait_for(pilot, lambda: app.screen is app.view.main)


async def test_compare_asks_for_another_server_than_the_shown() -> None:
    app = InspectorApp(Live(version("old")), workspace=[("new", version("new"), None)])
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("escape", "W")
        await wait_for(pilot, lambda: isinstance(app.screen, ServerListScreen))
        await pilot.press("c")  # the shown server itself
        await wait_for(
            pilot, lambda: any("another server" in str(n.message) for n in app._notifications)
        )
        assert not isinstance(app.screen, CompareScreen)
