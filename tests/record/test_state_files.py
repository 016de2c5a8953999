"""State files (``eras.json``, ``oauth.json``) planted or broken: a FIFO (``open()`` hung
forever, beyond SIGTERM), a link to a device or to a huge file (read without a cap), a
damaged or unwritable file (silently replaced or never saved). Each is now read without
blocking, regular files only, capped, and said once on stderr; the call goes on.
And a ``server/discover`` answer of 600,000 versions is not copied whole into a note."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest
from cli_runner import cli
from paths import SERVERS

from inspector.record.era_memory import FileEraMemory
from inspector.record.reader import read_session
from inspector.record.state import MAX_STATE_BYTES, StateFileError, read_state, write_state
from inspector.wire.events import Direction

STRICT = [sys.executable, str(SERVERS / "stdio_strict.py")]  # a handshake-era server
PING = ("--cli", "--method", "ping")


def planted(state: Path, kind: str) -> Path:
    """``eras.json`` in the state folder made into ``kind``."""
    folder = state / "mcp-inspect"
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "eras.json"
    if kind == "fifo":
        os.mkfifo(path)
    elif kind == "device":
        path.symlink_to("/dev/zero")
    elif kind == "huge":
        big = state / "huge"
        with big.open("wb") as out:
            out.truncate(1 << 30)  # sparse: 1 GB that costs nothing on disk
        path.symlink_to(big)
    elif kind == "damaged":
        path.write_text("{not json")
    return path


@pytest.mark.parametrize(
    ("kind", "words"),
    [
        ("fifo", "not a regular file (a FIFO)"),
        ("device", "not a regular file (a character device)"),
        ("huge", f"larger than {MAX_STATE_BYTES:,} bytes"),
        ("damaged", "damaged (not a JSON object)"),
    ],
)
def test_a_planted_eras_file_is_said_once_and_the_call_goes_on(
    private_state: Path, kind: str, words: str
) -> None:
    path = planted(private_state, kind)
    done = cli(*PING, "--", *STRICT, timeout=30)  # a FIFO hung here forever before
    assert done.returncode == 0, done.stderr
    said = [line for line in done.stderr.splitlines() if str(path) in line]
    assert len(said) == 1 and words in said[0], done.stderr  # once, though read thrice
    if kind == "damaged":  # replaced by the verdict, as said
        assert json.loads(path.read_text())


def test_an_unwritable_eras_file_is_said_once(private_state: Path) -> None:
    (private_state / "mcp-inspect").write_text("a file where the folder goes")
    done = cli(*PING, "--", *STRICT, timeout=30)
    assert done.returncode == 0, done.stderr
    written = [line for line in done.stderr.splitlines() if "cannot be written" in line]
    assert len(written) == 1 and "kept for this run only" in written[0], done.stderr


def test_an_unwritable_memory_still_recalls_what_this_run_learned(tmp_path: Path) -> None:
    (tmp_path / "file").write_text("")
    memory = FileEraMemory(tmp_path / "file" / "eras.json")
    memory.remember("k", "2025-11-25")
    assert memory.recall("k") == "2025-11-25"
    memory.forget("k")
    assert memory.recall("k") is None


def test_read_state_refuses_what_is_not_a_small_regular_file(tmp_path: Path) -> None:
    assert read_state(tmp_path / "none") is None
    write_state(tmp_path / "new" / "s.json", b"{}")
    assert read_state(tmp_path / "new" / "s.json") == b"{}"
    assert (tmp_path / "new" / "s.json").stat().st_mode & 0o777 == 0o600
    os.mkfifo(tmp_path / "fifo")
    with pytest.raises(StateFileError, match="a FIFO"):
        read_state(tmp_path / "fifo")
    (tmp_path / "big").write_bytes(b"x" * 101)
    with pytest.raises(StateFileError, match="larger than 100 bytes"):
        read_state(tmp_path / "big", limit=100)


def test_a_fifo_as_the_token_file_keeps_tokens_in_memory(private_state: Path) -> None:
    folder = private_state / "mcp-inspect"
    folder.mkdir(parents=True)
    os.mkfifo(folder / "oauth.json")
    # an HTTP target with OAuth on: the store is read before anything is sent
    done = cli(*PING, "http://127.0.0.1:9/mcp", "--timeout", "3", timeout=30)
    assert "not a regular file (a FIFO)" in done.stderr, done.stderr
    assert "OAuth tokens are kept in memory only" in done.stderr
    assert done.returncode == 3  # nothing listens on port 9: the connection, not the store


def test_a_huge_discover_answer_is_not_copied_into_the_notes(tmp_path: Path) -> None:
    record = tmp_path / "s.jsonl"
    server = [sys.executable, str(SERVERS / "stdio_big_discover.py")]
    done = cli(*PING, "--record", str(record), "--", *server, timeout=60)
    assert done.returncode == 0, done.stderr
    notes = [e for e in read_session(record).events if e.direction is Direction.LOCAL]
    assert max(len(e.raw) for e in notes) < 2000
    assert any("(200,000 in all)" in e.text() for e in notes)
