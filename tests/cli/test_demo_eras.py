"""The demo speaks 2026-07-28 as well as the handshake eras (``--eras all``): ``mcp-inspect
--cli`` against it at each era, over stdio, with what each era requires on the wire."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
from cli_runner import cli
from paths import PY

from inspector.record.reader import read_session
from inspector.wire.events import Channel, Direction

BOTH = [PY, "-m", "inspector.demo", "--eras", "all"]
ENVELOPE = "io.modelcontextprotocol/protocolVersion"


def wire(path: Path) -> tuple[list[dict], list[dict]]:  # type: ignore[type-arg]
    """(messages sent, messages received) of a recording."""
    events = read_session(path).events
    out = [e.message for e in events if e.direction is Direction.OUT and e.channel is Channel.STDIN]
    back = [
        e.message for e in events if e.direction is Direction.IN and e.channel is Channel.STDOUT
    ]
    return [m for m in out if isinstance(m, dict)], [m for m in back if isinstance(m, dict)]


@pytest.mark.parametrize("version", [None, "2026-07-28", "2025-11-25", "2025-06-18", "2024-11-05"])
def test_cli_against_the_demo_at_each_era(tmp_path: Path, version: str | None) -> None:
    record = tmp_path / "s.jsonl"
    pinned = ["--protocol-version", version] if version else []
    done = cli(
        "--cli", "--method", "tools/call", "--tool-name", "echo", "--tool-arg", "message=hi",
        *pinned, "--record", str(record), "--", *BOTH,
        env={"XDG_STATE_HOME": str(tmp_path), "HOME": str(tmp_path), "PATH": "/usr/bin:/bin"},
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["content"] == [{"type": "text", "text": "hi"}]
    sent, received = wire(record)
    methods = [m.get("method") for m in sent]
    results = [m["result"] for m in received if "result" in m]
    if version in (None, "2026-07-28"):  # auto finds the newest era the demo speaks
        assert "initialize" not in methods and methods[0] == "server/discover"
        assert all(m["params"]["_meta"][ENVELOPE] == "2026-07-28" for m in sent if "id" in m)
        assert all(r["resultType"] == "complete" for r in results)
        listed = next(r for r in results if "tools" in r)
        assert listed["ttlMs"] == 0 and listed["cacheScope"] == "private"
    else:
        assert methods[0] == "initialize" and "server/discover" not in methods
        assert results[0]["protocolVersion"] == version
        assert not any("resultType" in r for r in results)


def test_a_version_the_demo_does_not_serve_is_32022() -> None:
    line = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "tools/list",
        "params": {
            "_meta": {ENVELOPE: "2099-01-01", "io.modelcontextprotocol/clientCapabilities": {}}
        },
    }
    done = subprocess.run(
        BOTH, input=json.dumps(line) + "\n", capture_output=True, text=True, timeout=30
    )
    answer = json.loads(done.stdout.splitlines()[0])
    assert answer["error"]["code"] == -32022
    assert "2026-07-28" in answer["error"]["data"]["supported"]


def test_the_default_demo_stays_in_the_handshake_era() -> None:
    line = {"jsonrpc": "2.0", "id": 1, "method": "server/discover", "params": {}}
    done = subprocess.run(
        [PY, "-m", "inspector.demo"],
        input=json.dumps(line) + "\n",
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert json.loads(done.stdout.splitlines()[0])["error"]["code"] == -32601
