"""The Locust user and locustfile, run by Locust itself as a user runs them: headless, two
processes, against an official-SDK Streamable HTTP server and a stdio command."""

from __future__ import annotations

import csv
import subprocess
import sys
from pathlib import Path

import pytest
from cli_runner import cli
from paths import DEMO, ROOT

from tests.servers.http_support import sdk_server

pytestmark = pytest.mark.slow
LOCUST = [sys.executable, "-m", "locust"]


def locustfile() -> str:
    done = cli("load", "--locustfile")
    assert done.returncode == 0, done.stderr
    path = done.stdout.strip()
    assert Path(path).is_file()
    return path


def run_locust(tmp: Path, *args: str, code: int | None = 0) -> dict[str, dict[str, str]]:
    prefix = tmp / "run"
    done = subprocess.run(
        [
            *LOCUST,
            "-f",
            locustfile(),
            "--headless",
            "-u",
            "4",
            "-r",
            "4",
            "-t",
            "5s",
            "--processes",
            "2",
            "--csv",
            str(prefix),
            "--only-summary",
            *args,
        ],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=ROOT,
        check=False,
    )
    if code is not None:
        assert done.returncode == code, done.stdout[-3000:] + done.stderr[-3000:]
    with open(f"{prefix}_stats.csv", newline="") as fh:
        return {row["Name"]: row for row in csv.DictReader(fh)}


def test_locust_calls_a_tool_over_http(tmp_path: Path) -> None:
    with sdk_server("http", script="sdk_load_server.py") as base:
        rows = run_locust(
            tmp_path,
            "--mcp-target",
            f"{base}/mcp",
            "--mcp-tool",
            "sleep_ms",
            "--mcp-args",
            '{"ms": 1}',
        )
    calls = rows["tools/call sleep_ms"]
    assert int(calls["Request Count"]) > 20
    assert int(calls["Failure Count"]) == 0
    assert int(rows["connect"]["Request Count"]) == 4  # one session per user
    assert rows["connect"]["Failure Count"] == "0"


def test_locust_with_a_target_alone_lists_tools_over_stdio(tmp_path: Path) -> None:
    rows = run_locust(tmp_path, "--mcp-target", " ".join(DEMO))
    assert int(rows["tools/list"]["Request Count"]) > 20
    assert rows["tools/list"]["Failure Count"] == "0"


def test_locust_counts_tool_errors_as_failures(tmp_path: Path) -> None:
    rows = run_locust(
        tmp_path,
        "--mcp-target",
        " ".join(DEMO),
        "--mcp-tool",
        "divide",
        "--mcp-args",
        '{"dividend": 1, "divisor": 0}',
        code=None,  # Locust's exit code with failures depends on which process ends last
    )
    row = rows["tools/call divide"]
    assert int(row["Request Count"]) > 0 and row["Failure Count"] == row["Request Count"]
