"""``mcp-inspect diff OLD NEW`` on two versions of an official-SDK server
(tests/servers/diff_server.py: NEW differs from OLD by one case of each rule), compared
as stdio commands, as HTTP URLs and as recordings; outputs pinned, exit codes. The command
runs in the test process; as a child process, end to end, in ``test_no_change_pair_exits_0``."""

from __future__ import annotations

import json
import shlex
from pathlib import Path
from typing import Any

import pytest
from cli_inprocess import cli_inprocess
from cli_runner import cli
from paths import DATA, PY, SERVERS
from servers.http_support import sdk_server

from inspector.compare.changes import RULES
from tests.everything import everything_command

SERVER = SERVERS / "diff_server.py"
GOLDEN = DATA / "diff"
LIVE_ONLY = {"protocol-changed"}  # an SDK server answers the version the client asks


def command(variant: str) -> str:
    return shlex.join([PY, str(SERVER), variant])


def run_diff(*args: str) -> tuple[int, Any, str]:
    done = cli_inprocess("diff", *args, "--format", "json")
    data = json.loads(done.stdout) if done.stdout.strip() else None
    return done.returncode, data, done.stderr


def normalized(data: dict[str, Any]) -> dict[str, Any]:
    """The report without what depends on where and how the sides ran."""
    return {k: v for k, v in data.items() if k not in ("old", "new")}


@pytest.fixture(scope="module")
def live() -> dict[str, Any]:
    code, data, err = run_diff(command("old"), command("new"))
    assert code == 1, err
    return data  # type: ignore[no-any-return]


@pytest.mark.slow
def test_each_rule_has_its_case(live: dict[str, Any]) -> None:
    rules = [d["rule"] for d in live["differences"]]
    assert set(rules) == set(RULES) - LIVE_ONLY
    assert live["summary"] == {"breaking": 10, "compatible": 9, "cosmetic": 3}
    assert live["worst"] == "breaking" and live["exitCode"] == 1


def test_changes_are_where_the_server_made_them(live: dict[str, Any]) -> None:
    where = {d["path"]: (d["rule"], d["level"]) for d in live["differences"]}
    assert where["$.tools.legacy"] == ("item-removed", "breaking")
    assert where["$.tools.search.inputSchema.properties.lang"] == ("required-added", "breaking")
    assert where["$.tools.search.inputSchema.properties.offset"] == ("optional-added", "compatible")
    assert where["$.tools.convert.inputSchema.properties.value.type"][0] == "type-narrowed"
    assert where["$.tools.fetch.inputSchema.properties.retries.type"][0] == "type-widened"
    assert where["$.tools.report.outputSchema.properties.note"][0] == "output-removed"
    assert where["$.capabilities.logging"] == ("capability-dropped", "breaking")
    assert where["$.prompts"] == ("order-changed", "cosmetic")
    assert where["$.resourceTemplates"] == ("list-failed", "breaking")
    assert live["old"]["server"] == {"name": "diff-test-server", "version": "1.0.0"}


def test_json_is_pinned(live: dict[str, Any]) -> None:
    golden = json.loads((GOLDEN / "old-new.json").read_text())
    assert normalized(live) == golden


@pytest.mark.slow
def test_markdown_is_pinned(recordings: tuple[Path, Path]) -> None:
    old, new = recordings
    done = cli_inprocess("diff", str(old), str(new), "--format", "markdown")
    assert done.returncode == 1, done.stderr
    text = done.stdout.replace(str(old.parent).replace("_", "\\_"), "TMP")  # Markdown-escaped
    assert text == (GOLDEN / "old-new.md").read_text()


@pytest.mark.slow
def test_no_change_pair_exits_0() -> None:
    code, data, err = run_diff(command("old"), command("old"))
    assert code == 0, err
    assert data["differences"] == [] and data["worst"] is None
    done = cli("diff", command("old"), command("old"))
    assert done.returncode == 0 and "no differences" in done.stdout


def record(path: Path, variant: str) -> None:
    """A session file holding the server's whole catalog (lint lists every kind)."""
    done = cli_inprocess("lint", "--record", str(path), "--", PY, str(SERVER), variant)
    assert done.returncode in (0, 1), done.stderr
    assert path.stat().st_size > 0


@pytest.fixture(scope="module")
def recordings(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    folder = tmp_path_factory.mktemp("recordings")
    old, new = folder / "old.jsonl", folder / "new.jsonl"
    record(old, "old")
    record(new, "new")
    return old, new


def test_recordings_compare_as_the_live_servers(
    recordings: tuple[Path, Path], live: dict[str, Any]
) -> None:
    old, new = recordings
    code, data, err = run_diff(str(old), str(new))
    assert code == 1, err
    assert data["differences"] == live["differences"]
    assert data["old"]["source"] == str(old)
    code, data, err = run_diff(str(old), command("new"))  # a recording against a live one
    assert code == 1, err
    assert data["differences"] == live["differences"]


@pytest.mark.slow
def test_kinds_a_recording_never_listed_are_not_compared(tmp_path: Path) -> None:
    tools_only = tmp_path / "tools.jsonl"
    done = cli_inprocess(
        "--cli", "--method", "tools/list", "--record", str(tools_only), "--", PY, str(SERVER), "old"
    )
    assert done.returncode == 0, done.stderr
    code, data, err = run_diff(str(tools_only), command("new"))
    assert code == 1, err
    assert data["notCompared"] == ["resources", "resourceTemplates", "prompts"]
    assert not [d for d in data["differences"] if d["path"].startswith(("$.prompts", "$.resource"))]
    assert "$.tools.legacy" in {d["path"] for d in data["differences"]}


@pytest.mark.slow
def test_http_urls_compare_as_the_stdio_servers(live: dict[str, Any]) -> None:
    with (
        sdk_server("old:http", script="diff_server.py") as old,
        sdk_server("new:http", script="diff_server.py") as new,
    ):
        code, data, err = run_diff(f"{old}/mcp", f"{new}/mcp")
    assert code == 1, err
    assert data["differences"] == live["differences"]


@pytest.mark.slow
def test_config_names_both_sides(tmp_path: Path) -> None:
    config = tmp_path / "mcp.json"
    servers = {v: {"command": PY, "args": [str(SERVER), v]} for v in ("old", "new")}
    config.write_text(json.dumps({"mcpServers": servers}))
    code, data, err = run_diff("--config", str(config), "old", "new")
    assert code == 1, err
    assert data["old"]["source"] == "old" and data["summary"]["breaking"] == 10


@pytest.mark.parametrize(
    ("fail_on", "ignore", "expected"),
    [
        ("breaking", [], 1),
        ("breaking", ["$.capabilities", "$.tools", "$.resourceTemplates"], 0),
        ("compatible", ["$.capabilities", "$.tools", "$.resourceTemplates"], 1),
        ("compatible", ["$.capabilities", "$.tools", "$.resourceTemplates", "$.resources"], 0),
        ("cosmetic", ["$.capabilities", "$.tools", "$.resourceTemplates", "$.resources"], 1),
    ],
)
def test_fail_on_and_ignore_set_the_exit_code(
    recordings: tuple[Path, Path], fail_on: str, ignore: list[str], expected: int
) -> None:
    old, new = recordings
    args = [a for path in ignore for a in ("--ignore", path)]
    code, data, err = run_diff(str(old), str(new), "--fail-on", fail_on, *args)
    assert code == expected, err
    assert data["exitCode"] == expected and data["failOn"] == fail_on
    assert not any(d["path"].startswith(tuple(ignore)) for d in data["differences"] if ignore)


@pytest.mark.slow
def test_usage_and_connection_failures_keep_their_codes(tmp_path: Path) -> None:
    not_a_session = tmp_path / "notes.jsonl"
    not_a_session.write_text("hello\n")
    done = cli_inprocess("diff", str(not_a_session), command("old"))
    assert done.returncode == 2, done.stderr
    assert done.stderr.startswith("mcp-inspect diff: old:"), done.stderr  # a sentence
    done = cli_inprocess("diff", command("old"), "/nonexistent/server-binary")
    assert done.returncode == 3, done.stderr
    assert done.stderr.splitlines()[-1].startswith("mcp-inspect diff: new ("), done.stderr
    # --format json: the error as the JSON line scripts parse
    code, data, stderr = run_diff(command("old"), "/nonexistent/server-binary")
    assert code == 3 and data is None
    error = json.loads(stderr.splitlines()[-1])["error"]
    assert error["kind"] == "connection" and error["message"].startswith("new (")
    done = cli_inprocess("diff", command("old"), command("new"), "--ignore", "$.[")
    assert done.returncode == 2 and "--ignore" in done.stderr


@pytest.mark.slow
def test_answers_declare_the_capabilities_a_recording_was_made_with(tmp_path: Path) -> None:
    """A recording of a client that declared sampling, elicitation and roots holds the
    tools server-everything offers only to such clients; a live side compared without
    those capabilities misses them (removed: breaking), with them it matches."""
    command, args = everything_command()
    live = shlex.join([command, *args])
    answers = ["--on-sample", "hello", "--on-elicit", "decline", "--root", str(tmp_path)]
    recording = tmp_path / "capable.jsonl"
    done = cli_inprocess("lint", *answers, "--record", str(recording), "--", command, *args)
    assert done.returncode == 0, done.stderr
    code, data, err = run_diff(str(recording), live)
    assert code == 1, err
    assert {d["rule"] for d in data["differences"]} == {"item-removed"}
    code, data, err = run_diff(str(recording), live, *answers)
    assert code == 0, err
    assert data["differences"] == []
