"""The command line's front door: which mode a word list runs, the help, the methods.

Dispatch is checked in process with each mode's ``run`` replaced by a recorder of
what it was given; the end-to-end runs (a server literally named ``replay``, Textual
never loaded by ``--cli``) are real subprocesses against the demo server.
"""

from __future__ import annotations

import argparse
import fcntl
import json
import os
import pty
import select
import stat
import struct
import subprocess
import termios
import time
from pathlib import Path
from typing import Any

import pytest
from cli_runner import cli, inspector_argv
from paths import PY, ROOT

from inspector.commands import SUBCOMMANDS, build_parser, default, main, subcommand
from inspector.commands.headless import METHODS, CliRequest, perform
from inspector.commands.options import UsageError, resolve_target
from inspector.engine.client import McpClient
from inspector.engine.session import Session
from inspector.target import build_transport, demo_target

Ran = dict[str, Any]


@pytest.fixture
def ran(monkeypatch: pytest.MonkeyPatch) -> Ran:
    """Which mode ran, with which options and command words (nothing is started)."""
    seen: Ran = {}

    def recorder(mode: str) -> Any:
        def run(opts: argparse.Namespace, command: list[str]) -> int:
            seen.update(mode=mode, opts=opts, command=command)
            return 0

        return run

    monkeypatch.setattr(default, "run", recorder("default"))
    for name in SUBCOMMANDS:
        monkeypatch.setattr(subcommand(name), "run", recorder(name))
    return seen


@pytest.mark.parametrize(
    ("argv", "target", "command"),
    [
        ([], [], []),
        (["--", "python", "server.py", "--flag"], [], ["python", "server.py", "--flag"]),
        (["https://host/mcp"], ["https://host/mcp"], []),
        (["--", "replay"], [], ["replay"]),  # a server command named like a subcommand
        (["--cli", "--", "replay", "x"], [], ["replay", "x"]),
        (["node", "replay"], ["node", "replay"], []),  # "replay" is the server's argument
        (["--cli", "python", "s.py", "--method", "tools/list"], ["python", "s.py"], []),
        (["https://host/mcp", "--cli", "--method", "ping"], ["https://host/mcp"], []),
    ],
)
def test_targets_run_the_default_mode(
    ran: Ran, argv: list[str], target: list[str], command: list[str]
) -> None:
    assert main(argv) == 0
    assert ran["mode"] == "default"
    assert ran["opts"].target == target
    assert ran["command"] == command


@pytest.mark.parametrize(
    ("argv", "command", "method"),
    [
        (  # the official Inspector's order: the server before --, options after
            ["--cli", "node", "build/index.js", "--config", "./s.conf", "--", "--method", "ping"],
            ["node", "build/index.js", "--config", "./s.conf"],
            "ping",
        ),
        (["--cli", "https://h/mcp", "--", "--method", "ping"], ["https://h/mcp"], "ping"),
        (["--cli", "node", "x.js", "--"], ["node", "x.js"], None),
        (["--cli", "--method", "ping", "--", "node", "x.js"], ["node", "x.js"], "ping"),  # ours
    ],
)
def test_the_official_order_is_taken_too(
    ran: Ran, argv: list[str], command: list[str], method: str | None
) -> None:
    assert main(argv) == 0
    assert ran["mode"] == "default" and ran["opts"].cli is True
    assert ran["opts"].target == [] and ran["command"] == command
    assert ran["opts"].method == method


def test_in_the_official_order_only_options_follow_dashdash(
    ran: Ran, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["--cli", "node", "x.js", "--", "--method", "ping", "extra"]) == 2
    error = json.loads(capsys.readouterr().err)["error"]
    assert error["message"].startswith("unexpected words after --: extra; in this order")
    assert not ran


def test_server_url_names_the_target() -> None:
    parser = build_parser(subcommands=False)
    opts = parser.parse_args(["--server-url", "https://h/mcp", "--transport", "http"])
    target = resolve_target(opts, [])
    assert target.url == "https://h/mcp" and target.transport == "http"
    with pytest.raises(UsageError, match="either --server-url or a TARGET"):
        resolve_target(opts, ["node", "x.js"])


@pytest.mark.parametrize(
    ("argv", "option", "value"),
    [
        (["--cwd", "replay", "--", "cmd"], "cwd", "replay"),
        (["--cw", "replay", "--", "cmd"], "cwd", "replay"),  # argparse's unique prefix
        (["--cwd=replay", "--", "cmd"], "cwd", "replay"),
        (["--record", "replay", "--", "cmd"], "record", "replay"),
        (["-e", "replay", "--", "cmd"], "env", ["replay"]),
        (["-ereplay", "--", "cmd"], "env", ["replay"]),
    ],
)
def test_an_option_value_is_never_a_subcommand(
    ran: Ran, argv: list[str], option: str, value: Any
) -> None:
    assert main(argv) == 0
    assert ran["mode"] == "default"
    assert getattr(ran["opts"], option) == value
    assert ran["command"] == ["cmd"]


@pytest.mark.parametrize(
    ("argv", "cli", "against", "command"),
    [
        (["replay", "f.jsonl"], False, None, []),
        (["replay", "f.jsonl", "--serve"], False, None, []),
        (["replay", "f.jsonl", "--against", "http://h/mcp"], False, "http://h/mcp", []),
        (
            ["--cli", "replay", "f.jsonl", "--against", "--", "python", "s.py"],
            True,
            "",
            ["python", "s.py"],
        ),
        (["replay", "--cli", "f.jsonl", "--against", "--", "replay"], True, "", ["replay"]),
        (["--timeout", "5", "replay", "f.jsonl", "--against", "--", "cmd"], False, "", ["cmd"]),
    ],
)
def test_the_first_word_names_a_subcommand(
    ran: Ran, argv: list[str], cli: bool, against: str | None, command: list[str]
) -> None:
    assert main(argv) == 0
    assert ran["mode"] == "replay"
    assert ran["opts"].file == "f.jsonl"
    assert ran["opts"].cli is cli
    assert ran["opts"].against == against
    assert ran["command"] == command


def test_options_before_the_subcommand_are_its_own(ran: Ran) -> None:
    assert main(["--timeout", "5", "replay", "f.jsonl", "--against", "--", "cmd"]) == 0
    assert ran["opts"].timeout == 5.0


def test_help_lists_every_method_and_every_subcommand(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--help"]) == 0
    shown = " ".join(capsys.readouterr().out.split())  # argparse wraps lines
    for method in METHODS:
        assert method in shown
    assert "subcommands:" in shown
    for name in SUBCOMMANDS:
        assert f" {name} " in shown
    assert "[TARGET ...]" in shown


def test_help_anywhere_in_the_default_mode_is_the_whole_help(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["--cli", "python", "s.py", "-h"]) == 0
    assert "subcommands:" in capsys.readouterr().out


def test_a_subcommand_has_its_own_help(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["replay", "--help"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("usage: mcp-inspect replay ")
    assert "--against" in out and "--method" not in out


def test_replay_without_a_file_names_only_the_file(capsys: pytest.CaptureFixture[str]) -> None:
    """TARGET is optional (``FILE [TARGET ...]``): the message asks for FILE alone."""
    assert main(["replay"]) == 2
    err = capsys.readouterr().err
    assert "the following arguments are required: FILE " in err
    assert "TARGET" not in err


@pytest.mark.slow
def test_proxy_without_a_target_says_it_uses_the_demo_like_cli() -> None:
    """Both modes name the bundled demo on stderr in the same words (the host's log)."""
    notice = "no server given: using the bundled demo server ("
    proxy = cli("proxy", "--no-record", input="")
    assert proxy.returncode == 0, proxy.stderr
    assert f"mcp-inspect proxy: {notice}" in proxy.stderr
    assert "-m inspector.demo); name yours after -- or as a URL" in proxy.stderr
    assert not proxy.stdout  # the host's channel carries JSON-RPC only
    headless = cli("--cli", "--method", "ping")
    assert f"mcp-inspect: {notice}" in headless.stderr
    named = cli("proxy", "--no-record", "--", PY, "-m", "inspector.demo", input="")
    assert notice not in named.stderr


def test_usage_errors_of_cli_are_json_on_stderr(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--cli", "replay", "f.jsonl", "--bogus"]) == 2
    captured = capsys.readouterr()
    error = json.loads(captured.err)["error"]
    assert error["kind"] == "usage" and error["exitCode"] == 2
    assert error["message"] == (
        "replay: unrecognized arguments: --bogus (see mcp-inspect replay --help)"
    )
    assert captured.out == ""
    assert main(["--bogus"]) == 2
    assert capsys.readouterr().err == (
        "mcp-inspect: unrecognized arguments: --bogus (see mcp-inspect --help)\n"
    )


def test_default_options_take_at_most_one_value() -> None:
    """first_positional skips one word after an option that takes a value: keep it true."""
    for action in build_parser(subcommands=False)._actions:
        if action.option_strings:
            assert action.nargs in (None, 0), action.option_strings


async def test_every_listed_method_is_performed() -> None:
    """METHODS is what --help and the errors list: each one runs against the demo."""
    async with Session(build_transport(demo_target())) as session:
        await session.initialize()
        client = McpClient(session)
        for method in METHODS:
            request = CliRequest(
                method=method,
                tool_name="add",
                tool_args_json='{"a": 1, "b": 2}',
                uri="skill://git-workflow/SKILL.md" if method == "skills/get" else "demo://readme",
                prompt_name="simple",
                log_level="info",
            )
            performed = await perform(client, request)
            assert isinstance(performed.result, dict), method
            assert performed.problem is None, method


def test_a_server_named_like_a_subcommand_runs_after_dashdash(tmp_path: Path) -> None:
    server = tmp_path / "replay"
    server.write_text(f"#!/bin/sh\nexec {PY} -m inspector.demo\n")
    server.chmod(server.stat().st_mode | stat.S_IXUSR)
    env = {**os.environ, "PATH": f"{tmp_path}{os.pathsep}{os.environ['PATH']}"}
    done = cli("--cli", "--method", "ping", "--", "replay", env=env)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == {}


@pytest.mark.slow
def test_cli_never_imports_textual(tmp_path: Path) -> None:
    """--cli, --cli replay FILE and --cli replay --against, in one process."""
    session = tmp_path / "s.jsonl"
    demo = ["--", PY, "-m", "inspector.demo"]
    code = (
        "import sys\n"
        "from inspector.commands import main\n"
        f"assert main(['--cli', '--record', {str(session)!r}, '--method', 'tools/list', "
        f"*{demo!r}]) == 0\n"
        f"assert main(['--cli', 'replay', {str(session)!r}]) == 0\n"
        f"assert main(['--cli', 'replay', {str(session)!r}, '--against', *{demo!r}]) == 0\n"
        "sys.stderr.write(repr(sorted(m for m in sys.modules if m.startswith('textual'))))\n"
    )
    done = subprocess.run([PY, "-c", code], capture_output=True, text=True, timeout=120, cwd=ROOT)
    assert done.returncode == 0, done.stderr
    assert done.stderr.endswith("[]"), done.stderr


def test_without_a_terminal_the_tui_says_what_to_use() -> None:
    done = cli("--no-record", stdin=subprocess.DEVNULL)
    assert done.returncode == 2
    assert done.stderr == "mcp-inspect: the TUI needs a terminal; use --cli for one-shot calls\n"


def _read_until(
    fd: int, seen: bytearray, seconds: float, wanted: bytes = b"", proc: Any = None
) -> bool:
    """Read the terminal into ``seen`` until ``wanted`` shows up or ``proc`` ends (bounded).

    Reading all along matters: a full pty blocks the app's writes."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if (wanted and wanted in seen) or (proc is not None and proc.poll() is not None):
            break
        ready, _, _ = select.select([fd], [], [], 0.2)
        if ready:
            try:
                chunk = os.read(fd, 65536)
            except OSError:  # the app's side is closed: it is ending
                break
            seen += chunk
    if proc is None:
        return bool(wanted) and wanted in seen
    try:
        proc.wait(timeout=max(0.0, deadline - time.monotonic()))
    except subprocess.TimeoutExpired:
        return False
    return True


@pytest.mark.slow
@pytest.mark.parametrize("mode", ["live", "replay"])
def test_the_tui_opens_in_a_terminal_and_quits(tmp_path: Path, mode: str) -> None:
    """``mcp-inspect`` (recording by default) and ``mcp-inspect replay FILE`` in a pty."""
    session = tmp_path / "state" / "s.jsonl"
    if mode == "replay":
        recorded = cli("--cli", "--record", str(session), "--method", "ping")
        assert recorded.returncode == 0, recorded.stderr
    argv = ["--record", str(session)] if mode == "live" else ["replay", str(session)]
    main_fd, terminal = pty.openpty()
    fcntl.ioctl(terminal, termios.TIOCSWINSZ, struct.pack("HHHH", 40, 120, 0, 0))
    env = {**os.environ, "TERM": "xterm-256color"}
    proc = subprocess.Popen(
        inspector_argv(*argv),
        stdin=terminal,
        stdout=terminal,
        stderr=terminal,
        cwd=ROOT,
        env=env,
    )
    os.close(terminal)
    seen = bytearray()
    try:
        ready = b"connected" if mode == "live" else b"offline"
        assert _read_until(main_fd, seen, 60, wanted=ready), bytes(seen[-500:])
        os.write(main_fd, b"q")
        assert _read_until(main_fd, seen, 60, proc=proc), bytes(seen[-500:])
        assert proc.wait(timeout=10) == 0
        _read_until(main_fd, seen, 2)  # what it wrote last
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait(10)
        os.close(main_fd)
    if mode == "live":
        assert f"session saved to {session}".encode() in seen
        assert session.stat().st_size > 0


@pytest.mark.parametrize(
    ("argv", "hint"),
    [
        (["python", "-m", "server"], "goes last, after --: mcp-inspect [OPTIONS] -- python"),
        (["lint", "python", "-m", "server"], "after --: mcp-inspect lint [OPTIONS] -- python"),
        (["proxy", "node", "x.js", "--port", "1"], "after --: mcp-inspect proxy [OPTIONS] --"),
        (["diff", "python a.py", "python", "-m", "b"], 'one quoted word: mcp-inspect diff "'),
    ],
)
def test_a_servers_own_flag_taken_for_ours_says_where_it_goes(
    ran: Ran, capsys: pytest.CaptureFixture[str], argv: list[str], hint: str
) -> None:
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert "unrecognized arguments: " in err and hint in err
    assert not ran


def test_an_unknown_flag_without_server_words_has_no_such_hint(
    capsys: pytest.CaptureFixture[str],
) -> None:
    for argv in (["--bogus"], ["lint", "--bogus"], ["replay", "f.jsonl", "--bogus"]):
        assert main(argv) == 2
        assert "after --" not in capsys.readouterr().err


SESSION = str(ROOT / "tests/data/demo-session.jsonl")


@pytest.mark.parametrize(
    "words",
    [
        ["export", SESSION, "--format", "markdown"],  # plain writes
        ["lint", SESSION],  # Rich's reports: Rich alone would exit 1, a verdict here
        ["diff", SESSION, SESSION],
    ],
    ids=["export", "lint", "diff"],
)
def test_a_reader_that_left_ends_the_output_quietly(words: list[str]) -> None:
    """``mcp-inspect export FILE | head``: the reader gone, no traceback (nor Python's
    "Exception ignored" at exit), and the exit code a shell gives a writer ended by
    SIGPIPE."""
    reader, writer = os.pipe()
    os.close(reader)  # gone before the first byte is written
    try:
        done = subprocess.run(
            inspector_argv(*words),
            stdout=writer,
            stderr=subprocess.PIPE,
            cwd=ROOT,
            timeout=60,
        )
    finally:
        os.close(writer)
    assert done.returncode == 141, done.stderr
    assert b"Traceback" not in done.stderr and b"Exception ignored" not in done.stderr
