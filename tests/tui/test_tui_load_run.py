"""ctrl+l in a tool's form: a short load run on its own sessions, shown in the Load tab.

Through the real app on the demo server, with real keys: the form filled, ctrl+l, the
dialog answered; the Load tab's numbers, the log's sampled frames, x to stop early.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import anyio
import pytest
from textual.pilot import Pilot
from tui_helpers import select_item, wait_connected, wait_for

from inspector.target import Target, demo_target
from inspector.tui.app import InspectorApp
from inspector.tui.screens.load_dialog import LoadDialog
from inspector.tui.widgets.load_view import LoadView
from inspector.wire.events import Channel, party


def demo_app() -> InspectorApp:
    return InspectorApp(demo_target())


async def fill_and_load(
    pilot: Pilot[Any], tool: str, values: list[str], answers: list[str]
) -> LoadView:
    """Open ``tool``, type ``values`` into its fields, press ctrl+l and answer the dialog:
    ``answers`` are typed into its fields in turn (an empty one leaves the default)."""
    app = pilot.app
    await select_item(pilot, "tools", tool)
    for n, value in enumerate(values):
        if n:
            await pilot.press("tab")
        await pilot.press(*value)
    await pilot.press("ctrl+l")
    await wait_for(pilot, lambda: isinstance(app.screen, LoadDialog))
    for n, answer in enumerate(answers):
        if n:
            await pilot.press("tab")
        if answer:
            await pilot.press("ctrl+u", *answer)  # ctrl+u: clear the field first
    await pilot.press("enter")
    await wait_for(pilot, lambda: bool(app.query(LoadView)))
    return app.query_one(LoadView)


def load_frames(app: InspectorApp) -> list[int]:
    """Indexes of the log's frames that came from the load run's sessions."""
    source = app.state.events
    return [i for i in range(len(source)) if (party(source.event(i).meta) or "").startswith("user")]


@pytest.mark.slow
async def test_a_load_run_of_add_counts_every_call_and_keeps_the_log_small() -> None:
    app = demo_app()
    async with app.run_test(size=(140, 44)) as pilot:
        await wait_connected(pilot)
        live = app.controller.session if app.controller else None
        before = len(app.state.events)
        # 2 sessions, no duration (cleared), 50 requests
        view = await fill_and_load(pilot, "add", ["2", "40"], ["2", "", "50"])
        await wait_for(pilot, lambda: view.text.splitlines()[1:2] == ["done"], timeout=60)
        assert "calls      50 in" in view.text and "failed 0 " in view.text, view.text
        assert view.text.startswith("tools/call add: 2 sessions, closed model, 50 calls\ndone")
        assert app.query_one("#bottom-tabs").active == "tab-load"  # type: ignore[attr-defined]
        # the live session was left alone: the same one, and none of its requests
        assert app.controller is not None and app.controller.session is live
        assert app.controller.connected
        # the log: the two sessions' openings, and 1 in 100 of the 50 successes (none)
        await pilot.pause(0.2)
        source = app.state.events
        calls = [i for i in load_frames(app) if source.method(i) == "tools/call"]
        assert calls == []
        assert {party(source.event(i).meta) for i in load_frames(app)} == {"user 1", "user 2"}
        # each session's opening, and the server's stderr: the first 20 lines, then 1 in 100
        wire = [i for i in range(before, len(source)) if source.channel(i) is not Channel.STDERR]
        assert len(wire) < 30
        stderr = [i for i in load_frames(app) if source.channel(i) is Channel.STDERR]
        assert 0 < len(stderr) <= 21
        seqs = [source.seq(i) for i in range(len(source))]
        assert seqs == sorted(seqs) and len(set(seqs)) == len(seqs)  # one numbering


@pytest.mark.slow
async def test_tool_errors_under_load_are_counted_by_kind_and_kept_in_the_log() -> None:
    app = demo_app()
    async with app.run_test(size=(140, 44)) as pilot:
        await wait_connected(pilot)
        # divide by zero: an isError result each time
        view = await fill_and_load(pilot, "divide", ["1", "0"], ["1", "", "20"])
        await wait_for(pilot, lambda: view.text.splitlines()[1:2] == ["done"], timeout=60)
        assert "calls      20 in" in view.text and "failed 20 " in view.text, view.text
        assert "      20  tool_error:" in view.text
        await pilot.pause(0.2)
        source = app.state.events
        calls = [i for i in load_frames(app) if source.method(i) == "tools/call"]
        sent = [i for i in calls if source.channel(i) is Channel.STDIN]
        assert len(sent) == 20 and len(calls) == 40  # every failed call is kept, answer too


@pytest.mark.slow
async def test_x_in_the_load_tab_stops_the_run_with_a_report() -> None:
    app = demo_app()
    async with app.run_test(size=(140, 44)) as pilot:
        await wait_connected(pilot)
        view = await fill_and_load(pilot, "add", ["1", "2"], ["2", "60s"])
        await wait_for(pilot, lambda: "running" in view.text and "calls 0 " not in view.text)
        assert view.has_focus
        await pilot.press("x")
        await wait_for(pilot, lambda: view.text.splitlines()[1:2] == ["stopped by you"])
        assert "failed 0 " in view.text and "calls      0 in" not in view.text, view.text
        assert not app.load_runs.running


@pytest.mark.slow
async def test_the_dialog_says_what_a_bad_field_takes() -> None:
    app = demo_app()
    async with app.run_test(size=(140, 44)) as pilot:
        await wait_connected(pilot)
        await select_item(pilot, "tools", "add")
        await pilot.press("ctrl+l")
        await wait_for(pilot, lambda: isinstance(app.screen, LoadDialog))
        dialog = app.screen
        assert isinstance(dialog, LoadDialog)
        await pilot.press("ctrl+u", "0", "enter")
        assert "sessions in parallel: a whole number of at least 1" in dialog.problem
        await pilot.press("escape")
        await wait_for(pilot, lambda: not isinstance(app.screen, LoadDialog))
        assert not app.query(LoadView)  # no run, no tab


def demo_children() -> list[int]:
    """The demo servers this process started: its children, or those the lifeline
    watchdog (its child) started for it."""
    parents: dict[int, int] = {}
    demos = set()
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            stat = Path(f"/proc/{pid}/stat").read_text()
            cmdline = Path(f"/proc/{pid}/cmdline").read_bytes()
        except OSError:
            continue
        parents[int(pid)] = int(stat.rsplit(")", 1)[1].split()[1])
        if b"inspector.demo" in cmdline:
            demos.add(int(pid))
    ours = {os.getpid()} | {pid for pid, parent in parents.items() if parent == os.getpid()}
    return sorted(pid for pid in demos if parents[pid] in ours)


@pytest.mark.slow
async def test_quitting_during_a_run_leaves_no_server_process() -> None:
    app = demo_app()
    async with app.run_test(size=(140, 44)) as pilot:
        await wait_connected(pilot)
        view = await fill_and_load(pilot, "add", ["1", "2"], ["3", "60s"])
        await wait_for(pilot, lambda: "running" in view.text)
        assert len(demo_children()) == 4  # the live session's server and the run's 3
        await pilot.press("ctrl+q")
        await wait_for(pilot, lambda: app.return_code is not None)
    with anyio.fail_after(15):
        while demo_children():
            await anyio.sleep(0.1)


@pytest.mark.slow
async def test_an_open_model_run_over_streamable_http_with_the_official_sdk(
    sdk_sse_base: str,
) -> None:
    base = sdk_sse_base  # the worker's shared server (conftest)
    app = InspectorApp(Target(url=base + "/mcp"))
    async with app.run_test(size=(140, 44)) as pilot:
        await wait_for(
            pilot,
            lambda: app.controller is not None and app.controller.connected,
            timeout=30,
        )
        await wait_for(pilot, lambda: bool(app.state.catalog.get("tools")), timeout=30)
        view = await fill_and_load(pilot, "add", ["2", "40"], ["2", "", "30", "100"])
        await wait_for(pilot, lambda: view.text.splitlines()[1:2] == ["done"], timeout=60)
        assert view.text.startswith(
            "tools/call add: 2 sessions, 100 calls/s (open model), 30 calls\ndone"
        )
        assert "calls      30 in" in view.text and "failed 0 " in view.text, view.text
        assert "schedule   " in view.text  # the open model's line of the report
        # the run's HTTP exchanges are the load sessions', not the live one's
        assert app.controller is not None and app.controller.connected


@pytest.mark.slow
async def test_ctrl_l_with_no_tool_open_says_what_it_needs() -> None:
    app = demo_app()
    async with app.run_test(size=(140, 44)) as pilot:
        await wait_connected(pilot)
        await select_item(pilot, "prompts", app.state.catalog["prompts"][0]["name"])
        await pilot.press("ctrl+l")
        await pilot.pause(0.2)
        assert not isinstance(app.screen, LoadDialog)
        assert any("open a tool first" in str(n.message) for n in app._notifications)
