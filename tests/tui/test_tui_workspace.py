"""A workspace through the real app: the demo, an official-SDK stdio server, an
official-SDK Streamable HTTP server and a failing one, each connecting in parallel on
its own screen; the server list switches between them (catalogs and forms kept), ctrl+n
adds one, and removing one stops its process."""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from typing import Any

import pytest
from paths import ROOT
from servers.http_support import sdk_server
from textual.pilot import Pilot
from tui_helpers import wait_for

from inspector.target import Target, demo_target
from inspector.tui.app import InspectorApp
from inspector.tui.mode import Live
from inspector.tui.screens.server_list import ServerListScreen
from inspector.tui.widgets.item_panel import ItemPanel
from inspector.workspace.status import State

SDK_STDIO = str(ROOT / "tests/servers/sdk_stdio_server.py")


@pytest.fixture(scope="module")
def sdk_http() -> Iterator[str]:
    with sdk_server("sse") as base:
        yield base + "/mcp"


def workspace_app(url: str) -> InspectorApp:
    return InspectorApp(
        Live(demo_target()),
        workspace=[
            ("sdk-stdio", Target(command=sys.executable, args=[SDK_STDIO]), None),
            ("sdk-http", Target(url=url), None),
            (
                "broken",
                Target(command=sys.executable, args=["-c", "import sys; sys.exit(3)"]),
                None,
            ),
        ],
    )


def tools(app: InspectorApp) -> list[str]:
    return [t["name"] for t in app.main.catalog.items["tools"]]


async def choose(pilot: Pilot[Any], row: int) -> None:
    """W, the cursor to ``row``, Enter: that server shown."""
    app = pilot.app
    assert isinstance(app, InspectorApp)
    await pilot.press("escape", "W")
    await wait_for(pilot, lambda: isinstance(app.screen, ServerListScreen))
    await pilot.press(*["up"] * 6, *["down"] * row, "enter")
    await wait_for(pilot, lambda: app.view is app.views[row] and app.screen is app.view.main)


def states(app: InspectorApp) -> dict[str, State]:
    return {view.name: view.status.state for view in app.views}


async def test_a_workspace_connects_every_server_and_keeps_each_ones_view(sdk_http: str) -> None:
    app = workspace_app(sdk_http)
    async with app.run_test(size=(120, 35)) as pilot:
        await wait_for(
            pilot,
            lambda: (
                states(app)
                == {
                    "demo": State.CONNECTED,
                    "sdk-stdio": State.CONNECTED,
                    "sdk-http": State.CONNECTED,
                    "broken": State.FAILED,
                }
            ),
            timeout=60,
        )
        broken = app.views[3].status
        assert broken.row()[3].startswith("failed: ")  # with the reason
        assert app.views[1].status.era and app.views[2].status.transport == "auto"
        assert app.view is app.views[0] and "echo" in tools(app)
        # the demo's form opened, then another server shown: its own catalog
        await pilot.press("escape", "1", "enter")
        demo_item = app.main.item_panel.item
        assert demo_item is not None
        await choose(pilot, 1)
        await wait_for(pilot, lambda: "add" in tools(app))
        assert "echo" not in tools(app)
        await choose(pilot, 2)
        await wait_for(pilot, lambda: "add" in tools(app))
        # back: the demo's catalog and open form as they were
        await choose(pilot, 0)
        assert "echo" in tools(app)
        assert app.main.query_one(ItemPanel).item is demo_item
        # the list says each server's name, transport, era and state
        await pilot.press("escape", "W")
        await wait_for(pilot, lambda: isinstance(app.screen, ServerListScreen))
        text = " ".join(" ".join(s.row()) for s in app.screen.rows)  # type: ignore[attr-defined]
        assert "sdk-http" in text and "failed: " in text and "stdio" in text
        await pilot.press("escape")
        await pilot.press("q")
        await wait_for(pilot, lambda: not app.is_running, timeout=30)


async def test_ctrl_n_adds_a_server_and_removing_it_stops_its_process() -> None:
    app = InspectorApp(Live(demo_target()))
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for(pilot, lambda: app.views[0].status.state is State.CONNECTED, timeout=30)
        await pilot.press("escape", "ctrl+n")
        await pilot.press(*f"{sys.executable} {SDK_STDIO}", "enter")
        await wait_for(pilot, lambda: len(app.views) == 2 and app.view is app.views[1])
        added = app.views[1]
        assert added.name == "sdk_stdio_server"
        await wait_for(pilot, lambda: added.status.state is State.CONNECTED, timeout=30)
        await wait_for(pilot, lambda: "add" in tools(app))
        session = added.server.session
        assert session is not None
        pid = session.transport.process.pid  # type: ignore[attr-defined]
        os.kill(pid, 0)  # running
        await choose(pilot, 1)
        await pilot.press("escape", "W")
        await wait_for(pilot, lambda: isinstance(app.screen, ServerListScreen))
        await pilot.press("up", "up", "down", "x")
        await wait_for(pilot, lambda: len(app.views) == 1 and app.view is app.views[0])
        with pytest.raises(ProcessLookupError):
            os.kill(pid, 0)
        assert "echo" in tools(app)
        # bad input: a clear message, nothing added
        await pilot.press("escape", "ctrl+n", *"https://h/mcp extra", "enter")
        await wait_for(
            pilot, lambda: any("no further words" in str(n.message) for n in app._notifications)
        )
        assert len(app.views) == 1
