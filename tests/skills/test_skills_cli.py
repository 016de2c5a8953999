"""``mcp-inspect --cli --method skills/list|skills/get`` against the demo server and a
demo whose skill files were changed after their entries were made. The CLI runs in the
test process; as a child process, end to end, in the first test."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from cli_inprocess import cli_inprocess
from cli_runner import cli
from paths import PY, TESTS

from inspector.record.reader import read_session
from inspector.skills.entry import digest_of
from inspector.wire.events import Channel, Direction, WireEvent

DEMO = [PY, "-m", "inspector.demo"]
TAMPERED = [PY, str(TESTS / "servers" / "skills_tampered.py")]
GIT = "skill://git-workflow/SKILL.md"
COMMITS = "skill://git-workflow/references/COMMITS.md"


def sent(events: list[WireEvent]) -> list[tuple[str, str | None]]:
    """(method, params.uri) of each request sent."""
    return [
        (e.message["method"], (e.message.get("params") or {}).get("uri"))
        for e in events
        if e.direction is Direction.OUT
        and e.channel in (Channel.STDIN, Channel.BODY)
        and isinstance(e.message, dict)
        and "method" in e.message
    ]


def flagged(events: list[WireEvent]) -> list[str]:
    return [f.message for e in events for f in e.findings if f.code == "skill-verification"]


def test_list_reads_no_file(tmp_path: Path) -> None:
    record = tmp_path / "s.jsonl"
    done = cli("--cli", "--method", "skills/list", "--record", str(record), "--", *DEMO)
    assert done.returncode == 0, done.stderr
    skills = json.loads(done.stdout)["skills"]
    assert [s["frontmatter"]["name"] for s in skills] == ["git-workflow", "report-writing"]
    methods = [m for m, _ in sent(read_session(record).events)]
    assert "skills/list" in methods and "resources/read" not in methods


def test_get_loads_and_verifies_every_file(tmp_path: Path) -> None:
    record = tmp_path / "s.jsonl"
    uri = "skill://demo/report-writing/SKILL.md"
    done = cli_inprocess(
        "--cli", "--method", "skills/get", "--uri", uri, "--record", str(record), "--", *DEMO
    )
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)
    listed = {r["uri"]: r for r in out["skill"]["resources"]}
    files = out["files"]
    assert [f["uri"] for f in files] == list(listed)  # SKILL.md first, then in order
    for f in files:
        assert digest_of(f["text"].encode()) == listed[f["uri"]]["digest"]
    assert files[0]["text"].startswith("---\nname: report-writing\n")
    events = read_session(record).events
    assert sent(events)[-3:] == [("resources/read", u) for u in listed]
    assert not flagged(events)


def test_get_unknown_skill_is_invalid_params() -> None:
    done = cli_inprocess(
        "--cli", "--method", "skills/get", "--uri", "skill://nope/SKILL.md", "--", *DEMO
    )
    assert done.returncode == 4, done.stderr
    error = json.loads(done.stderr.strip().splitlines()[-1])["error"]
    assert error["rpcCode"] == -32602


def test_get_needs_uri() -> None:
    done = cli_inprocess("--cli", "--method", "skills/get", "--", *DEMO)
    assert done.returncode == 2 and "skills/get needs --uri" in done.stderr


@pytest.mark.parametrize(
    ("mode", "bad", "reads", "why"),
    [
        ("supporting", COMMITS, [GIT, COMMITS], "digest"),
        ("size", GIT, [GIT], "the entry says"),
        ("frontmatter", GIT, [GIT], "frontmatter differs"),
    ],
)
def test_a_file_that_fails_verification_is_not_used(
    tmp_path: Path, mode: str, bad: str, reads: list[str], why: str
) -> None:
    record = tmp_path / "s.jsonl"
    done = cli_inprocess(
        "--cli", "--method", "skills/get", "--uri", GIT, "--record", str(record),
        "--", *TAMPERED, mode,
    )  # fmt: skip
    assert done.returncode == 4, done.stderr
    assert done.stdout == ""  # nothing of the skill is printed as content
    error = json.loads(done.stderr.strip().splitlines()[-1])["error"]
    assert error["kind"] == "skill-verification" and bad in error["message"]
    events = read_session(record).events
    assert [u for m, u in sent(events) if m == "resources/read"] == reads
    found = flagged(events)
    assert found and all(bad in f for f in found) and any(why in f for f in found)
