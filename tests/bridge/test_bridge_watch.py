"""A person watches an agent's connection: ``mcp-inspect attach`` (the real TUI) on the
bridge's attach socket shows the wire so far, then each frame live; it cannot drive."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import anyio
import pytest
from proxy_support import runtime_folder
from test_bridge import DEMO_LINE, bridge, call
from tui_helpers import wait_for

from inspector.proxy.attach import live_proxies, pick_proxy
from inspector.target import Target
from inspector.tui.app import InspectorApp
from inspector.tui.widgets.message_log import MessageLog

pytestmark = pytest.mark.slow


@pytest.fixture
def runtime() -> Iterator[Path]:
    with runtime_folder() as folder:
        yield folder


def log_rows(app: InspectorApp) -> list[str]:
    log = app.query_one(MessageLog)
    return [log.lines.summary(i).text for i in range(len(log.source))]


async def test_attach_shows_a_bridge_connection_live_in_the_tui(runtime: Path) -> None:
    async with bridge() as agent:
        opened = await call(agent, "connect", target=DEMO_LINE)
        c = opened["connection"]
        name = opened["watch"].removeprefix("mcp-inspect attach ")
        await call(agent, "call", connection=c, tool="add", arguments={"a": 2, "b": 3})
        info = pick_proxy(await live_proxies(), name)  # as `mcp-inspect attach NAME` finds it
        assert info.front.startswith("mcp-inspect mcp") and info.record == opened["recording"]
        listed = "dir:out method:tools/list"
        before = (await call(agent, "log", connection=c, filter=listed))["total"]
        app = InspectorApp(Target(attach=str(info.path), name=name, transport="proxy"))
        async with app.run_test(size=(150, 45)) as pilot:
            await wait_for(pilot, lambda: app.controller is not None and app.controller.connected)
            # the past: the agent's call before the attach
            await wait_for(pilot, lambda: any("2 + 3 = 5" in r for r in log_rows(app)))
            # live: the agent's next call
            await call(agent, "call", connection=c, tool="echo", arguments={"message": "live!"})
            await wait_for(pilot, lambda: any("live!" in r for r in log_rows(app)))
        # the TUI's own requests were refused, never sent to the agent's server
        after = (await call(agent, "log", connection=c, filter=listed))["total"]
        assert after == before  # none of the TUI's requests reached the server
        with anyio.fail_after(20):
            again = await call(agent, "call", connection=c, tool="add", arguments={"a": 1, "b": 1})
        assert again["result"]["content"][0]["text"] == "1 + 1 = 2"
        await call(agent, "disconnect", connection=c)
        assert not [p for p in await live_proxies() if p.name == name]  # the socket is gone
