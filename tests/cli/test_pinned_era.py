"""``--protocol-version 2026-07-28`` against a server that speaks only the handshake era
ends the same way over stdio and over HTTP: exit 4, a message saying the server speaks
the handshake era and how to connect, and nothing sent after the refused
``server/discover`` (before, stdio went on sending stateless requests to a server that was
never initialized). Against the bundled demo server and ``servers/era_server.py``."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from cli_inprocess import cli_inprocess
from paths import SERVERS

from inspector.commands.failures import ExitCode
from inspector.record.reader import read_session
from inspector.wire.events import Channel, Direction
from tests.servers.http_support import sdk_server

DEMO = [sys.executable, "-m", "inspector.demo"]
ERA_STDIO = [sys.executable, str(SERVERS / "era_server.py"), "handshake-stdio"]


def pinned(record: Path, *target: str) -> subprocess.CompletedProcess[str]:
    args = ["--cli", "--protocol-version", "2026-07-28", "--method", "tools/list"]
    args += ["--record", str(record)]
    return cli_inprocess(*args, *(["--", *target] if len(target) > 1 else target), timeout=90)


def sent(record: Path) -> list[str]:
    return [
        e.message["method"]
        for e in read_session(record).events
        if e.direction is Direction.OUT
        and e.channel in (Channel.STDIN, Channel.BODY)
        and isinstance(e.message, dict)
        and "method" in e.message
    ]


@pytest.mark.parametrize("server", ["demo", "era-stdio", "era-http"])
def test_a_handshake_server_pinned_to_the_stateless_era_exits_4(
    server: str, tmp_path: Path
) -> None:
    record = tmp_path / "s.jsonl"
    if server == "era-http":
        with sdk_server("handshake-http", script="era_server.py") as base:
            done = pinned(record, f"{base}/mcp")
    else:
        done = pinned(record, *(DEMO if server == "demo" else ERA_STDIO))
    assert done.returncode == ExitCode.PROTOCOL, (done.stdout, done.stderr)
    message = json.loads(done.stderr.splitlines()[-1])["error"]["message"]
    assert "2026-07-28" in message and "try without --protocol-version" in message
    assert sent(record) == ["server/discover"]  # nothing stateless sent after the refusal
