"""Requests the recording sent before any was answered are sent together again (each
after the previous is on the wire), then awaited; ids stay remapped, the report keeps
the recorded order."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import anyio
import pytest
from paths import PY, ROOT, SERVERS

from inspector.record.reader import read_session
from inspector.replay.plan import build_plan
from inspector.wire.events import Channel, Direction, WireEvent
from inspector.wire.jsonrpc import encode

sys.path.insert(0, str(SERVERS))
from replay_notify_record import NOTIFY, record_concurrent


@pytest.fixture(scope="module")
def recording(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("concurrent") / "session.jsonl"
    anyio.run(record_concurrent, path)
    return path


@pytest.mark.slow
def test_plan_groups_requests_sent_before_any_answer(recording: Path) -> None:
    plan = build_plan(read_session(recording).events)
    slow, quick, listed = plan.requests
    assert slow.params["arguments"]["label"] == "slow"
    assert slow.group == quick.group == slow.seq
    assert listed.group == listed.seq  # sent after the answers: alone


@pytest.mark.slow
def test_replay_sends_the_group_before_awaiting(recording: Path, tmp_path: Path) -> None:
    replayed = tmp_path / "replayed.jsonl"
    done = subprocess.run(
        [
            PY,
            "-m",
            "inspector",
            "--cli",
            "replay",
            str(recording),
            "--record",
            str(replayed),
            "--against",
            "--",
            PY,
            NOTIFY,
        ],
        capture_output=True,
        text=True,
        timeout=90,
        cwd=ROOT,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    report = json.loads(done.stdout)
    calls = [i for i in report["items"] if i["method"] == "tools/call"]
    assert [i["detail"] for i in calls] == ["pause", "pause"]
    assert [i["seq"] for i in calls] == sorted(i["seq"] for i in calls)
    assert all(i["status"] == "same" for i in report["items"]), report
    assert any("1 group(s)" in note for note in report["notes"])
    # on the live wire: both calls went out before the first answer, with fresh ids
    wire = [
        (e.direction, e.message)
        for e in read_session(replayed).events
        if isinstance(e.message, dict)
    ]
    sent = [m for d, m in wire if d is Direction.OUT and m.get("method") == "tools/call"]
    first_answer = next(
        n
        for n, (d, m) in enumerate(wire)
        if d is Direction.IN and m.get("id") in {s["id"] for s in sent}
    )
    out_before = [
        m for d, m in wire[:first_answer] if d is Direction.OUT and m.get("method") == "tools/call"
    ]
    assert [m["params"]["arguments"]["label"] for m in out_before] == ["slow", "quick"]
    assert len({m["id"] for m in sent}) == 2
    # and the quick one was answered first, as when recorded
    answers = [
        m["id"] for d, m in wire if d is Direction.IN and m.get("id") in {s["id"] for s in sent}
    ]
    assert answers == [sent[1]["id"], sent[0]["id"]]


def _ev(seq: int, direction: Direction, message: dict[str, Any]) -> WireEvent:
    ch = Channel.STDIN if direction is Direction.OUT else Channel.STDOUT
    return WireEvent(direction, ch, encode(message), message=message, seq=seq, mono=seq)


def test_a_group_closes_at_the_first_answer_or_a_notification() -> None:
    out, inn = Direction.OUT, Direction.IN

    def req(seq: int, id_: int) -> WireEvent:
        return _ev(seq, out, {"jsonrpc": "2.0", "id": id_, "method": "ping"})

    def res(seq: int, id_: int) -> WireEvent:
        return _ev(seq, inn, {"jsonrpc": "2.0", "id": id_, "result": {}})

    events = [
        req(1, 1),
        req(2, 2),
        res(3, 1),
        req(4, 3),  # 3 was sent after an answer
        res(5, 2),
        res(6, 3),
        req(7, 4),
        _ev(8, out, {"jsonrpc": "2.0", "method": "notifications/x"}),
        req(9, 5),
        res(10, 4),
        res(11, 5),
    ]
    plan = build_plan(events)
    groups = [s.group for s in plan.steps if not s.notification]
    assert groups == [1, 1, 4, 7, 9]
