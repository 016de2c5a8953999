"""Start-up: each entry point imports only what its path needs (read from ``-X importtime``).

The test suite alone starts ``python -m inspector`` hundreds of times, a stdio server's
watchdog once per inspector, and users run ``--cli`` in loops: a module loaded on a path
that never uses it is paid for on every start. Each case runs a fresh interpreter the
way a user (or the inspector) does and names the packages that path must not load.
Speed itself is measured by ``bench/cli_start.py``; this only holds the imports.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
from pathlib import Path

import pytest
from paths import DATA, DEMO, PY, ROOT

from inspector.commands import SUBCOMMANDS

# no HTTP client, TUI, schema checker, async runtime, Rich or YAML
NO_LIBRARIES = ("httpx", "textual", "jsonschema", "asyncio", "anyio", "rich", "yaml")
# and no engine or transport either
NOTHING_HEAVY = (*NO_LIBRARIES, "inspector.engine", "inspector.transports")
# a one-shot call over stdio: the engine and anyio, but no HTTP, TUI, Rich or YAML
STDIO_CALL = ("httpx", "textual", "rich", "yaml", "inspector.tui", "inspector.export")


# Runs a module as ``python -m`` does and, at exit, writes the names of every module
# loaded to the file named first (``-X importtime`` would miss those loaded while the
# command line's stderr is its line-buffering wrapper).
DRIVER = """
import atexit, json, runpy, sys
out = sys.argv.pop(1)
atexit.register(lambda: open(out, "w").write(json.dumps(sorted(sys.modules))))
runpy.run_module(sys.argv.pop(1), run_name="__main__", alter_sys=True)
"""


def imported(tmp_path: Path, module: str, *args: str, ok: int = 0) -> set[str]:
    """The modules ``python -m MODULE ARGS`` loads, run to its end (stdin empty)."""
    out = tmp_path / "modules.json"
    done = subprocess.run(
        [PY, "-c", DRIVER, str(out), module, *args],
        stdin=subprocess.DEVNULL,
        capture_output=True,
        timeout=60,
        cwd=ROOT,
        check=False,
    )
    assert done.returncode == ok, done.stderr[-2000:]
    names: list[str] = json.loads(out.read_text())
    return set(names)


def loaded(modules: set[str], packages: tuple[str, ...]) -> list[str]:
    """The ``packages`` (or their submodules) among ``modules``."""
    return sorted(p for p in packages if any(m == p or m.startswith(p + ".") for m in modules))


@pytest.mark.parametrize(
    ("words", "ok"),
    [
        (["--help"], 0),
        (["--version"], 0),
        (["--bogus-flag"], 2),  # argparse's usage error
        (["--cli", "--", *DEMO], 2),  # --cli without --method: before any server starts
        (["--cli", "--method", "nope", "--", *DEMO], 2),
    ],
    ids=["help", "version", "bad-flag", "no-method", "bad-method"],
)
def test_help_version_and_usage_errors_load_nothing_heavy(
    tmp_path: Path, words: list[str], ok: int
) -> None:
    modules = imported(tmp_path, "inspector", *words, ok=ok)
    assert loaded(modules, NOTHING_HEAVY) == []


def test_help_imports_no_subcommand_module(tmp_path: Path) -> None:
    """``--help`` lists the subcommands from their summaries, not by loading each one."""
    modules = imported(tmp_path, "inspector", "--help")
    assert "inspector.commands.default" in modules  # the measurement sees our modules
    for name in ("replay", "proxy", "attach", "load", "lint", "diff", "mcp", "testrun"):
        assert f"inspector.commands.{name}" not in modules


@pytest.mark.parametrize("name", ["proxy", "replay", "export", "lint", "diff", "load"])
def test_a_subcommand_loads_no_http_client_or_tui_before_it_needs_one(
    tmp_path: Path, name: str
) -> None:
    """Its module and parser: a stdio proxy, a replay against a stdio server, an export
    need no HTTP client (the proxy's HTTP front is its own server) and no Textual."""
    modules = imported(tmp_path, "inspector", name, "--help")
    assert SUBCOMMANDS[name].module in modules  # the measurement sees it
    assert loaded(modules, ("httpx", "textual", "rich")) == []


def test_exporting_a_file_loads_no_async_runtime(tmp_path: Path) -> None:
    """A session file to a Markdown transcript: no connection, so no asyncio or anyio."""
    out = tmp_path / "session.md"
    session = str(DATA / "demo-session.jsonl")
    modules = imported(tmp_path, "inspector", "export", session, "--output", str(out))
    assert out.read_text().strip()
    assert loaded(modules, NO_LIBRARIES) == []  # the engine's pure parts (kinds, era) are fine


@pytest.mark.parametrize(
    "call",
    [
        ["--method", "tools/list"],
        ["--method", "tools/call", "--tool-name", "echo", "--tool-arg", "message=hi"],
    ],
    ids=["tools-list", "tools-call"],
)
def test_cli_over_stdio_loads_no_http_tui_or_rich(tmp_path: Path, call: list[str]) -> None:
    modules = imported(tmp_path, "inspector", "--cli", "--no-record", *call, "--", *DEMO)
    assert "inspector.engine.session" in modules
    assert loaded(modules, STDIO_CALL) == []
    if call[1] == "tools/list":  # the arguments' check is what needs a schema checker
        assert loaded(modules, ("jsonschema",)) == []


def test_the_demo_server_loads_only_the_standard_library_and_the_wire(tmp_path: Path) -> None:
    modules = imported(tmp_path, "inspector.demo")  # stdin at its end: it exits at once
    ours = {m for m in modules if m.startswith("inspector.")} - {"inspector.errors"}
    assert "inspector.demo.server" in ours
    assert all(m.startswith(("inspector.demo", "inspector.wire")) for m in ours), sorted(ours)
    assert loaded(modules, NOTHING_HEAVY) == []


def test_the_lifeline_watchdog_loads_no_subprocess_or_package() -> None:
    """Started once per stdio server: the script alone, run as the inspector runs it
    (``-I -S``), with the few modules it uses (read from ``-X importtime``)."""
    group = subprocess.Popen(["sleep", "60"], start_new_session=True)  # a group of our own
    try:
        script = str(ROOT / "inspector" / "transports" / "watchdog.py")
        done = subprocess.run(
            [PY, "-X", "importtime", "-I", "-S", script],
            input=f"+{group.pid} 1\n-{group.pid}\n".encode(),
            capture_output=True,
            timeout=60,
            check=True,
        )
    finally:
        os.killpg(group.pid, signal.SIGKILL)
        group.wait()
    assert group.returncode == -signal.SIGKILL  # released: the watchdog left it alone
    lines = done.stderr.decode().splitlines()
    modules = {line.rsplit("|", 1)[1].strip() for line in lines if line.startswith("import time:")}
    assert "os" in modules  # the measurement works
    assert loaded(modules, ("subprocess", "threading", "typing", "inspector")) == []
