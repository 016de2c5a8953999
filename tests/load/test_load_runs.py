"""``mcp-inspect load`` run for real: the demo server and an official-SDK server over stdio
and Streamable HTTP; counts, the open model's rate, errors by kind, percentiles against a
known latency, the report files, the limits' exit codes, nothing left running."""

from __future__ import annotations

import json
import os
import sys
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from cli_runner import cli
from paths import DEMO, SERVERS

from tests.servers.http_support import sdk_server

SDK = [sys.executable, str(SERVERS / "sdk_load_server.py")]


def load(tmp: Path, *args: str, timeout: float = 120) -> tuple[int, dict[str, Any], str]:
    """Run ``mcp-inspect load ARGS --json``; the exit code, the JSON, stdout + stderr."""
    out = tmp / f"run-{len(list(tmp.iterdir()))}.json"
    done = cli("load", "--json", str(out), *args, timeout=timeout)
    data = json.loads(out.read_text()) if out.exists() else {}
    return done.returncode, data, done.stdout + done.stderr


def test_requests_are_exact_and_the_report_says_so(tmp_path: Path) -> None:
    csv_path = tmp_path / "run.csv"
    code, data, text = load(
        tmp_path,
        "--tool-name",
        "add",
        "--tool-arg",
        "a=2",
        "--tool-arg",
        "b=3",
        "-c",
        "3",
        "--requests",
        "150",
        "--csv",
        str(csv_path),
        "--",
        *DEMO,
    )
    assert code == 0, text
    assert data["calls"] == data["ok"] == 150 and data["failed"] == 0
    assert data["per_call"] == {"tools/call add": 150}
    assert data["settings"]["describe"] == "3 sessions, closed model, 150 calls"
    latency = data["latency_ms"]
    assert 0 < latency["p50"] <= latency["p90"] <= latency["p99"] <= latency["max"]
    assert "calls      150" in text and "p99" in text
    rows = dict(line.split(",", 1) for line in csv_path.read_text().splitlines()[1:])
    assert rows["calls"] == "150" and "latency_ms_p99" in rows


@pytest.mark.slow
def test_open_model_holds_its_rate(tmp_path: Path) -> None:
    code, data, text = load(
        tmp_path,
        "--tool-name",
        "add",
        "--tool-arg",
        "a=1",
        "--tool-arg",
        "b=1",
        "--rate",
        "200",
        "--duration",
        "5s",
        "-c",
        "2",
        "--",
        *DEMO,
    )
    assert code == 0, text
    # 200 calls a second for 5 s are scheduled whatever the latency: within 5 %
    assert 950 <= data["calls"] <= 1050, data
    assert data["dropped"] == 0
    assert 190 <= data["offered_rate"] <= 210, data  # the schedule kept its pace
    assert "calls/s offered" in text


@pytest.mark.slow
def test_errors_are_counted_by_kind(tmp_path: Path) -> None:
    code, data, text = load(
        tmp_path,
        "--tool-name",
        "flaky",
        "--share-session",
        "-c",
        "4",
        "--requests",
        "50",
        "--",
        *SDK,
    )
    assert code == 0, text  # no limit given: errors do not fail the run
    assert data["failed"] == 5 and data["ok"] == 45
    assert list(data["errors"]) == ["tool_error"]
    assert "every tenth call fails" in data["errors"]["tool_error"]["sample"]
    code, data, text = load(
        tmp_path,
        "--tool-name",
        "hang",
        "--timeout",
        "0.5",
        "-c",
        "2",
        "--requests",
        "4",
        "--",
        *SDK,
    )
    assert data["errors"]["timeout"]["count"] == 4, text
    assert "no response within the timeout of 0.5 s" in data["errors"]["timeout"]["sample"]


@pytest.mark.slow
def test_percentiles_follow_a_known_latency(tmp_path: Path) -> None:
    code, data, text = load(
        tmp_path,
        "--tool-name",
        "sleep_ms",
        "--tool-arg",
        "ms=50",
        "-c",
        "4",
        "--requests",
        "80",
        "--max-p99",
        "1",
        "--",
        *SDK,
    )
    latency = data["latency_ms"]
    # every call sleeps 50 ms on the server: no percentile can be below it
    assert 50 <= latency["p50"] < 200, latency
    assert latency["p50"] <= latency["p99"]
    assert code == 1 and "is over --max-p99 1 ms" in text  # the limit sets the exit code


def _servers_running(marker: str) -> list[str]:
    found = []
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            cmdline = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()
        except OSError:
            continue
        if marker in cmdline and "pytest" not in cmdline:
            found.append(cmdline)
    return found


@pytest.mark.slow
def test_no_server_process_is_left_after_the_run(tmp_path: Path) -> None:
    tag = f"load-leftover-{uuid.uuid4().hex}"  # this test's servers only (others run beside)
    code, data, text = load(
        tmp_path,
        "--tool-name",
        "sleep_ms",
        "--tool-arg",
        "ms=1",
        "-c",
        "5",
        "--duration",
        "1s",
        "--",
        *SDK,
        tag,
    )
    assert code == 0 and data["calls"] > 0, text
    assert _servers_running(tag) == []


@pytest.fixture(scope="module")
def http_url() -> Iterator[str]:
    with sdk_server("http", script="sdk_load_server.py") as base:
        yield f"{base}/mcp"


@pytest.mark.slow
def test_http_target_with_a_workload_and_compare(tmp_path: Path, http_url: str) -> None:
    workload = tmp_path / "calls.json"
    workload.write_text(
        json.dumps(
            [
                {"tool": "sleep_ms", "arguments": {"ms": 5}},
                {"method": "tools/list", "params": {}},
            ]
        )
    )
    first = tmp_path / "first.json"
    done = cli(
        "load",
        http_url,
        "--workload",
        str(workload),
        "-c",
        "4",
        "--requests",
        "100",
        "--json",
        str(first),
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    data = json.loads(first.read_text())
    assert data["per_call"] == {"tools/call sleep_ms": 50, "tools/list": 50}
    code, _again, text = load(
        tmp_path,
        http_url,
        "--workload",
        str(workload),
        "-c",
        "4",
        "--requests",
        "100",
        "--compare",
        str(first),
    )
    assert code == 0, text
    assert "against first.json:" in text and "throughput" in text and "was" in text


@pytest.mark.slow
def test_sampled_recording_replays(tmp_path: Path) -> None:
    record = tmp_path / "load.jsonl"
    code, _data, text = load(
        tmp_path,
        "--tool-name",
        "flaky",
        "--share-session",
        "--requests",
        "40",
        "--record",
        str(record),
        "--record-one-in",
        "7",
        "--",
        *SDK,
    )
    assert code == 0, text
    summary = json.loads(cli("--cli", "replay", str(record)).stdout)
    calls = summary["methods"]["tools/call"]
    # every failed call (4) and 1 in 7 of the 36 others (5)
    assert calls == 4 + 36 // 7, summary
    assert summary["answered"] == summary["requests"]


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (["--tool-name", "add"], "--duration"),
        (["--requests", "5"], "say what to call"),
        (["--tool-name", "add", "--duration", "soon"], "not a duration"),
        (["--workload", "/nonexistent.json", "--requests", "1"], "cannot be read"),
        (["--tool-name", "nope", "--requests", "1", "--", *DEMO], "has no tool 'nope'"),
    ],
)
def test_bad_input_is_a_clear_error(args: list[str], says: str) -> None:
    done = cli("load", *args, timeout=60)
    assert done.returncode in (2, 3), done.stdout + done.stderr
    assert says in done.stderr and "Traceback" not in done.stderr
