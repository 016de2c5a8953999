"""The status bar: no double gap for an empty serverInfo.version, the session file's
path shortened to the room left (never cut off) at 140 and 90 columns, and the least
needed facts dropped first on a narrow bar."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from cli_runner import cli
from paths import ROOT
from rich.cells import cell_len
from tui_helpers import screen_text, wait_connected, wait_for

from inspector.commands.options import default_session_path
from inspector.record.format import SessionHeader
from inspector.record.indexed import IndexedSessionFile
from inspector.record.recorder import Recorder
from inspector.target import Target, demo_target, target_info
from inspector.tui.app import InspectorApp
from inspector.tui.widgets.status_bar import server_label, short_path

SDK_SERVER = Target(
    command=sys.executable,
    args=[str(ROOT / "tests/servers/sdk_stdio_server.py")],
    transport="stdio",
)  # the official SDK's MCPServer says version "" unless told otherwise


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A home folder of our own, so sessions go to its ~/.local/state/... by default."""
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.delenv("XDG_STATE_HOME", raising=False)
    return tmp_path


def test_server_label_leaves_no_gap_for_a_missing_version() -> None:
    assert server_label({"name": "sdk-test-server", "version": ""}) == "sdk-test-server"
    assert server_label({"name": "s"}) == "s"
    assert server_label({"name": "s", "title": "Nice", "version": " 1.2 "}) == "Nice 1.2"
    assert server_label("not an object") == "?"


def test_short_path_keeps_the_file_name_and_fits(home: Path) -> None:
    path = str(home / ".local/state/mcp-inspect/sessions/20261122-101500-demo.jsonl")
    assert short_path(path, 200) == "~/.local/state/mcp-inspect/sessions/20261122-101500-demo.jsonl"
    assert short_path(path, 45) == "~/…/sessions/20261122-101500-demo.jsonl"
    assert short_path(path, 30) == "~/…/20261122-101500-demo.jsonl"
    assert short_path(path, 20) == "2026112…0-demo.jsonl"
    for width in range(0, 70):
        shown = short_path(path, width)
        assert cell_len(shown) <= width, (width, shown)
        if width >= 10:  # the end of the name (the server's, the extension) stays longest
            kept = (width - 1) * 2 // 3
            assert shown.endswith("demo.jsonl"[-kept:]), (width, shown)
    assert short_path("/tmp/漢字漢字漢字漢字/s.jsonl", 12) == "/…/s.jsonl"
    for width in range(0, 30):  # wide characters are counted in cells
        assert cell_len(short_path("/x/漢字漢字漢字漢字漢字.jsonl", width)) <= width


async def status_line(
    target: Target, width: int, home: Path, protocol_version: str | None = None
) -> tuple[str, Path]:
    """The first screen line once connected, recording to the default session path."""
    path = default_session_path(target)
    path.parent.mkdir(parents=True)
    recorder = Recorder(path, SessionHeader(target=target_info(target)))
    app = InspectorApp(target, recorder=recorder, protocol_version=protocol_version)
    try:
        async with app.run_test(size=(width, 30)) as pilot:
            await wait_connected(pilot)
            await wait_for(  # the catalog loaded: nothing in flight
                pilot,
                lambda: (
                    " ev" in (top := screen_text(app).splitlines()[0]) and "in flight" not in top
                ),
            )
            line = screen_text(app).splitlines()[0].rstrip()
    finally:
        recorder.close()
    assert path.is_relative_to(home)
    return line, path


@pytest.mark.slow
@pytest.mark.parametrize("width", [140, 90])
async def test_an_empty_version_leaves_no_double_gap(width: int, home: Path) -> None:
    # the handshake era pinned (the SDK speaks both): the line this test measures
    line, path = await status_line(SDK_SERVER, width, home, "2025-11-25")
    assert "   " not in line, line  # every part two spaces apart
    if width == 140:
        assert "● connected  sdk-test-server  stdio  protocol" in line, line
        assert line.endswith(path.name), line
    else:
        kept = line.rsplit("…", 1)[-1]  # the file's name elided in the middle, its end kept
        assert "…" in line and len(kept) > 8 and path.name.endswith(kept), line


@pytest.mark.slow
@pytest.mark.parametrize("width", [140, 90])
async def test_the_session_file_is_shortened_not_cut_off(width: int, home: Path) -> None:
    line, path = await status_line(demo_target(), width, home)
    assert cell_len(line) <= width
    mark = line.index("⏺ ")
    shown = line[mark + 2 :]
    assert shown.endswith("-demo.jsonl"), line  # the file name's end is always there
    if width == 140:  # room for the whole name and the folder it is in
        assert shown == f"~/…/mcp-inspect/sessions/{path.name}", line
        assert "mcp-inspect demo server 0.1.0  stdio  protocol" in line
    else:  # the word "protocol" gives way first, then the server's name, down to a dozen
        assert "  stdio  2025-11-25  " in line and "protocol" not in line, line
        assert "mcp-inspect" in line and "…  stdio" in line and "…" in shown, line


@pytest.mark.slow
@pytest.mark.parametrize("width", [80, 60, 40])
async def test_a_narrow_bar_drops_the_least_needed_facts_first(width: int) -> None:
    """No session file: the server's label and the event count stay readable; "protocol",
    the transport and the protocol version give way in that order."""
    app = InspectorApp(demo_target())
    async with app.run_test(size=(width, 30)) as pilot:
        await wait_connected(pilot)
        await wait_for(  # the catalog loaded: nothing in flight
            pilot, lambda: screen_text(app).splitlines()[0].rstrip().endswith((" ev", " events"))
        )
        line = screen_text(app).splitlines()[0].rstrip()
    assert line.startswith(" ● connected  mcp-inspect"), line
    assert not line.endswith("…"), line  # nothing cut off at the end: it was made to fit
    assert cell_len(line) <= width
    assert "2025-11-25" in line or width < 60, line  # the protocol version goes last
    if width == 80:  # the server's label in full: the word "protocol" gave way for it
        assert "  mcp-inspect demo server 0.1.0  " in line and "protocol" not in line, line
        assert "0.1.0  stdio  2025-11-25  " in line and line.endswith(" events"), line
    if width == 40:  # the facts at their shortest, the server's label shortened
        assert "2025" not in line and line.endswith(" ev"), line
        assert "  mcp-inspect" in line and "…" in line, line


@pytest.mark.slow
@pytest.mark.parametrize("width", [160, 80])
async def test_a_replay_label_is_cut_only_for_want_of_room(width: int, tmp_path: Path) -> None:
    """The server's label in a replay is long ("... (replay of FILE)"): whole when the bar
    has room, else cut with a plain ellipsis, never the "… N more chars" of folded content."""
    path = tmp_path / "20261123-213214-demo-server-session.jsonl"
    done = cli("--cli", "--record", str(path), "--method", "ping")
    assert done.returncode == 0, done.stderr
    app = InspectorApp(None, source=IndexedSessionFile(path), replay_title=path.name)
    async with app.run_test(size=(width, 30)) as pilot:
        await wait_for(pilot, lambda: "replay of" in app.query_one("#status").server)
        await pilot.pause()
        line = screen_text(app).splitlines()[0].rstrip()
    assert "more chars" not in line, line
    assert cell_len(line) <= width
    label = f"mcp-inspect demo server 0.1.0 (replay of {path.name})"
    if width == 160:
        assert f"  {label}  " in line, line
    else:
        assert "  mcp-inspect demo server" in line and "…  offline  " in line, line
