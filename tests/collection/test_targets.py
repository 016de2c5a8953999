"""A collection's ``server`` as a URL with headers (an official-SDK server over HTTP) and
as a config file entry; ``--record DIR`` sessions that ``replay --against`` reads. The
command runs in the test process; as a child process where the run's end is the point."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from cli_inprocess import cli_inprocess
from cli_runner import cli
from junitparser import Error, JUnitXml, Skipped
from paths import DEMO, PY, SERVERS

STEPS = (
    "steps:\n"
    "  - call: add\n    arguments: {a: 2, b: 3}\n    expect: {text: '5'}\n"
    "  - list: tools\n    expect: {contains: add}\n"
)


@pytest.mark.slow
def test_a_url_with_headers_and_a_secret_from_the_environment(
    tmp_path: Path, sdk_json_base: str
) -> None:
    secret = "hc-bearer-9876"
    base = sdk_json_base  # the worker's shared server (conftest)
    path = tmp_path / "http.mcp.yaml"
    path.write_text(
        f"server:\n  url: {base}/mcp\n"
        "  headers: {Authorization: 'Bearer ${env:HC_TOKEN}', X-Suite: collections}\n" + STEPS
    )
    record = tmp_path / "sessions"
    env = {**os.environ, "HC_TOKEN": secret}
    done = cli_inprocess("test", str(path), "--record", str(record), env=env)
    assert done.returncode == 0, done.stdout + done.stderr
    session = (record / "http.mcp.yaml.jsonl").read_text()
    assert secret not in session
    posts = [
        json.loads(line)
        for line in session.splitlines()[1:]
        if '"ch": "http"' in line or '"ch":"http"' in line
    ]
    sent = [e["meta"]["headers"] for e in posts if e.get("dir") == "out"]
    assert sent and all(h.get("X-Suite") == "collections" for h in sent)
    assert all("Authorization" in h for h in sent)


def test_a_config_entry_and_a_recording_replay_reads(tmp_path: Path) -> None:
    (tmp_path / "servers.json").write_text(
        json.dumps({"mcpServers": {"demo": {"command": PY, "args": DEMO[1:]}}})
    )
    path = tmp_path / "config.mcp.yaml"
    path.write_text(
        "server: {config: servers.json, name: demo}\n"
        "steps:\n  - call: add\n    arguments: {a: 2, b: 3}\n    expect: {text: '2 + 3 = 5'}\n"
        "  - list: tools\n"
    )
    record = tmp_path / "sessions"
    done = cli_inprocess("test", str(path), "--record", str(record))
    assert done.returncode == 0, done.stdout + done.stderr
    recorded = record / "config.mcp.yaml.jsonl"
    replayed = cli_inprocess("--cli", "replay", str(recorded), "--against", "--", *DEMO)
    assert replayed.returncode == 0, replayed.stdout + replayed.stderr
    assert json.loads(replayed.stdout)["summary"]["changed"] == 0


def test_a_server_lost_mid_file_is_exit_3_and_the_rest_is_skipped(tmp_path: Path) -> None:
    path = tmp_path / "crash.mcp.yaml"
    crash = [PY, str(SERVERS / "stdio_misbehave.py"), "crash"]
    path.write_text(
        f"server: {{command: {json.dumps(crash)}}}\nsteps:\n  - list: tools\n  - list: prompts\n"
    )
    junit = tmp_path / "report.xml"
    done = cli("test", str(path), "--protocol-version", "2025-11-25", "--junit", str(junit))
    assert done.returncode == 3, done.stdout + done.stderr
    lines = done.stdout.splitlines()
    assert lines[1].startswith("  ERROR list tools: connection closed")
    assert lines[2].startswith("  SKIP  list prompts: not run: the connection was lost")
    case, skipped = list(next(iter(JUnitXml.fromfile(str(junit)))))
    assert isinstance(case.result[0], Error) and isinstance(skipped.result[0], Skipped)


def test_sigterm_stops_the_run_and_the_server(tmp_path: Path) -> None:
    """A step that hangs, then SIGTERM: the run ends as --cli's does (exit 143), the
    server shut down with it."""
    import signal
    import subprocess
    import time

    from cli_runner import inspector_argv
    from paths import ROOT

    hang = [PY, str(SERVERS / "stdio_misbehave.py"), "hang"]
    path = tmp_path / "hang.mcp.yaml"
    path.write_text(f"server: {{command: {json.dumps(hang)}}}\nsteps:\n  - list: tools\n")
    argv = inspector_argv("test", str(path), "--protocol-version", "2025-11-25")
    proc = subprocess.Popen(argv, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert proc.stdout is not None
    assert proc.stdout.readline().decode().strip() == str(path)  # the file has started
    time.sleep(1.0)  # connected; the step waits for its answer
    proc.send_signal(signal.SIGTERM)
    _, err = proc.communicate(timeout=30)
    assert proc.returncode == 143, err
    assert b"stopped by SIGTERM; the server was shut down" in err
