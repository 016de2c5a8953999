"""``--cli`` checks before it sends (and after): usage errors before the server starts,
``tools/call`` checked against the listed tool's schemas, the demo server named, the
server's stderr on request, ``--format json``. Real servers; the CLI runs in the test
process, but where what reaches its stderr is the point (a subprocess)."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest
from cli_inprocess import cli_inprocess
from cli_runner import cli
from paths import PY, SERVERS

from inspector.record.reader import read_session
from inspector.wire.events import Direction

SDK_SERVER = [PY, str(SERVERS / "sdk_stdio_server.py")]
BAD_OUTPUT = [PY, str(SERVERS / "stdio_bad_output.py")]
CALL = ["--cli", "--method", "tools/call"]


def error_of(done: subprocess.CompletedProcess[str]) -> dict[str, Any]:
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr
    error: dict[str, Any] = json.loads(lines[0])["error"]
    assert error["exitCode"] == done.returncode
    return error


def sent(path: Path) -> list[dict[str, Any]]:
    """The messages a recording says were sent to the server."""
    events = read_session(path).events
    return [e.message for e in events if e.direction is Direction.OUT and e.message]


@pytest.mark.parametrize(
    ("flags", "words"),
    [
        (["--tool-name", "add", "--tool-arg", "a1"], "--tool-arg expects key=value, got 'a1'"),
        (["--tool-name", "add", "--tool-args-json", "{nope"], "--tool-args-json is not valid"),
        ([], "tools/call needs --tool-name"),
    ],
)
def test_usage_errors_are_reported_before_the_server_starts(
    tmp_path: Path, flags: list[str], words: str
) -> None:
    started = tmp_path / "started"
    server = [PY, "-c", f"open({str(started)!r}, 'w')"]
    record = tmp_path / "s.jsonl"
    done = cli_inprocess(*CALL, *flags, "--record", str(record), "--", *server)
    assert done.returncode == 2, done.stderr
    assert words in error_of(done)["message"]
    assert not started.exists() and not record.exists()


def test_an_unknown_method_is_reported_before_the_server_starts(tmp_path: Path) -> None:
    started = tmp_path / "started"
    done = cli_inprocess(
        "--cli", "--method", "tools/lst", "--", PY, "-c", f"open({str(started)!r}, 'w')"
    )
    assert done.returncode == 2 and "unsupported --method 'tools/lst'" in error_of(done)["message"]
    assert not started.exists()


@pytest.mark.parametrize(
    ("flags", "kind", "issues"),
    [
        (["--tool-name", "ad"], "unknown-tool", None),
        (
            ["--tool-name", "add", "--tool-arg", "a=one", "--tool-arg", "b=2"],
            "invalid-arguments",
            [{"path": "a", "message": 'must be an integer (got "one")'}],
        ),
        (
            ["--tool-name", "add", "--tool-arg", "a=1"],
            "invalid-arguments",
            [{"path": "b", "message": "required"}],
        ),
        (
            ["--tool-name", "add", "--tool-args-json", '{"a": 1, "b": 2, "c": 3}'],
            "invalid-arguments",
            [{"path": "c", "message": "unknown argument (the tool takes: a, b)"}],
        ),
    ],
)
@pytest.mark.slow
def test_tools_call_is_checked_against_the_listed_tool(
    tmp_path: Path, flags: list[str], kind: str, issues: Any
) -> None:
    record = tmp_path / "s.jsonl"
    done = cli_inprocess(*CALL, *flags, "--record", str(record), "--", *SDK_SERVER)
    assert done.returncode == 2, done.stderr
    assert done.stdout == ""
    error = error_of(done)
    assert error["kind"] == kind
    if issues is None:
        assert "did you mean 'add'?" in error["message"]
        assert {"add", "progress_steps"} <= set(error["tools"])
    else:
        assert error["issues"] == issues
        assert issues[0]["message"] in error["message"]  # the schema's words, in the message
    methods = [m.get("method") for m in sent(record)]
    assert "tools/list" in methods and "tools/call" not in methods  # nothing was sent


def test_no_validate_sends_what_was_typed(tmp_path: Path) -> None:
    record = tmp_path / "s.jsonl"
    done = cli_inprocess(
        *CALL,
        "--no-validate",
        "--tool-name",
        "add",
        "--tool-arg",
        "a=one",
        "--tool-arg",
        "b=2",
        "--record",
        str(record),
        "--",
        *SDK_SERVER,
    )
    assert done.returncode == 1, done.stderr  # the server's own isError
    (call,) = [m for m in sent(record) if m.get("method") == "tools/call"]
    assert call["params"]["arguments"] == {"a": "one", "b": 2}


@pytest.mark.slow
def test_coerced_arguments_pass_the_check() -> None:
    done = cli_inprocess(
        *CALL, "--tool-name", "add", "--tool-arg", "a=40", "--tool-arg", "b=2", "--", *SDK_SERVER
    )
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["structuredContent"] == {"result": 42}


@pytest.mark.parametrize(
    ("tool", "code", "says"),
    [
        ("mismatch", 8, 'temp: must be a number (got "hot")'),
        ("missing", 8, "declares an outputSchema but the result has no structuredContent"),
        ("good", 0, None),
        ("failing", 1, None),  # isError results are not checked
    ],
)
def test_structured_content_is_checked_against_the_output_schema(
    tool: str, code: int, says: str | None
) -> None:
    done = cli_inprocess(*CALL, "--tool-name", tool, "--", *BAD_OUTPUT)
    assert done.returncode == code, done.stderr
    assert json.loads(done.stdout)["content"]  # the result is printed either way
    if says is None:
        assert done.stderr == ""
    else:
        error = error_of(done)
        assert error["kind"] == "output-schema" and says in error["message"]


def test_no_validate_skips_the_output_check() -> None:
    done = cli_inprocess(*CALL, "--no-validate", "--tool-name", "mismatch", "--", *BAD_OUTPUT)
    assert done.returncode == 0, done.stderr
    assert done.stderr == ""


def test_without_a_target_the_demo_server_is_named_on_stderr() -> None:
    done = cli_inprocess("--cli", "--method", "ping")
    assert done.returncode == 0, done.stderr
    assert done.stderr.startswith("mcp-inspect: no server given: using the bundled demo server")
    assert "inspector.demo" in done.stderr
    named = cli_inprocess("--cli", "--method", "ping", "--", PY, "-m", "inspector.demo")
    assert named.returncode == 0 and named.stderr == ""


def test_stderr_passes_the_servers_stderr_through_made_visible() -> None:
    quiet = cli(*CALL, "--tool-name", "good", "--", *BAD_OUTPUT)
    assert quiet.returncode == 0 and quiet.stderr == ""
    shown = cli(*CALL, "--stderr", "--tool-name", "good", "--", *BAD_OUTPUT)
    assert shown.returncode == 0, shown.stderr
    assert shown.stderr.splitlines() == [
        f"␛[31mbad-output␛[0m got {method}" for method in ("initialize", "tools/list", "tools/call")
    ]


@pytest.mark.slow
def test_format_json_wraps_the_result_on_one_line() -> None:
    done = cli_inprocess("--cli", "--format", "json", "--method", "tools/list", "--", *SDK_SERVER)
    assert done.returncode == 0, done.stderr
    assert done.stdout.count("\n") == 1
    assert {t["name"] for t in json.loads(done.stdout)["result"]["tools"]} >= {"add"}


@pytest.mark.slow
def test_the_official_order_takes_the_server_before_dashdash(tmp_path: Path) -> None:
    """``--cli TARGET ... -- OPTIONS``: the server's own flags stay the server's."""
    echo = tmp_path / "argv_server.py"
    echo.write_text(
        "import sys\n"
        "from mcp.server.mcpserver import MCPServer\n"
        "mcp = MCPServer('argv')\n"
        "@mcp.tool()\n"
        "def argv() -> list[str]:\n"
        "    return sys.argv[1:]\n"
        "mcp.run()\n"
    )
    done = cli_inprocess(
        "--cli",
        PY,
        str(echo),
        "--method",
        "x",
        "--",
        "--method",
        "tools/call",
        "--tool-name",
        "argv",
    )
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["structuredContent"]["result"] == ["--method", "x"]
    wrong = cli_inprocess("--cli", PY, str(echo), "--", "--port", "8080")
    assert wrong.returncode == 2
    message = error_of(wrong)["message"]
    assert "unrecognized arguments: --port" in message
    assert "put options first and the whole server command after --" in message
