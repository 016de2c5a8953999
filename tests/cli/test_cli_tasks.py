"""``--cli --method tools/call`` as a task (2025-11-25 tasks), against the bundled demo:
``--task``, and a task-required tool called as a task by itself (said on stderr)."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest
from cli_inprocess import cli_inprocess

from inspector.record.reader import read_session
from inspector.wire.events import Channel, Direction


def cli(record: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """``--cli --record RECORD ARGS`` run in the test process."""
    return cli_inprocess("--cli", "--record", str(record), *args, timeout=90)


def sent(record: Path) -> list[dict[str, Any]]:
    return [
        e.message
        for e in read_session(record).events
        if e.direction is Direction.OUT
        and e.channel is not Channel.SYSTEM
        and isinstance(e.message, dict)
        and "method" in e.message
    ]


@pytest.mark.slow
def test_a_task_required_tool_is_called_as_a_task_by_itself(tmp_path: Path) -> None:
    record = tmp_path / "s.jsonl"
    done = cli(record, "--method", "tools/call", "--tool-name", "generate_report")
    assert done.returncode == 0, done.stderr
    assert "must be called as a task" in done.stderr and "calling it as a task" in done.stderr
    assert ": completed" in done.stderr  # the status changes, one line each
    result = json.loads(done.stdout)
    assert result["structuredContent"]["topic"] == "quarterly numbers"
    methods = [m["method"] for m in sent(record)]
    call = next(m for m in sent(record) if m["method"] == "tools/call")
    assert "task" in call["params"]
    assert methods.index("tools/call") < methods.index("tasks/result")


def test_task_flag_calls_an_optional_tool_as_a_task(tmp_path: Path) -> None:
    record = tmp_path / "s.jsonl"
    done = cli(
        record,
        "--method",
        "tools/call",
        "--tool-name",
        "slow_count",
        "--tool-arg",
        "seconds=1",
        "--task",
    )
    assert done.returncode == 0, done.stderr
    assert "must be called" not in done.stderr
    call = next(m for m in sent(record) if m["method"] == "tools/call")
    assert "task" in call["params"]
    assert "tasks/get" in [m["method"] for m in sent(record)]
    assert json.loads(done.stdout)["content"]


@pytest.mark.slow
def test_without_task_an_optional_tool_is_a_plain_call(tmp_path: Path) -> None:
    record = tmp_path / "s.jsonl"
    done = cli(
        record, "--method", "tools/call", "--tool-name", "slow_count", "--tool-arg", "seconds=1"
    )
    assert done.returncode == 0, done.stderr
    call = next(m for m in sent(record) if m["method"] == "tools/call")
    assert "task" not in call["params"]
    assert "tasks/get" not in [m["method"] for m in sent(record)]
