"""Issue 11.4: session files hold the whole wire, so only their owner reads them: folders
mcp-inspect creates 0700, files 0600, whatever the umask."""

from __future__ import annotations

import os
import stat
from collections.abc import Iterator
from pathlib import Path

import pytest
from cli_runner import cli

from inspector.commands.options import default_session_path, private_state_dir, state_dir
from inspector.record.format import SessionHeader
from inspector.record.recorder import Recorder
from inspector.tui.session_copy import copy_snapshot


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


@pytest.fixture(params=[0o022, 0o000], ids=["umask022", "umask000"])
def umask(request: pytest.FixtureRequest) -> Iterator[int]:
    old = os.umask(request.param)
    try:
        yield request.param
    finally:
        os.umask(old)


def test_recorder_creates_private_folders_and_file(tmp_path: Path, umask: int) -> None:
    shared = tmp_path / "shared"
    shared.mkdir()
    shared.chmod(0o755)
    path = shared / "new" / "deeper" / "s.jsonl"
    Recorder(path, SessionHeader(target={})).close()
    assert mode(path) == 0o600
    assert mode(path.parent) == 0o700 and mode(path.parent.parent) == 0o700
    assert mode(shared) == 0o755  # a folder that existed is the user's: left alone


def test_an_existing_world_readable_file_is_tightened(tmp_path: Path, umask: int) -> None:
    path = tmp_path / "s.jsonl"
    path.write_text("old")
    path.chmod(0o644)
    Recorder(path, SessionHeader(target={})).close()
    assert mode(path) == 0o600


def test_default_sessions_folder_is_private(
    tmp_path: Path, umask: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    old = tmp_path / "state" / "mcp-inspect"
    old.mkdir(parents=True, mode=0o755)  # as an older version left it
    old.chmod(0o755)
    private_state_dir()
    from inspector.target import demo_target

    path = default_session_path(demo_target())
    Recorder(path, SessionHeader(target={})).close()
    assert path.parent == state_dir()
    assert mode(state_dir()) == 0o700 and mode(state_dir().parent) == 0o700
    assert mode(path) == 0o600


def test_save_as_copy_is_private(tmp_path: Path, umask: int) -> None:
    source = tmp_path / "s.jsonl"
    source.write_text('{"mcp_inspect_session": 1}\n')
    target = tmp_path / "copy.jsonl"
    copy_snapshot(source, target)
    assert mode(target) == 0o600


def test_cli_record_under_a_permissive_umask(tmp_path: Path) -> None:
    path = tmp_path / "made" / "s.jsonl"
    done = cli(
        "--cli",
        "--method",
        "ping",
        "--record",
        str(path),
        preexec_fn=lambda: os.umask(0),  # the child's umask only
    )
    assert done.returncode == 0, done.stderr
    assert mode(path) == 0o600 and mode(path.parent) == 0o700


def test_recording_to_a_pipe_leaves_its_mode(tmp_path: Path) -> None:
    """--record /dev/stdout style targets are not chmodded."""
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo, 0o644)
    os.chmod(fifo, 0o644)
    reader = os.open(fifo, os.O_RDONLY | os.O_NONBLOCK)
    try:
        Recorder(fifo, SessionHeader(target={})).close()
    finally:
        os.close(reader)
    assert mode(fifo) == 0o644
