"""Replay: a session recorded against a real SDK server, re-run against the same server
(nothing differs, exit 0) and against its changed variant (differences, exit 1). The
command runs in the test process; ``test_same_server_nothing_differs`` runs it as a child
process, end to end."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import anyio
import pytest
from cli_inprocess import cli_inprocess
from cli_runner import cli as run_cli
from paths import PY, ROOT, SERVERS

from inspector.record.format import FORMAT_KEY
from inspector.record.reader import read_session
from inspector.replay.diff import parse_rules
from inspector.replay.plan import build_plan
from inspector.replay.run import ReplayOptions, replay
from inspector.transports.stdio import StdioTransport
from inspector.wire.events import Channel, Direction, WireEvent
from inspector.wire.jsonrpc import encode

sys.path.insert(0, str(SERVERS))
from replay_record import SERVER, record


@pytest.fixture(scope="module")
def recording(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("replay") / "session.jsonl"
    anyio.run(record, path)
    return path


def cli(*args: str, timeout: float = 90) -> subprocess.CompletedProcess[str]:
    """The command in the test process (a replay runs a server and the recording)."""
    return cli_inprocess(*args, timeout=timeout)


def items_by(report: dict[str, Any], method: str, detail: str = "") -> list[dict[str, Any]]:
    return [
        i
        for i in report["items"]
        if i["method"] == method and (not detail or i.get("detail") == detail)
    ]


@pytest.mark.slow
def test_same_server_nothing_differs(recording: Path) -> None:
    done = run_cli("--cli", "replay", str(recording), "--against", "--", PY, SERVER, timeout=90)
    assert done.returncode == 0, done.stderr + done.stdout
    report = json.loads(done.stdout)
    assert report["differs"] is False
    assert report["recording"]["tool"].startswith("mcp-inspect")
    summary = report["summary"]
    assert summary == {"same": 10, "changed": 0, "missing": 0, "new": 0}
    # the elicitation the server sent live was answered from the recording
    (ask,) = items_by(report, "tools/call", "ask")
    assert ask["status"] == "same"
    (elicit,) = items_by(report, "elicitation/create")
    assert elicit["kind"] == "server-request" and elicit["status"] == "same"
    # the recorded error response is compared like a result
    errors = items_by(report, "resources/read", "replay://nothing-here")
    assert errors[0]["status"] == "same"


@pytest.mark.slow
def test_changed_server_differences_exit_1(recording: Path) -> None:
    done = cli(
        "--cli", "replay", str(recording), "--against", "--", PY, SERVER, "--variant", "changed"
    )
    assert done.returncode == 1, done.stderr
    report = json.loads(done.stdout)
    assert report["differs"] is True
    assert report["summary"]["changed"] == 4
    (add,) = items_by(report, "tools/call", "add")
    assert {"path": "$.result.content[0].text", "kind": "changed", "old": "3", "new": "4"} in add[
        "changes"
    ]
    (tools,) = items_by(report, "tools/list")
    # tools pair by name: one removal, not every later tool shifted
    assert len(tools["changes"]) == 1 and tools["changes"][0]["kind"] == "removed"
    assert tools["changes"][0]["old"]["name"] == "only_in_default"
    (elicit,) = items_by(report, "elicitation/create")
    assert elicit["changes"] == [
        {
            "path": "$.params.message",
            "kind": "changed",
            "old": "What is your name?",
            "new": "Your name, please?",
        }
    ]
    assert items_by(report, "tools/call", "echo")[0]["status"] == "same"


@pytest.mark.slow
def test_ignore_rules_keep_fields_out_of_the_verdict(recording: Path) -> None:
    done = cli(
        "--cli",
        "replay",
        str(recording),
        "--against",
        "--ignore",
        "$.result.tools",
        "--ignore",
        "$..text",
        "--ignore",
        "result.structuredContent",
        "--ignore",
        "$.params.message",
        "--",
        PY,
        SERVER,
        "--variant",
        "changed",
    )
    assert done.returncode == 0, done.stdout
    report = json.loads(done.stdout)
    assert report["summary"]["changed"] == 0
    assert items_by(report, "tools/call", "add")[0]["ignoredChanges"] == 2


@pytest.mark.slow
def test_human_report_is_colored_text(recording: Path) -> None:
    done = cli("replay", str(recording), "--against", "--", PY, SERVER, "--variant", "changed")
    assert done.returncode == 1
    out = done.stdout
    assert "changed" in out and "DIFFERENT" in out
    assert '$.result.content[0].text: "3" -> "4"' in out
    assert "tools/call add" in out
    same = cli("replay", str(recording), "--against", "--", PY, SERVER)
    assert same.returncode == 0 and "OK" in same.stdout


def test_connection_failure_exit_3(recording: Path) -> None:
    done = cli("--cli", "replay", str(recording), "--against", "--", "definitely-not-a-command-xyz")
    assert done.returncode == 3
    assert (
        "command not found" in json.loads(done.stderr.strip().splitlines()[-1])["error"]["message"]
    )
    from servers.http_support import dead_port

    done = cli(
        "--cli",
        "replay",
        str(recording),
        "--against",
        f"http://127.0.0.1:{dead_port()}/mcp",
        "--timeout",
        "5",
    )
    assert done.returncode == 3, done.stdout
    error = json.loads(done.stderr.strip().splitlines()[-1])["error"]
    assert error["kind"] == "connection" and "refused" in error["message"]


def test_server_gone_mid_replay_is_missing(recording: Path, tmp_path: Path) -> None:
    """A server that dies after initialize: every recorded answer is missing."""
    script = tmp_path / "dies.py"
    script.write_text(
        "import sys, json\n"
        "line = sys.stdin.readline()\n"
        "msg = json.loads(line)\n"
        "print(json.dumps({'jsonrpc': '2.0', 'id': msg['id'], 'result': {"
        "'protocolVersion': '2025-11-25', 'capabilities': {}, "
        "'serverInfo': {'name': 'dies', 'version': '0'}}}), flush=True)\n"
        "sys.stdin.readline()\n"
        "sys.stdin.readline()\n"
    )
    done = cli("--cli", "replay", str(recording), "--against", "--", PY, str(script))
    assert done.returncode == 1
    report = json.loads(done.stdout)
    assert report["summary"]["missing"] >= 8
    (add,) = items_by(report, "tools/call", "add")
    assert add["status"] == "missing" and "connection" in add["reason"] + json.dumps(report)


def test_missing_and_non_session_files_exit_2(tmp_path: Path) -> None:
    done = cli("--cli", "replay", str(tmp_path / "nope.jsonl"), "--against", "--", PY, SERVER)
    assert done.returncode == 2
    assert "no such file" in json.loads(done.stderr)["error"]["message"]
    other = tmp_path / "notes.txt"
    other.write_text("hello\n")
    done = cli("replay", str(other), "--against", "--", PY, SERVER)
    assert done.returncode == 2 and "not a session header" in done.stderr


def test_newer_format_has_a_clear_message(tmp_path: Path) -> None:
    newer = tmp_path / "newer.jsonl"
    newer.write_text(json.dumps({FORMAT_KEY: 99, "tool": "mcp-inspect 9.0"}) + "\n")
    done = cli("--cli", "replay", str(newer), "--serve")
    assert done.returncode == 2
    message = json.loads(done.stderr)["error"]["message"]
    assert "format 99" in message and "Upgrade mcp-inspect" in message


@pytest.mark.slow
def test_torn_recording_replays_with_a_warning(recording: Path, tmp_path: Path) -> None:
    torn = tmp_path / "torn.jsonl"
    data = recording.read_bytes()
    torn.write_bytes(data[:-25])  # the last line loses its end, as after a crash
    done = cli("--cli", "replay", str(torn), "--against", "--", PY, SERVER)
    assert done.returncode == 0, done.stdout
    warnings = [
        json.loads(line)["warning"]
        for line in done.stderr.splitlines()
        if line.startswith('{"warning"')
    ]
    assert any("torn last line" in w for w in warnings)
    assert any("torn last line" in n for n in json.loads(done.stdout)["notes"])


def test_summary_without_a_mode(recording: Path) -> None:
    done = cli("--cli", "replay", str(recording))
    assert done.returncode == 0
    data = json.loads(done.stdout)
    assert data["requests"] == 8 and data["methods"]["tools/call"] == 4


# -- the plan, in process -------------------------------------------------------------------


def _ev(seq: int, direction: Direction, message: dict[str, Any], mono: float) -> WireEvent:
    ch = Channel.STDIN if direction is Direction.OUT else Channel.STDOUT
    return WireEvent(direction, ch, encode(message), message=message, seq=seq, mono=mono)


def test_plan_pairs_cancels_and_notifications() -> None:
    out, inn = Direction.OUT, Direction.IN
    events = [
        _ev(1, out, {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {}}, 0.0),
        _ev(2, inn, {"jsonrpc": "2.0", "id": 1, "result": {"protocolVersion": "x"}}, 0.1),
        _ev(3, out, {"jsonrpc": "2.0", "method": "notifications/initialized"}, 0.2),
        _ev(
            4,
            out,
            {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "slow"}},
            1.0,
        ),
        _ev(5, out, {"jsonrpc": "2.0", "id": "a", "method": "ping"}, 1.1),
        _ev(6, inn, {"jsonrpc": "2.0", "id": "a", "result": {}}, 1.2),
        _ev(
            7,
            out,
            {"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 2}},
            3.5,
        ),
        _ev(8, inn, {"jsonrpc": "2.0", "id": 2, "result": {"late": True}}, 4.0),
        _ev(9, out, {"jsonrpc": "2.0", "method": "notifications/roots/list_changed"}, 5.0),
        _ev(10, inn, {"jsonrpc": "2.0", "id": 0, "method": "roots/list"}, 5.1),
        _ev(11, out, {"jsonrpc": "2.0", "id": 0, "result": {"roots": []}}, 5.2),
        WireEvent(out, Channel.STDIN, b"not json {", error="not JSON", seq=12),
        WireEvent(out, Channel.HTTP, b"POST http://x/mcp", seq=13),
        WireEvent(Direction.LOCAL, Channel.SYSTEM, b"closed", seq=14),
    ]
    plan = build_plan(events)
    assert plan.unsent == 1
    assert plan.initialize is not None and plan.initialize.response is not None
    assert [s.method for s in plan.steps] == [
        "tools/call",
        "ping",
        "notifications/roots/list_changed",
    ]
    slow, ping, note = plan.steps
    assert slow.response is None and slow.waited == pytest.approx(2.5)  # the late answer
    assert ping.response == {"jsonrpc": "2.0", "id": "a", "result": {}}
    assert note.notification
    (exchange,) = plan.server_requests
    assert exchange.method == "roots/list" and exchange.answer is not None


@pytest.mark.slow
async def test_replay_in_process_renews_progress_tokens(recording: Path) -> None:
    """The recorded progress token is not reused: the session makes a fresh one and the
    server's progress notifications carry it."""
    plan = build_plan(read_session(recording).events)
    steps = next(s for s in plan.steps if s.params and s.params.get("name") == "steps")
    assert "progressToken" in steps.params["_meta"]
    seen: list[WireEvent] = []

    class Keep:
        def write(self, event: WireEvent) -> None:
            seen.append(event)

    with anyio.fail_after(30):
        report = await replay(
            plan,
            StdioTransport(PY, [SERVER]),
            ReplayOptions(rules=parse_rules([]), timeout=20),
            Keep(),
        )
    assert not report.differs, report.to_json()
    progress = [e.message for e in seen if e.method == "notifications/progress"]
    assert len(progress) == 3
    sent = next(
        e.message
        for e in seen
        if e.method == "tools/call" and e.message["params"]["name"] == "steps"
    )
    token = sent["params"]["_meta"]["progressToken"]
    assert all(p["params"]["progressToken"] == token for p in progress)


# -- the bundled demo server and its changed variant, recorded with --cli --record ----------


@pytest.fixture(scope="module")
def demo_recordings(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    folder = tmp_path_factory.mktemp("demo")
    calls = {
        "list": ("--method", "tools/list"),
        "add": (
            "--method",
            "tools/call",
            "--tool-name",
            "add",
            "--tool-arg",
            "a=2",
            "--tool-arg",
            "b=3",
        ),
    }
    paths = {}
    for name, args in calls.items():
        path = folder / f"{name}.jsonl"
        done = cli("--cli", "--record", str(path), *args, "--", PY, "-m", "inspector.demo")
        assert done.returncode == 0, done.stderr
        paths[name] = path
    return paths


@pytest.mark.slow
def test_demo_recording_replays_clean(demo_recordings: dict[str, Path]) -> None:
    for path in demo_recordings.values():
        done = cli("--cli", "replay", str(path), "--against", "--", PY, "-m", "inspector.demo")
        assert done.returncode == 0, done.stdout
        report = json.loads(done.stdout)
        assert report["summary"]["changed"] == 0 and report["summary"]["same"] >= 2


@pytest.mark.slow
def test_demo_changed_variant_is_caught(demo_recordings: dict[str, Path]) -> None:
    done = cli(
        "--cli",
        "replay",
        str(demo_recordings["add"]),
        "--against",
        "--",
        PY,
        "-m",
        "inspector.demo",
        "--variant",
        "changed",
    )
    assert done.returncode == 1
    report = json.loads(done.stdout)
    (init,) = items_by(report, "initialize")
    assert init["changes"][0]["path"] == "$.result.serverInfo.version"
    (add,) = items_by(report, "tools/call", "add")
    assert add["changes"] == [
        {"path": "$.result.content[0].text", "kind": "changed", "old": "2 + 3 = 5", "new": "sum: 5"}
    ]
    done = cli(
        "replay",
        str(demo_recordings["list"]),
        "--against",
        "--",
        PY,
        "-m",
        "inspector.demo",
        "--variant",
        "changed",
    )
    assert done.returncode == 1 and "legacy_search" in done.stdout


@pytest.mark.slow
def test_http_recording_replays_against_the_url(tmp_path: Path, sdk_sse_base: str) -> None:
    """Recorded over Streamable HTTP (SSE responses), replayed against the same URL:
    HTTP status lines and session ids stay out of the comparison."""

    path = tmp_path / "http.jsonl"
    base = sdk_sse_base  # the worker's shared server (conftest)
    url = base + "/mcp"
    done = cli(
        "--cli",
        "--record",
        str(path),
        "--method",
        "tools/call",
        "--tool-name",
        "add",
        "--tool-arg",
        "a=20",
        "--tool-arg",
        "b=22",
        url,
    )
    assert done.returncode == 0, done.stderr
    assert '"ch": "http"' in path.read_text()
    done = cli("--cli", "replay", str(path), "--against", url)
    assert done.returncode == 0, done.stdout + done.stderr
    report = json.loads(done.stdout)
    # the SDK speaks both eras: recorded (and replayed) in the newest, 2026-07-28
    methods = [i["method"] for i in report["items"]]
    assert methods == ["server/discover", "tools/list", "tools/call"]


@pytest.mark.slow
def test_volatile_ids_are_mapped_and_cancelled_requests_cancelled(tmp_path: Path) -> None:
    """The server hands out a new task id on each run: the recorded one is mapped to the
    live one in later params. The request the user cancelled is cancelled again."""
    from replay_record import TASKS, record_tasks

    path = tmp_path / "tasks.jsonl"
    anyio.run(record_tasks, path)
    plan = build_plan(read_session(path).events)
    slow = next(s for s in plan.steps if s.params.get("name") == "slow")
    assert slow.response is None and slow.waited is not None and 0.25 <= slow.waited < 5
    replayed = tmp_path / "replayed.jsonl"
    done = cli(
        "--cli", "replay", str(path), "--record", str(replayed), "--against", "--", PY, TASKS
    )
    assert done.returncode == 0, done.stdout
    report = json.loads(done.stdout)
    assert items_by(report, "tools/call", "status")[0]["status"] == "same"
    assert items_by(report, "tools/call", "slow")[0]["reason"].startswith("unanswered")
    # the replay was recorded too: it sent the live task id and a cancel for slow
    events = read_session(replayed).events
    start = next(e.message for e in events if e.message and "taskId" in e.message.get("result", {}))
    status = next(
        e.message
        for e in events
        if e.method == "tools/call" and e.message["params"]["name"] == "status"
    )
    assert status["params"]["arguments"]["taskId"] == start["result"]["taskId"]
    assert any(e.method == "notifications/cancelled" for e in events)
    # without the ignore rule the id is a difference and is not mapped
    done = cli(
        "--cli",
        "replay",
        str(path),
        "--no-default-ignores",
        "--ignore",
        "$.id",
        "--against",
        "--",
        PY,
        TASKS,
    )
    assert done.returncode == 1
    report = json.loads(done.stdout)
    assert items_by(report, "tools/call", "status")[0]["status"] == "changed"


def test_human_report_shows_server_text_literally() -> None:
    import io

    from rich.console import Console

    from inspector.commands.replay_report import print_report

    hostile = "\x1b[2J[bold red]boom[/]\u202e"
    data = {
        "file": "f.jsonl",
        "target": "t",
        "server": {"name": hostile, "version": "1"},
        "summary": {"same": 0, "changed": 1, "missing": 0, "new": 0},
        "differs": True,
        "notes": [hostile],
        "items": [
            {
                "kind": "request",
                "method": hostile,
                "seq": 4,
                "status": "changed",
                "detail": hostile,
                "reason": hostile,
                "changes": [
                    {"path": f'$["{hostile}"]', "kind": "changed", "old": hostile, "new": 1}
                ],
            }
        ],
    }
    buffer = io.StringIO()
    print_report(data, Console(file=buffer, force_terminal=True, width=300))
    text = buffer.getvalue()
    assert "\x1b[2J" not in text and "\u202e" not in text
    assert "␛[2J[bold red]boom[/]\\u202e" in text


def test_headless_modules_do_not_import_textual() -> None:
    code = (
        "import sys, inspector.commands.replay_report, inspector.record.indexed, "
        "inspector.replay.serve, inspector.replay.run, inspector.replay.diff; "
        "import io; from rich.console import Console; "
        "from inspector.commands.replay_report import print_report; "
        "print_report({'file': 'f', 'target': 't', 'items': [], 'differs': False, "
        "'summary': dict.fromkeys(['same', 'changed', 'missing', 'new'], 0)}, "
        "Console(file=io.StringIO())); "
        "print('textual' in sys.modules)"
    )
    done = subprocess.run([PY, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=60)
    assert done.stdout.strip() == "False", done.stderr
