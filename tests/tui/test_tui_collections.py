"""Collections in the TUI, through the real app and real keys: ``k`` on a result keeps the
call as a collection step (the file asked once) that ``mcp-inspect test`` passes, and ``C``
runs a collection on the live connection, each step's pass or fail shown with the difference."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml
from cli_runner import cli
from textual.widgets import Input, Static
from tui_helpers import (
    interactive_demo_app,
    log_methods,
    select_item,
    wait_connected,
    wait_for,
)

from inspector.tui.app import InspectorApp
from inspector.tui.screens.collections import CollectionsScreen
from inspector.tui.screens.keep_step import KeepStepScreen
from inspector.tui.widgets.item_panel import ItemPanel

SIZE = (150, 45)


def notified(app: InspectorApp, text: str) -> bool:
    return any(text in str(n.message) for n in app._notifications)


async def call_and_focus_result(pilot: Any, app: InspectorApp, tool: str, words: str) -> None:
    await select_item(pilot, "tools", tool)
    view = app.query_one(ItemPanel).result
    before = view.outcome
    await pilot.press(*words)
    await pilot.press("ctrl+s")
    await wait_for(pilot, lambda: view.outcome is not before and view.complete)
    for _ in range(8):
        if app.focused is view:
            break
        await pilot.press("tab")
    assert app.focused is view


@pytest.mark.slow
async def test_k_keeps_calls_as_steps_that_mcp_inspect_test_passes(tmp_path: Path) -> None:
    path = tmp_path / "kept.mcp.yaml"
    app = interactive_demo_app()
    async with app.run_test(size=SIZE) as pilot:
        await wait_connected(pilot)
        await call_and_focus_result(pilot, app, "echo", "hello")
        await pilot.press("k")
        await wait_for(pilot, lambda: isinstance(app.screen, KeepStepScreen))
        field = app.screen.query_one(Input)
        assert field.value.endswith("demo.mcp.yaml")  # next to the session files
        field.value = str(path)
        await pilot.press("enter")
        await wait_for(pilot, lambda: notified(app, "kept as step 1 of"))
        await pilot.press("escape")
        # a second call: no question, the same file
        await call_and_focus_result(pilot, app, "get_weather", "Oslo")
        await pilot.press("k")
        await wait_for(pilot, lambda: notified(app, "kept as step 2 of"))
        assert not isinstance(app.screen, KeepStepScreen)
    data = yaml.safe_load(path.read_text())
    assert data["server"]["command"][1:] == ["-m", "inspector.demo"]
    first, second = data["steps"]
    assert first == {
        "call": "echo",
        "arguments": {"message": "hello", "repeat": 1, "uppercase": False},  # as sent
        "expect": {"isError": False, "snapshot": True},
    }
    assert second["call"] == "get_weather" and second["arguments"]["city"] == "Oslo"
    assert second["expect"]["jsonpath"]["$.structuredContent.city"] == "Oslo"
    golden = tmp_path / "__snapshots__" / "kept.mcp.yaml.json"
    assert "hello" in golden.read_text()
    done = cli("test", str(path))
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.splitlines()[-1].startswith("2 passed, 0 failed")


def shown(screen: CollectionsScreen) -> str:
    """The text of every line of the view (what it was given to show)."""
    texts = (s.content for s in screen.query(Static))
    return "\n".join(t.plain if hasattr(t, "plain") else str(t) for t in texts)


@pytest.mark.slow
async def test_c_runs_a_collection_on_the_live_connection(tmp_path: Path) -> None:
    path = tmp_path / "run.mcp.yaml"
    path.write_text(
        "server: {command: [no-such-server-hc]}  # not used: the app's connection is\n"
        "steps:\n"
        "  - call: add\n    arguments: {a: 1, b: 2}\n    expect: {text: '1 + 2 = 3'}\n"
        "  - call: add\n    arguments: {a: 1, b: 2}\n    expect: {text: '4'}\n"
    )
    bad = tmp_path / "bad.mcp.yaml"
    bad.write_text("steps:\n  - call: add\n    read: x\n")
    app = interactive_demo_app()
    async with app.run_test(size=SIZE) as pilot:
        await wait_connected(pilot)
        await pilot.press("C")
        await wait_for(pilot, lambda: isinstance(app.screen, CollectionsScreen))
        screen = app.screen
        assert isinstance(screen, CollectionsScreen)
        field = screen.query_one(Input)
        field.value = str(bad)
        await pilot.press("enter")
        await wait_for(pilot, lambda: f"{bad}:2: steps[0]: a step has exactly one" in shown(screen))
        field.value = str(path)
        await pilot.press("enter")
        await wait_for(pilot, lambda: "1 passed, 1 failed: run.mcp.yaml" in shown(screen))
        text = shown(screen)
        assert "✓ PASS  call add" in text and "✗ FAIL  call add" in text
        assert 'text: expected "4", got "1 + 2 = 3"' in text
        # on the wire, in the log: each call a request and its response
        assert log_methods(app).count("tools/call") == 4
        await pilot.press("escape")
        await wait_for(pilot, lambda: not isinstance(app.screen, CollectionsScreen))
