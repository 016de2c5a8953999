"""Helpers of the collection tests: write a collection, run ``mcp-inspect test`` on it."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

from cli_inprocess import cli_inprocess
from paths import DEMO, PY, SERVERS

SDK = [PY, str(SERVERS / "sdk_collection_server.py")]
BAD_OUTPUT = [PY, str(SERVERS / "stdio_bad_output.py")]


def write(path: Path, server: list[str] | None, body: str) -> Path:
    """A collection file: ``server`` (a command) then ``body`` (YAML: vars, steps...)."""
    head = f"server: {{command: {json.dumps(server)}}}\n" if server is not None else ""
    path.write_text(head + body)
    return path


def demo_file(path: Path, body: str) -> Path:
    return write(path, DEMO, body)


def run_json(*args: str, **kw: Any) -> tuple[subprocess.CompletedProcess[str], dict[str, Any]]:
    """``mcp-inspect test --json ARGS`` (run in the test process): the run and its report."""
    done = cli_inprocess("test", "--json", *args, **kw)
    assert done.stdout.strip(), done.stderr
    return done, json.loads(done.stdout)


def steps(report: dict[str, Any], file_index: int = 0) -> list[dict[str, Any]]:
    return list(report["files"][file_index]["steps"])
