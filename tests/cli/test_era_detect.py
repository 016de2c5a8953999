"""Era detection with no --protocol-version: the command line, for real, against servers
of one era (``servers/era_server.py``) and the official SDK's, which speak both; over
stdio and HTTP. Each test has its own state folder (conftest), so the first run probes
and a second run of the same target is answered from what the first remembered. The CLI
runs in the test process (nothing of a run stays in it but what the state folder holds);
the first test runs it as child processes, end to end."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from cli_inprocess import cli_inprocess
from paths import SERVERS

from inspector.commands.failures import ExitCode
from inspector.record.reader import read_session
from inspector.wire.events import Channel, Direction, WireEvent
from tests.servers.http_support import sdk_server

ERA_SERVER = [sys.executable, str(SERVERS / "era_server.py")]
SDK_STDIO = [sys.executable, "-W", "ignore", str(SERVERS / "sdk_stdio_server.py")]


def cli(
    record: Path,
    target: list[str],
    *extra: str,
    env: dict[str, str] | None = None,
    process: bool = False,
) -> tuple[subprocess.CompletedProcess[str], list[WireEvent]]:
    """``add`` called through the CLI, recorded; in the test process, or a child process
    (``process``) where two processes must share only what the state folder holds."""
    args = [
        "--cli",
        "--method",
        "tools/call",
        "--tool-name",
        "add",
        "--tool-arg",
        "a=2",
        "--tool-arg",
        "b=40",
        "--record",
        str(record),
        *extra,
        *(["--", *target] if len(target) > 1 else target),
    ]
    full_env = {**os.environ, **(env or {})}
    if process:
        done = subprocess.run(
            [sys.executable, "-m", "inspector", *args],
            capture_output=True,
            text=True,
            timeout=90,
            env=full_env,
        )
    else:
        done = cli_inprocess(*args, timeout=90, env=full_env)
    return done, read_session(record).events


def sent(events: list[WireEvent]) -> list[str]:
    return [
        e.message["method"]
        for e in events
        if e.direction is Direction.OUT
        and e.channel is not Channel.SYSTEM
        and isinstance(e.message, dict)
        and "method" in e.message
    ]


def era_notes(events: list[WireEvent]) -> list[dict[str, Any]]:
    """The ``era`` meta of the notes that say how the era was chosen, with their text."""
    return [
        {**e.meta["era"], "text": e.raw.decode()}
        for e in events
        if e.channel is Channel.SYSTEM and isinstance(e.meta.get("era"), dict)
    ]


def chosen(events: list[WireEvent]) -> dict[str, Any]:
    notes = [n for n in era_notes(events) if n["step"] == "chosen"]
    assert len(notes) == 1, era_notes(events)
    return notes[0]


def answered(done: subprocess.CompletedProcess[str]) -> str:
    assert done.returncode == 0, done.stderr
    return str(json.loads(done.stdout)["content"][0]["text"])


def test_stdio_handshake_only_probed_once_then_remembered(tmp_path: Path) -> None:
    done, events = cli(tmp_path / "1.jsonl", [*ERA_SERVER, "handshake-stdio"], process=True)
    assert answered(done) == "42"
    assert sent(events)[:4] == [
        "server/discover",
        "initialize",
        "notifications/initialized",
        "tools/list",
    ]
    note = chosen(events)
    assert note["era"] == "handshake" and note["by"] == "server/discover"
    assert "-32601" in note["answer"] and "falling back to initialize" in note["text"]

    again, events = cli(tmp_path / "2.jsonl", [*ERA_SERVER, "handshake-stdio"], process=True)
    assert answered(again) == "42"
    assert "server/discover" not in sent(events)  # no extra round trip the second time
    assert sent(events)[0] == "initialize"
    assert chosen(events)["by"] == "remembered"


def test_stdio_stateless_only(tmp_path: Path) -> None:
    done, events = cli(tmp_path / "1.jsonl", [*ERA_SERVER, "stateless-stdio"])
    assert answered(done) == "42"
    assert sent(events) == ["server/discover", "tools/list", "tools/call"]
    assert chosen(events)["era"] == "stateless"
    again, events = cli(tmp_path / "2.jsonl", [*ERA_SERVER, "stateless-stdio"])
    assert answered(again) == "42"
    assert sent(events) == ["server/discover", "tools/list", "tools/call"]  # discover opens it
    assert era_notes(events)[0]["remembered"] is True


@pytest.mark.slow
def test_stdio_sdk_speaking_both_is_used_in_the_newest(tmp_path: Path) -> None:
    done, events = cli(tmp_path / "1.jsonl", SDK_STDIO)
    assert answered(done) == "42"
    assert chosen(events)["era"] == "stateless"
    assert "initialize" not in sent(events)
    call = next(e.message for e in events if sent([e]) == ["tools/call"])
    assert call["params"]["_meta"]["io.modelcontextprotocol/protocolVersion"] == "2026-07-28"


def test_stdio_silent_probe_times_out_into_the_handshake(tmp_path: Path) -> None:
    done, events = cli(tmp_path / "1.jsonl", [*ERA_SERVER, "silent-stdio"], "--timeout", "1")
    assert answered(done) == "42"
    note = chosen(events)
    # the probe takes half the opening's time at most; initialize has the rest
    assert note["era"] == "handshake" and "not answered within 0.5 s" in note["answer"]


def test_a_silent_server_fails_within_the_timeout(tmp_path: Path) -> None:
    done, events = cli(tmp_path / "1.jsonl", [*ERA_SERVER, "mute-stdio"], "--timeout", "1")
    assert done.returncode == ExitCode.TIMEOUT, done.stderr
    message = json.loads(done.stderr)["error"]["message"]
    assert "server/discover then initialize: no response within the timeout of 1 s" in message
    assert [m for m in sent(events) if m != "notifications/cancelled"][:2] == [
        "server/discover",
        "initialize",
    ]


@pytest.mark.slow
def test_remembered_handshake_that_fails_is_probed_again(tmp_path: Path) -> None:
    target = [*ERA_SERVER]  # the mode comes from the environment: one remembered target
    done, _ = cli(tmp_path / "1.jsonl", target, env={"ERA_SERVER_MODE": "handshake-stdio"})
    assert answered(done) == "42"
    done, events = cli(tmp_path / "2.jsonl", target, env={"ERA_SERVER_MODE": "stateless-stdio"})
    assert answered(done) == "42"
    assert sent(events)[:3] == ["initialize", "server/discover", "tools/list"]
    steps = [(n["step"], n.get("era"), n.get("by")) for n in era_notes(events)]
    assert steps == [
        ("chosen", "handshake", "remembered"),
        ("probe", None, None),
        ("chosen", "stateless", "server/discover"),
    ]
    done, events = cli(tmp_path / "3.jsonl", target, env={"ERA_SERVER_MODE": "stateless-stdio"})
    assert sent(events)[0] == "server/discover" and "initialize" not in sent(events)


def test_http_handshake_only_refusing_with_a_bare_400(tmp_path: Path) -> None:
    with sdk_server("handshake-http", script="era_server.py") as base:
        done, events = cli(tmp_path / "1.jsonl", [f"{base}/mcp"])
        assert answered(done) == "42"
        assert [m for m in sent(events) if m != "notifications/cancelled"][:2] == [
            "server/discover",
            "initialize",
        ]
        note = chosen(events)
        assert note["era"] == "handshake" and "HTTP 400" in note["answer"]
        # after the refused probe, no stateless header on the handshake
        posts = [e for e in events if e.channel is Channel.HTTP and e.direction is Direction.OUT]
        assert posts[0].meta["headers"].get("MCP-Protocol-Version") == "2026-07-28"
        assert "MCP-Protocol-Version" not in posts[1].meta["headers"]
        again, events = cli(tmp_path / "2.jsonl", [f"{base}/mcp"])
    assert answered(again) == "42"
    assert sent(events)[0] == "initialize" and "server/discover" not in sent(events)


def test_http_stateless_only(tmp_path: Path) -> None:
    with sdk_server("stateless-http", script="era_server.py") as base:
        done, events = cli(tmp_path / "1.jsonl", [f"{base}/mcp"])
    assert answered(done) == "42"
    assert sent(events) == ["server/discover", "tools/list", "tools/call"]
    assert chosen(events)["era"] == "stateless"


@pytest.mark.slow
@pytest.mark.parametrize("mode", ["http", "http-json"])
def test_http_sdk_speaking_both_is_used_in_the_newest(
    mode: str, tmp_path: Path, stateless_url: Callable[[str], str]
) -> None:
    done, events = cli(tmp_path / "1.jsonl", [stateless_url(mode)])  # the worker's (conftest)
    assert answered(done) == "42"
    assert chosen(events)["era"] == "stateless"
    assert "initialize" not in sent(events)


def test_pinned_stateless_refused_says_so(tmp_path: Path) -> None:
    with sdk_server("handshake-http", script="era_server.py") as base:
        done, events = cli(
            tmp_path / "1.jsonl", [f"{base}/mcp"], "--protocol-version", "2026-07-28"
        )
    assert done.returncode == ExitCode.PROTOCOL, done.stderr
    message = json.loads(done.stderr)["error"]["message"]
    assert "refused protocol version 2026-07-28" in message
    assert "try without --protocol-version" in message
    assert sent(events) == ["server/discover"] and not era_notes(events)


@pytest.mark.slow
def test_pinned_handshake_is_not_probed(tmp_path: Path) -> None:
    done, events = cli(tmp_path / "1.jsonl", SDK_STDIO, "--protocol-version", "2025-11-25")
    assert answered(done) == "42"
    assert sent(events)[0] == "initialize" and "server/discover" not in sent(events)


def test_pinned_handshake_refused_by_a_stateless_server_says_how_to_connect(
    tmp_path: Path,
) -> None:
    done, _ = cli(
        tmp_path / "1.jsonl", [*ERA_SERVER, "stateless-stdio"], "--protocol-version", "2025-11-25"
    )
    assert done.returncode == ExitCode.PROTOCOL, done.stderr
    message = json.loads(done.stderr)["error"]["message"]
    assert "refused protocol version 2025-11-25" in message
    assert "--protocol-version 2026-07-28" in message and "without the flag" in message
