"""One recording per workspace session: every server's frames in one session file, each
tagged with its server, the header naming the servers (as the command line makes it);
``replay`` of it opens the same workspace offline (each server's view, the merged log)."""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path
from typing import Any

import pytest
from paths import ROOT
from tui_helpers import wait_for

from inspector.commands import build_parser
from inspector.commands.workspace import workspace_recorder
from inspector.record.indexed import IndexedSessionFile
from inspector.target import Target, demo_target
from inspector.tui.app import InspectorApp
from inspector.tui.launch import replay_app
from inspector.tui.mode import Live
from inspector.tui.screens.all_log import AllLogScreen
from inspector.tui.screens.server_list import ServerListScreen
from inspector.tui.widgets.message_log import MessageLog
from inspector.workspace.entries import Entry
from inspector.workspace.recording import server_of
from inspector.workspace.status import State

SDK_STDIO = str(ROOT / "tests/servers/sdk_stdio_server.py")


def written_files(folder: Path) -> list[tuple[Path, int]]:
    return sorted((p, p.stat().st_size) for p in folder.rglob("*") if p.is_file())


def tools(app: InspectorApp) -> list[str]:
    return [t["name"] for t in app.main.catalog.items.get("tools", [])]


async def record(path: Path) -> None:
    """The demo and an SDK server recorded as ``mcp-inspect --config`` records them."""
    servers = [
        Entry("demo", demo_target()),
        Entry("sdk", Target(command=sys.executable, args=[SDK_STDIO])),
    ]
    opts = build_parser(subcommands=False).parse_args(["--record", str(path)])
    recorder = workspace_recorder(opts, servers)
    assert recorder is not None
    app = InspectorApp(
        Live(servers[0].target),
        recorder=recorder,
        workspace=[(e.name, e.target, recorder) for e in servers[1:]],
    )
    try:
        async with app.run_test(size=(120, 35)) as pilot:
            await wait_for(
                pilot,
                lambda: all(v.status.state is State.CONNECTED for v in app.views),
                timeout=60,
            )
            await wait_for(pilot, lambda: "echo" in tools(app))
            await pilot.press("q")
            await wait_for(pilot, lambda: not app.is_running, timeout=30)
    finally:
        recorder.close()


@pytest.mark.slow
async def test_a_workspace_session_is_one_file_replayed_as_the_same_workspace(
    tmp_path: Path,
) -> None:
    path = tmp_path / "workspace.jsonl"
    await record(path)
    lines = path.read_bytes().splitlines()[1:]
    assert {server_of(line) for line in lines} == {"demo", "sdk"}  # every frame tagged

    source = IndexedSessionFile(path)
    written = written_files(tmp_path)
    app, opened = replay_app(source, "workspace.jsonl")
    try:
        async with app.run_test(size=(120, 35)) as pilot:
            assert [v.name for v in app.views] == ["demo", "sdk"]
            # each server reads its own frames from the one file: no copy anywhere
            assert [part.path for part in opened] == [path, path]
            assert written_files(tmp_path) == written
            assert not list(Path(tempfile.gettempdir()).glob("mcp-inspect-workspace-*"))
            await wait_for(pilot, lambda: "echo" in tools(app))
            # W: both servers, recorded; Enter on the second shows its own catalog
            await pilot.press("escape", "W")
            await wait_for(pilot, lambda: isinstance(app.screen, ServerListScreen))
            rows: Any = app.screen
            assert [r.row()[3] for r in rows.rows] == ["recorded", "recorded"]
            await pilot.press("down", "enter")
            await wait_for(pilot, lambda: app.view is app.views[1] and "add" in tools(app))
            assert "echo" not in tools(app)
            # the merged log: the whole file, a server column
            await pilot.press("escape", "W", "a")
            await wait_for(pilot, lambda: isinstance(app.screen, AllLogScreen))
            log = app.screen.query_one(MessageLog)
            assert log.source is source
            await wait_for(pilot, lambda: log.shown == len(source) > 0)
    finally:
        for part in opened:
            part.close()
        source.close()
