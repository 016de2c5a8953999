"""``python -m inspector.demo --http PORT``: the demo over Streamable HTTP on loopback, at
both eras: ``mcp-inspect --cli`` against it, and the conformance suite's server scenarios
the demo's features cover, run at 2025-11-25 and 2026-07-28 (table printed)."""

from __future__ import annotations

import json
import re
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from cli_runner import cli
from paths import PY

from inspector.record.reader import read_session
from inspector.wire.events import Channel, Direction
from tests.conformance import run_server_scenario

# the server scenarios the demo's features cover, at each era (the rest need the suite's
# fixture tools and prompts, or 2026-07-28's subscriptions/listen, which the demo lacks)
COVERED = {
    "2025-11-25": [
        "server-initialize",
        "server-session-lifecycle",
        "logging-set-level",
        "ping",
        "tools-list",
        "resources-list",
        "prompts-list",
        "server-sse-multiple-streams",
        "dns-rebinding-protection",
        "sep-2640-skills-enumeration",
        "sep-2640-skills-manifest",
        "sep-2640-skills-directory",
    ],
    "2026-07-28": [
        "tools-list",
        "resources-list",
        "prompts-list",
        "server-sse-multiple-streams",
        "dns-rebinding-protection",
        "sep-2164-resource-not-found",
        "caching",
        "http-header-validation",
        "sep-2640-skills-enumeration",
        "sep-2640-skills-manifest",
        "sep-2640-skills-directory",
    ],
}


@pytest.fixture
def demo_url(tmp_path: Path) -> Iterator[str]:
    err = tmp_path / "demo.err"
    with err.open("wb") as sink:
        proc = subprocess.Popen([PY, "-m", "inspector.demo", "--http", "0"], stderr=sink)
    try:
        deadline = time.monotonic() + 20
        while not (found := re.search(r"http://127\.0\.0\.1:\d+/mcp", err.read_text())):
            assert proc.poll() is None and time.monotonic() < deadline, err.read_text()
            time.sleep(0.05)
        yield found.group(0)
    finally:
        proc.terminate()
        proc.wait(10)


@pytest.mark.parametrize("version", [None, "2026-07-28", "2025-11-25", "2025-03-26"])
def test_cli_against_the_http_demo_at_each_era(
    demo_url: str, tmp_path: Path, version: str | None
) -> None:
    pinned = ["--protocol-version", version] if version else []
    record = tmp_path / "s.jsonl"
    done = cli(
        "--cli", "--method", "skills/get", "--uri", "skill://git-workflow/SKILL.md",
        *pinned, "--record", str(record), demo_url,
        env={"HOME": str(tmp_path), "XDG_STATE_HOME": str(tmp_path)},
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)
    assert [f["uri"].rsplit("/", 1)[1] for f in out["files"]] == ["SKILL.md", "COMMITS.md"]
    events = read_session(record).events
    sent = [e.message for e in events if e.direction is Direction.OUT and e.channel is Channel.BODY]
    back = [e.message for e in events if e.direction is Direction.IN and e.channel is Channel.BODY]
    stateless = version in (None, "2026-07-28")  # auto finds the newest era
    assert sent[0]["method"] == ("server/discover" if stateless else "initialize")
    results = [m["result"] for m in back if isinstance(m, dict) and "result" in m]
    assert all(("resultType" in r) is stateless for r in results)


def test_errors_are_json_rpc_bodies(demo_url: str) -> None:
    foreign = httpx.post(demo_url, json={}, headers={"Host": "evil.example"})
    assert foreign.status_code == 403 and foreign.json()["error"]["code"] == -32600
    no_session = httpx.post(demo_url, json={"jsonrpc": "2.0", "id": 1, "method": "tools/list"})
    assert no_session.status_code == 400 and no_session.json()["id"] == 1
    removed = httpx.post(
        demo_url,
        json={
            "jsonrpc": "2.0",
            "id": 2,
            "method": "ping",
            "params": {
                "_meta": {
                    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
                    "io.modelcontextprotocol/clientCapabilities": {},
                }
            },
        },
        headers={"MCP-Protocol-Version": "2026-07-28", "Mcp-Method": "ping"},
    )
    assert removed.status_code == 404 and removed.json()["error"]["code"] == -32601


@pytest.mark.slow
def test_server_scenarios_at_both_eras(demo_url: str, capsys: pytest.CaptureFixture[str]) -> None:
    lines, failed = ["conformance 0.2.0-alpha.12: server scenarios against the demo (--http)"], []
    for era, scenarios in COVERED.items():
        for scenario in scenarios:
            result = run_server_scenario(scenario, demo_url, spec_version=era)
            checks = [c for c in result.checks if c.get("status") == "SUCCESS"]
            ok = result.passed and bool(checks)
            lines.append(
                f"  {'PASS' if ok else 'FAIL'}  {era}  {scenario:<32} {len(checks)} checks"
            )
            if not ok:
                failed.append(result.explain())
    with capsys.disabled():
        print("\n" + "\n".join(lines))
    assert not failed, "\n".join(failed)
