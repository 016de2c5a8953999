"""The roots editor, driven by real servers over stdio (Pilot)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import anyio
import pytest
from textual.widgets import OptionList, Static
from tui_helpers import wait_for

from inspector.engine.client import McpClient
from inspector.tui.interactive import InteractiveResponders
from inspector.tui.screens.roots import RootsEditor, RootsScreen, root_for
from inspector.wire.events import WireEvent
from tests.everything import HostApp, demo_session, everything_session, shown_text, wait_for_screen

SHOTS = os.environ.get("INSPECT_SHOTS")


def _text(result: dict[str, Any]) -> str:
    return "\n".join(b.get("text", "") for b in result.get("content", []))


def _methods(events: list[WireEvent], direction: str) -> list[str]:
    return [
        str(e.message.get("method"))
        for e in events
        if e.direction.name == direction and isinstance(e.message, dict) and "method" in e.message
    ]


@pytest.mark.slow
async def test_demo_roots_editor_adds_removes_and_notifies(tmp_path: Path) -> None:
    (tmp_path / "project").mkdir()
    app = HostApp()
    async with app.run_test(size=(110, 30)) as pilot:
        bridge = InteractiveResponders(app, roots=[tmp_path / "project"])
        events: list[WireEvent] = []
        async with demo_session(bridge.responders()) as session:
            session.add_observer(events.append)
            bridge.attach(session)
            client = McpClient(session)
            before = _text(await client.call_tool("list_roots"))
            assert (tmp_path / "project").as_uri() in before
            app.push_screen(bridge.roots_screen())
            screen = await wait_for_screen(pilot, RootsScreen)
            await pilot.press(*str(tmp_path / "docs"))
            await pilot.press("tab", *"My docs", "enter")
            await wait_for(
                pilot, lambda: "notifications/roots/list_changed" in _methods(events, "OUT")
            )
            status = shown_text(screen.query_one("#roots-status", Static))
            assert "list_changed sent" in status
            options = screen.query_one("#roots-list", OptionList)
            assert options.option_count == 2
            assert "not found on this machine" in str(options.get_option_at_index(1).prompt)
            if SHOTS:
                app.save_screenshot(filename="roots.svg", path=SHOTS)
            after = _text(await client.call_tool("list_roots"))
            assert (tmp_path / "docs").as_uri() + " (My docs)" in after
            # the demo logs that it heard list_changed
            await wait_for(
                pilot,
                lambda: any(b"roots changed" in e.raw for e in events if e.direction.name == "IN"),
            )
            # remove the first root with the delete key
            options.focus()
            options.highlighted = 0
            await pilot.press("delete")
            await pilot.pause()
            assert _methods(events, "OUT").count("notifications/roots/list_changed") == 2
            final = _text(await client.call_tool("list_roots"))
            assert (tmp_path / "project").as_uri() not in final
            assert (tmp_path / "docs").as_uri() in final
            await pilot.press("escape")
            await wait_for(pilot, lambda: not isinstance(app.screen, RootsScreen))


@pytest.mark.slow
async def test_everything_refetches_roots_after_list_changed(tmp_path: Path) -> None:
    app = HostApp()
    async with app.run_test(size=(110, 30)) as pilot:
        bridge = InteractiveResponders(app, roots=[tmp_path])
        events: list[WireEvent] = []
        async with everything_session(bridge.responders()) as session:
            session.add_observer(events.append)
            bridge.attach(session)
            client = McpClient(session)
            with anyio.fail_after(10):
                while "get-roots-list" not in {t["name"] for t in await client.list_tools()}:
                    await anyio.sleep(0.1)
            await wait_for(pilot, lambda: "roots/list" in _methods(events, "IN"))
            first = _text(await client.call_tool("get-roots-list"))
            assert "Current MCP Roots (1 total)" in first and tmp_path.as_uri() in first
            app.push_screen(bridge.roots_screen())
            screen = await wait_for_screen(pilot, RootsScreen)
            editor = screen.query_one(RootsEditor)
            assert await editor.add_root(tmp_path.as_uri() + "/sub", "by uri")
            await wait_for(pilot, lambda: _methods(events, "IN").count("roots/list") >= 2)
            second = _text(await client.call_tool("get-roots-list"))
    assert "Current MCP Roots (2 total)" in second and "by uri" in second


class RootsHost(HostApp):
    def __init__(self) -> None:
        super().__init__()
        self.changes: list[list[dict[str, Any]]] = []

    def on_roots_editor_changed(self, message: RootsEditor.Changed) -> None:
        self.changes.append(message.roots)


async def test_editor_without_a_connection_keeps_the_change_and_says_so(tmp_path: Path) -> None:
    app = RootsHost()
    async with app.run_test(size=(110, 30)) as pilot:
        bridge = InteractiveResponders(app)
        editor = RootsEditor(bridge.roots, on_change=bridge.roots_changed)
        await app.mount(editor)
        await pilot.pause()
        assert not await editor.add_root("   ")
        assert await editor.add_root(str(tmp_path))
        status = shown_text(editor.query_one("#roots-status", Static))
        assert "list_changed not sent: not connected" in status
        assert not await editor.add_root(str(tmp_path))  # already there
        assert "already a root" in shown_text(editor.query_one("#roots-status", Static))
        assert [r["uri"] for r in bridge.roots.roots] == [tmp_path.as_uri()]
        assert await bridge.roots({}) == {"roots": bridge.roots.roots}
        await pilot.pause()
        assert app.changes == [[{"uri": tmp_path.as_uri(), "name": tmp_path.name}]]


def test_root_for_paths_and_uris(tmp_path: Path) -> None:
    assert root_for(str(tmp_path)) == {"uri": tmp_path.as_uri(), "name": tmp_path.name}
    assert root_for("file:///srv/data%20set", "Data")["uri"] == "file:///srv/data%20set"
    assert root_for("file:///srv/data%20set")["name"] == "data set"
    assert root_for("relative/dir")["uri"].startswith("file:///")
