"""Save session as (w): the path dialog, its refusals, and the copy (replay and live)."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest
from paths import DATA
from tui_helpers import screen_text, wait_connected, wait_for

from inspector.record.format import SessionHeader
from inspector.record.indexed import IndexedSessionFile
from inspector.record.recorder import Recorder
from inspector.target import demo_target, target_info
from inspector.tui.app import InspectorApp
from inspector.tui.screens.save_as import SaveAsScreen
from inspector.tui.session_copy import (
    check_target,
    copy_snapshot,
    default_target,
    resolve_target,
)

DATA = DATA / "demo-session.jsonl"
SIZE = (150, 45)


# -- the path and the copy, without the UI ---------------------------------------------


def test_paths_expand_home_and_directories_get_the_file_name(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    source = tmp_path / "rec" / "s.jsonl"
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.chdir(tmp_path)
    assert default_target(source) == "~/s.jsonl"
    (tmp_path / "s.jsonl").write_text("{}\n")  # replaying a file in the current directory
    assert default_target(tmp_path / "s.jsonl") == "~/s-copy.jsonl"
    assert resolve_target("~/out.jsonl", source) == tmp_path / "out.jsonl"
    assert resolve_target("~", source) == tmp_path / "s.jsonl"  # a directory
    assert resolve_target("new/", source) == tmp_path / "new" / "s.jsonl"  # typed as one
    assert resolve_target("x.jsonl", source) == tmp_path / "x.jsonl"  # relative to cwd


def test_check_target_names_each_problem(tmp_path: Path) -> None:
    source = tmp_path / "s.jsonl"
    source.write_text("{}\n")
    (tmp_path / "other.jsonl").write_text("old")
    assert check_target(tmp_path / "fresh.jsonl", source) is None
    same = check_target(tmp_path / "." / "s.jsonl", source)
    assert same is not None and same.kind == "same"
    exists = check_target(tmp_path / "other.jsonl", source)
    assert exists is not None and exists.kind == "exists" and "overwrite" in exists.message
    missing = check_target(tmp_path / "nowhere" / "x.jsonl", source)
    assert missing is not None and missing.kind == "unwritable"
    assert "does not exist" in missing.message


def test_a_copy_leaves_out_a_half_written_last_line(tmp_path: Path) -> None:
    source = tmp_path / "s.jsonl"
    source.write_bytes(b'{"a": 1}\n{"b": 2}\n{"c": ')  # the recorder is mid-line
    target = tmp_path / "copy.jsonl"
    assert copy_snapshot(source, target) == 18
    assert target.read_bytes() == b'{"a": 1}\n{"b": 2}\n'


# -- in the TUI --------------------------------------------------------------------------


def dialog(app: InspectorApp) -> SaveAsScreen:
    screen = app.screen
    assert isinstance(screen, SaveAsScreen)
    return screen


async def open_dialog(pilot: Any, app: InspectorApp) -> SaveAsScreen:
    await wait_for(pilot, lambda: app.focused is not None and app.focused.id == "list-tools")
    await pilot.press("w")
    await wait_for(
        pilot,
        lambda: (
            isinstance(app.screen, SaveAsScreen) and app.screen.query_one("#save-as-path").has_focus
        ),
    )
    return dialog(app)


async def type_path(pilot: Any, screen: SaveAsScreen, path: str) -> None:
    field: Any = screen.query_one("#save-as-path")
    field.value = path
    await wait_for(pilot, lambda: field.value == path)
    await pilot.press("enter")


def notes(app: InspectorApp) -> list[str]:
    return [str(n.message) for n in app._notifications]


@pytest.mark.slow
async def test_replay_saves_the_replayed_file_and_asks_before_overwriting(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    recording = tmp_path / "rec" / "demo.jsonl"
    recording.parent.mkdir()
    shutil.copyfile(DATA, recording)
    source = IndexedSessionFile(recording)
    app = InspectorApp(None, source=source, replay_title=recording.name)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_dialog(pilot, app)
        field: Any = screen.query_one("#save-as-path")
        assert field.value == str(tmp_path / "demo.jsonl")  # the current directory
        await pilot.press("enter")  # take the default
        copy = tmp_path / "demo.jsonl"
        await wait_for(pilot, lambda: any("session copied to" in n for n in notes(app)))
        assert copy.read_bytes() == recording.read_bytes()
        assert not any("snapshot" in n for n in notes(app))  # a replayed file is complete

        # the same path again: it exists; a second Enter overwrites
        copy.write_text("old")
        screen = await open_dialog(pilot, app)
        await pilot.press("enter")
        await wait_for(pilot, lambda: "exists: save again to overwrite" in screen.problem)
        assert copy.read_text() == "old" and app.screen is screen
        await wait_for(pilot, lambda: "Overwrite (enter)" in screen_text(app))  # on screen
        await pilot.press("enter")
        await wait_for(pilot, lambda: copy.read_bytes() == recording.read_bytes())
        await wait_for(pilot, lambda: not isinstance(app.screen, SaveAsScreen))

        # the file itself, and a directory that does not exist: said, nothing written
        screen = await open_dialog(pilot, app)
        await type_path(pilot, screen, str(recording.parent) + "/")
        await wait_for(pilot, lambda: "is the session file itself" in screen.problem)
        await type_path(pilot, screen, str(tmp_path / "nowhere" / "x.jsonl"))
        await wait_for(pilot, lambda: "does not exist" in screen.problem)
        await pilot.press("escape")
        await wait_for(pilot, lambda: not isinstance(app.screen, SaveAsScreen))
        assert not (tmp_path / "nowhere").exists()
    source.close()


@pytest.mark.slow
async def test_live_session_copy_is_a_snapshot_and_says_so(tmp_path: Path) -> None:
    target = demo_target()
    recorder = Recorder(tmp_path / "live.jsonl", SessionHeader(target=target_info(target)))
    app = InspectorApp(target, recorder=recorder)
    try:
        async with app.run_test(size=SIZE) as pilot:
            await wait_connected(pilot)
            screen = await open_dialog(pilot, app)
            assert "still being recorded" in screen_text(app)
            out = tmp_path / "out"
            out.mkdir()
            await type_path(pilot, screen, str(out))  # a directory: the file's own name
            copy = out / "live.jsonl"
            await wait_for(pilot, lambda: any("snapshot" in n for n in notes(app)))
            note = next(n for n in notes(app) if "snapshot" in n)
            assert "session copied to" in note and "recording goes on" in note
            copied = IndexedSessionFile(copy)
            try:
                assert len(copied) > 10 and not copied.warnings  # whole lines only
            finally:
                copied.close()
    finally:
        recorder.close()
