"""Strings that are not the program's own (paths, a target's command, URLs) are shown as
server text is: control characters visible. A ``--record`` path holding ``ESC]0;...BEL``
retitled the terminal from the status bar; the state folder's path reaches the help and
the toasts; a server command the result pane's "connecting to"; the command line's
stderr prints paths and server messages."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from cli_runner import cli
from paths import SERVERS
from textual.widgets import Static
from tui_helpers import plain, wait_connected, wait_for

from inspector.record.format import SessionHeader
from inspector.record.recorder import Recorder
from inspector.target import Target, demo_target
from inspector.tui.app import InspectorApp
from inspector.tui.screens.help import HelpScreen
from inspector.tui.widgets.result_view import ResultView
from inspector.tui.widgets.status_bar import StatusBar

EVIL = "\x1b]0;pwned\x07\x1b[2J\x9b31m"
RAW = ("\x1b", "\x07", "\x9b")


def shows_no_control(text: str) -> bool:
    return not any(ch in text for ch in RAW)


@pytest.fixture
def evil_state(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    state = tmp_path / f"state{EVIL}"
    state.mkdir()
    monkeypatch.setenv("XDG_STATE_HOME", str(state))
    return state


@pytest.mark.slow
async def test_the_record_path_and_the_state_folder_are_shown_safely(
    tmp_path: Path, evil_state: Path
) -> None:
    path = tmp_path / f"s{EVIL}.jsonl"
    recorder = Recorder(path, SessionHeader(target={"transport": "stdio"}))
    app = InspectorApp(demo_target(), recorder=recorder)
    try:
        async with app.run_test(size=(160, 40)) as pilot:
            await wait_connected(pilot)
            bar = plain(app.query_one(StatusBar).render(), width=400)
            assert "s␛]0;pwned␇␛[2J" in bar and shows_no_control(bar), repr(bar)
            app.notify(f"saved to {path}")  # as save-as and screenshots say it
            await wait_for(pilot, lambda: bool(list(app._notifications)))
            toast = list(app._notifications)[-1]
            assert "␛]0;pwned␇" in toast.message
            assert shows_no_control(toast.message)
            await pilot.press("question_mark")
            await wait_for(pilot, lambda: isinstance(app.screen, HelpScreen))
            sections = app.help_sections()
            text = " ".join(p for s in sections for p in s.text)
            assert EVIL in text  # the paragraphs name the paths...
            sections_shown = app.screen.query(".help-section").results(Static)
            shown = " ".join(plain(w.content, 400) for w in sections_shown)
            assert "state␛]0;pwned␇" in shown and shows_no_control(shown)  # ...shown safely
    finally:
        recorder.close()


@pytest.mark.slow
async def test_a_target_command_is_shown_safely_while_connecting() -> None:
    sleeper = ["-c", "import time; time.sleep(60)", EVIL]  # never answers: stays connecting
    app = InspectorApp(Target(command=sys.executable, args=sleeper))
    async with app.run_test(size=(120, 30)) as pilot:
        view = app.query_one(ResultView)
        await wait_for(pilot, lambda: "connecting to" in plain(view.document, 400))
        shown = plain(view.document, 400)
        assert "␛]0;pwned␇" in shown and shows_no_control(shown), repr(shown)
        bar = plain(app.query_one(StatusBar).render(), width=400)
        assert shows_no_control(bar), repr(bar)


def test_the_command_line_prints_paths_and_server_words_safely(tmp_path: Path) -> None:
    server = [sys.executable, str(SERVERS / "stdio_hostile.py")]
    done = cli("--cli", "--method", "tools/list", "--stderr", "--", *server)
    assert shows_no_control(done.stderr) and "␛]0;pwned␇" in done.stderr, done.stderr
    (tmp_path / "file").write_text("")
    record = tmp_path / "file" / f"s{EVIL}.jsonl"  # cannot be written: its folder is a file
    done = cli("--cli", "--method", "ping", "--record", str(record))
    assert done.returncode == 2 and shows_no_control(done.stderr), repr(done.stderr)
    assert "\\u009b" in done.stderr  # the JSON line stays JSON: C1 as a \\u escape


def test_the_tui_exit_line_names_the_session_file_safely(tmp_path: Path) -> None:
    record = tmp_path / f"s{EVIL}.jsonl"
    script = (
        "import sys; from inspector.commands import main; "
        "from inspector.tui import launch; launch.run_inspector = lambda *a, **k: 0; "
        f"sys.exit(main(['--record', {str(record)!r}]))"
    )
    done = subprocess.run(
        [sys.executable, "-c", script],
        capture_output=True,
        text=True,
        timeout=60,
        env={"MCP_INSPECT_FORCE_TUI": "1", "PATH": "/usr/bin:/bin"},
    )
    assert "session saved to" in done.stderr, done.stderr
    assert shows_no_control(done.stderr) and "s␛]0;pwned␇" in done.stderr
