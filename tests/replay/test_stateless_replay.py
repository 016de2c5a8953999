"""Replaying a recording made in the 2026-07-28 stateless era: the plan opens with
server/discover, the live run speaks the recording's version, a multi-round-trip call is
one exchange answered from the recorded inputResponses, ``--serve`` answers a stateless
client (and tells a handshake client how to connect), and the offline TUI rebuilds the
server info from the discover answer. Real official-SDK server over stdio."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import anyio
import pytest
from cli_inprocess import cli_inprocess
from cli_runner import cli as run_cli
from paths import PY, SERVERS
from tui_helpers import plain, wait_for

from inspector.record.indexed import IndexedSessionFile
from inspector.record.reader import read_session
from inspector.replay.diff import diff, parse_rules
from inspector.replay.plan import build_plan
from inspector.replay.recorded_catalog import rebuild_catalog
from inspector.replay.run import ReplayOptions, replay
from inspector.transports.stdio import StdioTransport
from inspector.tui.app import InspectorApp
from inspector.tui.widgets.catalog import Catalog
from inspector.tui.widgets.status_bar import StatusBar

SERVER = str(SERVERS / "stateless_server.py")
STATELESS = ("--protocol-version", "2026-07-28")


def cli(*args: str, timeout: float = 90) -> subprocess.CompletedProcess[str]:
    """The command in the test process (a replay runs a server and the recording)."""
    return cli_inprocess(*args, timeout=timeout)


def record(path: Path, *args: str) -> Path:
    done = cli("--cli", "--record", str(path), *STATELESS, *args, "--", PY, SERVER, "stdio")
    assert done.returncode == 0, done.stderr
    return path


@pytest.fixture(scope="module")
def listing(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return record(tmp_path_factory.mktemp("sl") / "list.jsonl", "--method", "tools/list")


@pytest.fixture(scope="module")
def mrtr(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """``think`` asks for a sampling answer inside an input_required result."""
    return record(
        tmp_path_factory.mktemp("sl") / "think.jsonl",
        "--on-sample",
        "forty-two",
        "--method",
        "tools/call",
        "--tool-name",
        "think",
    )


@pytest.mark.slow
def test_plan_opens_with_discover_in_the_recorded_era(listing: Path) -> None:
    plan = build_plan(read_session(listing).events)
    assert plan.stateless and plan.initialize is not None
    assert plan.initialize.method == "server/discover"
    assert plan.protocol_version == "2026-07-28"
    options = plan.session_options()
    assert options["protocol_version"] == "2026-07-28"
    assert options["client_info"]["name"] == "mcp-inspect"
    assert [s.method for s in plan.requests] == ["tools/list"]


@pytest.mark.slow
def test_replay_against_the_server_opens_statelessly(listing: Path) -> None:
    done = run_cli(  # a child process, end to end
        "--cli", "replay", str(listing), "--against", "--", PY, SERVER, "stdio", timeout=90
    )
    assert done.returncode == 0, done.stderr + done.stdout
    report = json.loads(done.stdout)
    assert report["differs"] is False
    assert [i["method"] for i in report["items"]] == ["server/discover", "tools/list"]
    assert report["server"]["name"] == "sdk-stateless-server"
    assert any("stateless recording" in note for note in report["notes"])


@pytest.mark.slow
async def test_mrtr_retries_are_one_exchange_answered_from_the_recording(mrtr: Path) -> None:
    plan = build_plan(read_session(mrtr).events)
    calls = [s for s in plan.requests if s.method == "tools/call"]
    assert len(calls) == 2 and calls[1].retry and not calls[0].retry
    assert calls[0].settled is not None and calls[0].settled is calls[1].response
    (answer,) = plan.input_answers
    assert answer.method == "sampling/createMessage"
    with anyio.fail_after(30):
        report = await replay(
            plan,
            StdioTransport(PY, [SERVER, "stdio"]),
            ReplayOptions(rules=parse_rules([]), timeout=20),
        )
    assert not report.differs, report.to_json()
    (item,) = [i for i in report.items if i.method == "tools/call"]
    # the live server's sampling request was answered with the recorded reply
    assert item.live["result"]["structuredContent"] == {"result": "forty-two"}
    assert item.recorded["result"]["resultType"] == "complete"


def test_envelope_and_request_state_are_volatile() -> None:
    rules = parse_rules([])
    a = {
        "params": {
            "_meta": {
                "io.modelcontextprotocol/clientInfo": {"name": "a"},
                "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            },
            "requestState": "abc",
        }
    }
    b = {
        "params": {
            "_meta": {
                "io.modelcontextprotocol/clientInfo": {"name": "b"},
                "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            },
            "requestState": "xyz",
        }
    }
    assert diff(a, b, rules).same
    assert not diff({"_meta": {"other": 1}}, {"_meta": {"other": 2}}, rules).same


@pytest.mark.parametrize("fixture", ["listing", "mrtr"])
def test_serve_answers_a_stateless_client(fixture: str, request: pytest.FixtureRequest) -> None:
    path: Path = request.getfixturevalue(fixture)
    done = cli(
        "--cli",
        "replay",
        str(path),
        "--against",
        "--",
        PY,
        "-m",
        "inspector",
        "replay",
        str(path),
        "--serve",
    )
    assert done.returncode == 0, done.stderr + done.stdout
    report = json.loads(done.stdout)
    assert report["differs"] is False
    # the opening, then the calls (a --cli tools/call lists the tools first)
    methods = [item["method"] for item in report["items"]]
    assert methods == [
        "server/discover",
        "tools/list",
        *(["tools/call"] if fixture == "mrtr" else []),
    ]


@pytest.mark.slow
def test_serve_answers_a_client_of_either_era(listing: Path) -> None:
    serve = ["--", PY, "-m", "inspector", "replay", str(listing), "--serve"]
    # no --protocol-version: the probe is answered from the recorded server/discover
    found = cli("--cli", "--method", "tools/list", *serve)
    assert found.returncode == 0, found.stderr
    # a handshake client: initialize answered from the recorded discover, results
    # without the stateless-only fields
    pinned = cli("--cli", "--protocol-version", "2025-11-25", "--method", "tools/list", *serve)
    assert pinned.returncode == 0, pinned.stderr
    assert json.loads(pinned.stdout) == json.loads(found.stdout)
    done = cli("--cli", "--protocol-version", "2025-11-25", "--method", "initialize", *serve)
    result = json.loads(done.stdout)
    assert result["protocolVersion"] == "2025-11-25"
    assert result["serverInfo"]["name"] == "sdk-stateless-server"
    assert "resultType" not in result


def test_summary_names_the_era(listing: Path) -> None:
    done = cli("--cli", "replay", str(listing))
    data = json.loads(done.stdout)
    assert data["protocolVersion"] == "2026-07-28" and data["stateless"] is True


def test_recorded_catalog_from_discover(listing: Path) -> None:
    source = IndexedSessionFile(listing)
    try:
        catalog = rebuild_catalog(source)
    finally:
        source.close()
    assert catalog.stateless and catalog.initialize is not None
    assert catalog.initialize["serverInfo"]["name"] == "sdk-stateless-server"
    assert catalog.initialize["protocolVersion"] == "2026-07-28"
    assert catalog.initialize["capabilities"]["tools"] == {"listChanged": True}
    assert {t["name"] for t in catalog.lists["tools"]} >= {"add", "greet"}


@pytest.mark.slow
async def test_offline_tui_replay_of_a_stateless_recording(listing: Path) -> None:
    source = IndexedSessionFile(listing)
    app = InspectorApp(None, source=source, replay_title=listing.name)
    try:
        async with app.run_test(size=(150, 45)) as pilot:
            catalog = app.query_one(Catalog)
            await wait_for(
                pilot, lambda: any(t.get("name") == "add" for t in catalog.items["tools"])
            )
            bar = app.query_one(StatusBar)
            await wait_for(pilot, lambda: "sdk-stateless-server" in bar.server)
            text = plain(bar.render())
            assert "protocol 2026-07-28 stateless (no session)" in text, text
            await pilot.pause()
    finally:
        source.close()
