"""``cli_inprocess`` (tests/cli_inprocess.py) gives what ``python -m inspector`` gives as a
child process (exit code, stdout, stderr), and leaves nothing of a run in the test
process: the tests that use it instead of a child process test what they tested."""

from __future__ import annotations

import json
import logging
import os
import sys
from pathlib import Path

import pytest
from cli_inprocess import cli_inprocess, cli_inprocess_async
from cli_runner import cli
from paths import PY, SERVERS

from inspector.record import state as state_files

SDK = [PY, str(SERVERS / "sdk_stdio_server.py")]

CALL = ["--cli", "--method", "tools/call", "--tool-name", "add", "--tool-arg", "a=1"]
LINES = [
    ["--cli", "--method", "tools/list", "--no-such-flag"],  # usage: exit 2, JSON on stderr
    ["--cli", "--method", "ping", "--", "definitely-not-a-command-xyz"],  # exit 3
    [*CALL, "--tool-arg", "b=2", "--", *SDK],
    ["--version"],
    ["export", "/nonexistent/session.jsonl", "--format", "json"],
]


@pytest.mark.parametrize("args", LINES, ids=["usage", "not found", "call", "version", "export"])
def test_same_code_stdout_and_stderr_as_a_child_process(args: list[str]) -> None:
    mine, theirs = cli_inprocess(*args), cli(*args)
    assert (mine.returncode, mine.stdout, mine.stderr) == (
        theirs.returncode,
        theirs.stdout,
        theirs.stderr,
    )


@pytest.mark.slow
def test_nothing_of_a_run_is_left_in_the_process(tmp_path: Path) -> None:
    before = (sys.argv, sys.stdin, sys.stdout, sys.stderr, os.getcwd(), dict(os.environ))
    root = logging.getLogger()
    handlers = root.handlers[:]
    os.chdir(tmp_path)
    try:
        env = {**os.environ, "MCP_INSPECT_ONLY_IN_THE_RUN": "1"}
        done = cli_inprocess("--cli", "--method", "tools/list", "--", *SDK, env=env)
        assert done.returncode == 0, done.stderr
        assert os.getcwd() == str(tmp_path)
    finally:
        os.chdir(before[4])
    assert "MCP_INSPECT_ONLY_IN_THE_RUN" not in os.environ
    assert (sys.argv, sys.stdin, sys.stdout, sys.stderr) == before[:4]
    assert dict(os.environ) == before[5] and root.handlers == handlers


@pytest.mark.slow
def test_a_state_file_note_said_once_is_said_again_by_the_next_run(
    private_state: Path,
) -> None:
    """A process says a broken state file once: each run is a process of its own."""
    (private_state / "mcp-inspect" / "eras.json").mkdir(parents=True)  # unreadable, unwritable
    args = ["--cli", "--method", "tools/list", "--", *SDK]
    first, second = cli_inprocess(*args), cli_inprocess(*args)
    assert first.returncode == second.returncode == 0, first.stderr
    assert "eras.json" in first.stderr and first.stderr == second.stderr
    assert not any("eras.json" in said for said, _ in state_files._SAID)


@pytest.mark.slow
async def test_the_async_form_leaves_the_event_loop_free() -> None:
    done = await cli_inprocess_async("--cli", "--method", "tools/list", "--", *SDK)
    assert done.returncode == 0, done.stderr
    assert {"add"} <= {t["name"] for t in json.loads(done.stdout)["tools"]}
