"""``replay --against`` compares a paginated listing by name: one tool removed on page 1
is one removal, not a change on every later page (diff_server.py lists two a page). The
CLI runs in the test process; as a child process, end to end, in the last test."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from cli_inprocess import cli_inprocess
from cli_runner import cli
from paths import DATA, PY, SERVERS

from inspector.record.reader import iter_events
from inspector.replay.plan import build_plan

SERVER = str(SERVERS / "diff_server.py")


@pytest.fixture(scope="module")
def recording(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("rec") / "old.jsonl"
    done = cli_inprocess(
        "--cli", "--method", "tools/list", "--record", str(path), "--", PY, SERVER, "old"
    )
    assert done.returncode == 0, done.stderr
    return path


def replay(path: Path, variant: str, *more: str) -> tuple[int, dict[str, Any]]:
    done = cli_inprocess(
        "--cli", "replay", str(path), *more, "--against", "--", PY, SERVER, variant
    )
    assert done.returncode in (0, 1), done.stderr
    return done.returncode, json.loads(done.stdout)


def listings(report: dict[str, Any]) -> list[dict[str, Any]]:
    return [item for item in report["items"] if item["method"] == "tools/list"]


@pytest.mark.slow
def test_the_recording_has_several_pages(recording: Path) -> None:
    steps = build_plan(iter_events(recording, [])).requests
    assert [s.method for s in steps] == ["tools/list"] * 3
    assert [(s.params or {}).get("cursor") for s in steps] == [None, "2", "4"]


def test_a_listing_is_one_item_compared_by_name(recording: Path) -> None:
    code, report = replay(recording, "new")
    assert code == 1
    [item] = listings(report)  # one item for three recorded pages
    assert item["status"] == "changed"
    assert "3 recorded page(s), 3 live" in item["reason"]
    got = {(c["path"], c["rule"], c["level"]) for c in item["changes"] if "rule" in c}
    golden = json.loads((DATA / "diff" / "old-new.json").read_text())["differences"]
    expected = {
        (d["path"].replace("$.tools", "$.result.tools", 1), d["rule"], d["level"])
        for d in golden
        if d["path"].startswith("$.tools")
    }
    assert got == expected  # the same classification as diff, nothing per page
    assert ("$.result.tools.legacy", "item-removed", "breaking") in got


@pytest.mark.slow
def test_the_same_server_is_the_same_whatever_the_pages(recording: Path) -> None:
    code, report = replay(recording, "old")
    assert code == 0
    [item] = listings(report)
    assert item["status"] == "same" and "changes" not in item


@pytest.mark.slow
def test_ignore_paths_apply_to_named_items(recording: Path) -> None:
    _, report = replay(recording, "new", "--ignore", "$.result.tools[*].description")
    [item] = listings(report)
    assert not [c for c in item["changes"] if c["path"].endswith(".description")]
    assert item["ignoredChanges"] >= 1


@pytest.mark.slow
def test_a_live_listing_that_fails_is_changed(tmp_path: Path) -> None:
    path = tmp_path / "templates.jsonl"
    done = cli(
        "--cli", "--method", "resources/templates/list", "--record", str(path),
        "--", PY, SERVER, "old",
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    code, report = replay(path, "new")  # NEW's templates list answers an error
    assert code == 1
    [item] = [i for i in report["items"] if i["method"] == "resources/templates/list"]
    assert item["status"] == "changed" and item["reason"] == "the live listing failed"
    assert item["live"]["error"]["message"] == "templates are down"
