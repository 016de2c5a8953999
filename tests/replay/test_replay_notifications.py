"""Replay compares each request's server notifications (progress, logging) as their own
part of the verdict: by method sequence (default), strictly, or not at all."""

from __future__ import annotations

import io
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import anyio
import pytest
from cli_inprocess import cli_inprocess
from paths import PY, SERVERS

from inspector.record.reader import read_session
from inspector.replay.diff import parse_rules
from inspector.replay.notices import Attributor, compare, sequence
from inspector.replay.plan import build_plan

sys.path.insert(0, str(SERVERS))
from replay_notify_record import NOTIFY, record_demo, record_notify


@pytest.fixture(scope="module")
def recording(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("notify") / "session.jsonl"
    anyio.run(record_notify, path)
    return path


def cli(*args: str) -> subprocess.CompletedProcess[str]:
    """The command in the test process (a replay runs a server and the recording);
    end to end as a child process in tests/replay/test_replay.py."""
    return cli_inprocess(*args, timeout=90)


def item(report: dict[str, Any], detail: str) -> dict[str, Any]:
    (found,) = [i for i in report["items"] if i.get("detail") == detail]
    return found


def replay_json(recording: Path, *args: str, variant: str = "default") -> tuple[int, Any]:
    done = cli(
        "--cli",
        "replay",
        str(recording),
        *args,
        "--against",
        "--",
        PY,
        NOTIFY,
        "--variant",
        variant,
    )
    assert done.returncode in (0, 1), done.stderr
    return done.returncode, json.loads(done.stdout)


@pytest.mark.slow
def test_plan_files_notifications_under_their_request(recording: Path) -> None:
    plan = build_plan(read_session(recording).events)
    work, chatty, listed = plan.requests
    assert [m["method"] for m in work.notifications] == [
        "notifications/message",
        *["notifications/progress"] * 3,
        "notifications/message",
    ]
    assert [m["params"]["data"] for m in chatty.notifications] == ["first", "second"]
    assert listed.notifications == []


@pytest.mark.slow
def test_same_server_methods_same_values_volatile(recording: Path) -> None:
    code, report = replay_json(recording)
    assert code == 0, report
    work = item(report, "work")
    # the log's "at" is a new time on each run: reported, not counted
    assert work["status"] == "same"
    assert work["notifications"]["status"] == "volatile"
    assert [c["path"] for c in work["notifications"]["changes"]] == ["$.params.data.at"]
    assert item(report, "chatty")["notifications"]["status"] == "same"
    (listed,) = [i for i in report["items"] if i["method"] == "tools/list"]
    assert "notifications" not in listed  # none recorded, none live
    assert report["notifications"] == {"mode": "methods", "same": 1, "changed": 0, "volatile": 1}


@pytest.mark.slow
def test_changed_server_method_sequence_counts(recording: Path) -> None:
    code, report = replay_json(recording, variant="changed")
    assert code == 1
    chatty = item(report, "chatty")
    assert chatty["status"] == "changed" and "changes" not in chatty  # the answer is the same
    assert chatty["reason"] == "the server's notifications differ"
    notes = chatty["notifications"]
    assert notes["sequenceDiffers"] is True and notes["status"] == "changed"
    assert notes["recorded"] == ["notifications/message"] * 2
    assert notes["live"] == ["notifications/message"]
    assert {
        "index": 1,
        "method": "notifications/message",
        "path": "$",
        "kind": "removed",
        "old": {"level": "warning", "data": "second"},
    } in notes["changes"]
    # other progress numbers are volatile values in the default mode
    work = item(report, "work")
    assert work["status"] == "same" and work["notifications"]["status"] == "volatile"
    assert {
        "index": 2,
        "method": "notifications/progress",
        "path": "$.params.progress",
        "kind": "changed",
        "old": 2,
        "new": 20,
    } in work["notifications"]["changes"]


@pytest.mark.slow
def test_strict_counts_values_and_ignore_rules_apply(recording: Path) -> None:
    code, report = replay_json(recording, "--notifications", "strict")
    assert code == 1  # the log's timestamp counts now
    assert item(report, "work")["notifications"]["status"] == "changed"
    code, report = replay_json(
        recording, "--notifications", "strict", "--ignore", "$.params.data.at"
    )
    assert code == 0, report
    work = item(report, "work")["notifications"]
    assert work["status"] == "same" and work["ignoredChanges"] == 1
    code, report = replay_json(
        recording, "--notifications", "strict", "--ignore", "$.params.data.at", variant="changed"
    )
    assert item(report, "work")["status"] == "changed"


@pytest.mark.slow
def test_ignore_mode_leaves_notifications_out(recording: Path) -> None:
    code, report = replay_json(recording, "--notifications", "ignore", variant="changed")
    assert code == 0, report
    assert all("notifications" not in i for i in report["items"])
    assert report["notifications"]["mode"] == "ignore"


@pytest.mark.slow
def test_human_report_shows_the_notifications_part(recording: Path) -> None:
    done = cli("replay", str(recording), "--against", "--", PY, NOTIFY, "--variant", "changed")
    assert done.returncode == 1
    out = done.stdout
    assert "notifications: changed  recorded message x2  live message" in out
    assert "notifications: values differ (not counted)" in out
    assert "notifications/progress#2 $.params.progress: 2 -> 20" in out
    assert "notifications (methods): 1 changed" in out
    bad = cli("replay", str(recording), "--notifications", "loud", "--against", "--", PY, NOTIFY)
    assert bad.returncode == 2 and "invalid choice" in bad.stderr


def test_demo_server_logs_and_progress(tmp_path: Path) -> None:
    path = tmp_path / "demo.jsonl"
    anyio.run(record_demo, path)
    for variant in ("default", "changed"):
        # slow_count's answer names the time it took: not this test's business
        done = cli(
            "--cli",
            "replay",
            str(path),
            "--ignore",
            "$.result.content",
            "--against",
            "--",
            PY,
            "-m",
            "inspector.demo",
            "--variant",
            variant,
        )
        report = json.loads(done.stdout)
        burst = item(report, "log_burst")
        assert burst["notifications"]["status"] == "same", burst
        assert set(burst["notifications"]["live"]) == {"notifications/message"}
        count = item(report, "slow_count")
        assert count["notifications"]["live"] == ["notifications/progress"] * 3
        assert count["status"] == "same", count
    assert done.returncode == 1  # the changed variant differs elsewhere (its version)


# -- in process ---------------------------------------------------------------------------


def _note(method: str, **params: Any) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "method": method, "params": params}


def test_attributor_progress_by_token_rest_to_the_oldest_in_flight() -> None:
    notes = Attributor()
    notes.request(1, "a", {"_meta": {"progressToken": "t1"}})
    notes.request(2, "b", {})
    notes.notification(_note("notifications/message", data="x"))
    notes.finished(1)
    notes.notification(_note("notifications/progress", progressToken="t1", progress=1))
    notes.notification(_note("notifications/progress", progressToken="zz", progress=1))
    notes.notification(_note("notifications/tools/list_changed"))
    notes.finished(2)
    notes.notification(_note("notifications/message", data="after"))
    assert [m["method"] for m in notes.of("a")] == [
        "notifications/message",
        "notifications/progress",
    ]
    assert [m["method"] for m in notes.of("b")] == ["notifications/tools/list_changed"]


def test_compare_modes() -> None:
    rules = parse_rules([])
    rec = [_note("notifications/progress", progress=i) for i in range(3)]
    live = [_note("notifications/progress", progress=i) for i in range(2)]
    assert sequence(rec, "methods") == ["notifications/progress"]
    methods = compare(rec, live, "methods", rules)
    assert methods is not None and methods.status == "volatile"
    strict = compare(rec, live, "strict", rules)
    assert strict is not None and strict.status == "changed" and strict.sequence_differs
    assert compare(rec, live, "ignore", rules) is None
    assert compare([], [], "strict", rules) is None
    logged = compare([], [_note("notifications/message", data=1)], "methods", rules)
    assert logged is not None and logged.status == "changed"


def test_report_text_stays_literal() -> None:
    from rich.console import Console

    from inspector.commands.replay_report import print_report

    hostile = "\x1b[2J[bold]x[/]"
    data = {
        "file": "f",
        "target": "t",
        "differs": True,
        "notes": [],
        "summary": {"same": 0, "changed": 1, "missing": 0, "new": 0},
        "notifications": {"mode": "methods", "changed": 1, "volatile": 0},
        "items": [
            {
                "kind": "request",
                "method": "m",
                "seq": 1,
                "status": "changed",
                "notifications": {
                    "status": "changed",
                    "sequenceDiffers": True,
                    "recorded": [hostile],
                    "live": [],
                    "changes": [
                        {
                            "index": 0,
                            "method": hostile,
                            "path": "$",
                            "kind": "removed",
                            "old": hostile,
                        }
                    ],
                },
            }
        ],
    }
    buffer = io.StringIO()
    print_report(data, Console(file=buffer, force_terminal=True, width=300))
    assert "\x1b[2J" not in buffer.getvalue() and "␛[2J[bold]x[/]" in buffer.getvalue()


async def test_serve_sends_the_recorded_notifications_before_each_answer(recording: Path) -> None:
    """``replay --serve``: the progress (with the live request's own token) and the log
    messages recorded while a call was answered reach the client before its result."""
    from inspector.engine.client import McpClient
    from inspector.engine.session import Session
    from inspector.transports.stdio import StdioTransport

    transport = StdioTransport(PY, ["-m", "inspector", "replay", str(recording), "--serve"])
    progress: list[tuple[float, float | None]] = []
    logs: list[Any] = []
    order: list[str] = []
    with anyio.fail_after(30):
        async with Session(transport, timeout=20) as session:
            session.on_notification("notifications/message", lambda p: logs.append(p["data"]))
            session.on_notification("notifications/message", lambda p: order.append("log"))
            await session.initialize()
            client = McpClient(session)
            result = await client.call_tool(
                "work", {"count": 3}, on_progress=lambda p, t, m: progress.append((p, t))
            )
            order.append("result")
            plain = await client.call_tool("chatty", {})  # no progress asked: none comes
    assert result["content"][0]["text"] == "worked 3"
    assert progress == [(1.0, 3.0), (2.0, 3.0), (3.0, 3.0)]
    assert logs[0] == "work starting" and logs[1]["done"] is True
    assert logs[2:] == ["first", "second"] and plain["content"][0]["text"] == "talked"
    assert order[:3] == ["log", "log", "result"]  # before the answer, as recorded
