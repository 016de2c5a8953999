"""The official MCP conformance suite (npm ``@modelcontextprotocol/conformance``) for tests.

    from tests.conformance import run_client_scenario
    result = run_client_scenario("initialize", [sys.executable, "tests/conformance_client.py"])
    assert result.passed, result.explain()
    assert result.check("client-initialization")

The suite is installed pinned by ``tests/npm_packages.py`` (the one npm installer of the
tests). For a client scenario it starts its own server(s) on localhost, runs the client
command with the server URL appended (through a shell, after splitting the command on
spaces), with ``MCP_CONFORMANCE_SCENARIO`` and, for scenarios that need data (pre-registered
credentials, keys, tokens), ``MCP_CONFORMANCE_CONTEXT`` (JSON) in its environment; then it
judges the checks the server recorded. ``ScenarioResult.passed`` is the suite's own verdict
(its exit code: no failed check, no warning, the client did not time out and exited 0 unless
the scenario allows an error); ``checks`` are the suite's checks as it saved them.

Beware: some scenarios pass for a client that does nothing (``initialize`` records no check
when no request comes; ``auth/resource-mismatch`` passes when no authorization request
comes), so a test also asserts what its own recording shows.
"""

from __future__ import annotations

import contextlib
import dataclasses
import fcntl
import functools
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tests.npm_packages import NODE, bin_entry, npm_env

PACKAGE = "@modelcontextprotocol/conformance"
VERSION = "0.1.16"  # pinned: scenarios and checks change between releases
PRERELEASE = "0.2.0-alpha.12"  # pinned exactly: the 2026-07-28 client scoring
DEFAULT_TIMEOUT_MS = 30_000


def conformance_command(version: str = VERSION) -> list[str]:
    """``[node, .../dist/index.js]``: the suite's command line, installed on first use."""
    return [str(NODE), str(bin_entry(PACKAGE, version, "conformance"))]


@functools.cache
def listed(version: str, *extra: str) -> str:
    """What ``conformance list --client EXTRA`` prints: asked once a process (0.8 s of
    CPU each; a suite's shards ask for it about 20 times, and a pinned suite's list does
    not change)."""
    done = subprocess.run(
        [*conformance_command(version), "list", "--client", *extra],
        env=npm_env(),
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    return done.stdout


def client_scenarios(version: str = VERSION, *, requirements: str | None = None) -> list[str]:
    """The client scenario names ``conformance list`` prints, in its order (only those a
    spec revision requires, with ``requirements``)."""
    extra = ["--requirements", requirements] if requirements else []
    names: list[str] = []
    in_client = False
    for line in listed(version, *extra).splitlines():
        if line.lower().startswith(("client scenarios", "client:")):
            in_client = True
            continue
        if line.strip() and not line.startswith(" "):
            in_client = False
        match = re.match(r"\s+-\s+(\S+)", line)
        if in_client and match:
            names.append(match.group(1))
    return names


def tagged_scenarios(version: str, tag: str) -> list[str]:
    """The client scenarios ``conformance list`` tags with ``tag`` (``extension``, or a
    spec revision they apply to)."""
    found = re.findall(r"^\s+-\s+(\S+)\s+\[([^\]]*)\]", listed(version), re.MULTILINE)
    return [name for name, tags in found if tag in tags.split(",")]


def extension_scenarios(version: str = VERSION) -> list[str]:
    """The client scenarios ``conformance list`` tags ``[extension]``."""
    return tagged_scenarios(version, "extension")


@dataclass
class ScenarioResult:
    """One client scenario's verdict and the evidence behind it."""

    scenario: str
    exit_code: int  # the suite's: 0 when the scenario passed
    checks: list[dict[str, Any]] = field(default_factory=list)
    client_stdout: str = ""
    client_stderr: str = ""
    output: str = ""  # what the suite itself printed (stdout, then stderr)

    @property
    def passed(self) -> bool:
        return self.exit_code == 0

    def check(self, check_id: str) -> list[dict[str, Any]]:
        """The checks with this id (a scenario may record one several times)."""
        return [c for c in self.checks if c.get("id") == check_id]

    def statuses(self) -> dict[str, list[str]]:
        """Check id -> the statuses it was recorded with."""
        out: dict[str, list[str]] = {}
        for c in self.checks:
            out.setdefault(str(c.get("id")), []).append(str(c.get("status")))
        return out

    def problems(self) -> list[dict[str, Any]]:
        """The failed checks and warnings (either fails the scenario)."""
        return [c for c in self.checks if c.get("status") in ("FAILURE", "WARNING")]

    def explain(self) -> str:
        """Everything needed to see why a scenario failed, for an assertion message."""
        lines = [f"{self.scenario}: exit {self.exit_code}"]
        for c in self.problems():
            lines.append(f"  {c.get('status')} {c.get('id')}: {c.get('description')}")
            if c.get("errorMessage"):
                lines.append(f"    {c.get('errorMessage')}")
        lines.append("client stderr:\n" + self.client_stderr[-3000:])
        lines.append("suite output:\n" + self.output[-3000:])
        return "\n".join(lines)


def run_client_scenario(
    scenario: str,
    command: str | Sequence[str],
    *,
    timeout_ms: int = DEFAULT_TIMEOUT_MS,
    env: Mapping[str, str] | None = None,
    version: str = VERSION,
    spec_version: str | None = None,
) -> ScenarioResult:
    """Run one client scenario against ``command`` (a shell line or an argv list, without
    the server URL: the suite appends it). ``env`` is added to the suite's environment,
    which the client inherits. ``spec_version``: the revision whose wire it runs at (as
    ``--requirements`` runs it)."""
    line = command if isinstance(command, str) else shlex.join(command)
    full_env = npm_env()
    full_env.update(env or {})
    with tempfile.TemporaryDirectory(prefix="conformance-") as out:
        done = subprocess.run(
            [
                *conformance_command(version),
                "client",
                "--command",
                line,
                "--scenario",
                scenario,
                "--timeout",
                str(timeout_ms),
                "-o",
                out,
                *(["--spec-version", spec_version] if spec_version else []),
            ],
            env=full_env,
            capture_output=True,
            text=True,
            timeout=timeout_ms / 1000 + 120,
            check=False,
        )
        result = ScenarioResult(scenario, done.returncode, output=done.stdout + done.stderr)
        found = sorted(Path(out).rglob("checks.json"))
        if found:
            folder = found[-1].parent
            result.checks = json.loads(found[-1].read_text("utf-8"))
            result.client_stdout = _read(folder / "stdout.txt")
            result.client_stderr = _read(folder / "stderr.txt")
    return result


ADAPTER = Path(__file__).resolve().parent / "conformance_client.py"
RECORD_ENV = "MCP_INSPECT_CONFORMANCE_RECORD"


def run_through_adapter(
    scenario: str,
    record: Path,
    runs: Path,
    *,
    version: str = VERSION,
    spec_version: str | None = None,
) -> ScenarioResult:
    """Run a client scenario through ``mcp-inspect --cli`` as tests/conformance_client.py
    types it, its recordings put into ``record``; once a test session.

    tests/cli/test_conformance.py asserts on single scenarios and test_conformance_suites
    runs every scenario of both suites: the same runs (1 to 3 s of CPU each). ``runs`` is
    a folder every worker of the session shares (``conformance_runs``): the first test to
    need a run makes it there, holding a lock, and later ones read its result and copy
    its recordings."""
    key = f"{version}-{spec_version or 'as-released'}-{scenario.replace('/', '_')}"
    folder = runs / key
    with _locked(runs / f"{key}.lock"):
        saved = folder / "result.json"
        if not saved.exists():
            (folder / "record").mkdir(parents=True, exist_ok=True)
            result = run_client_scenario(
                scenario,
                [sys.executable, str(ADAPTER)],
                env={RECORD_ENV: str(folder / "record")},
                version=version,
                spec_version=spec_version,
            )
            saved.write_text(json.dumps(dataclasses.asdict(result)), "utf-8")
        found = ScenarioResult(**json.loads(saved.read_text("utf-8")))
    shutil.copytree(folder / "record", record, dirs_exist_ok=True)
    return found


@contextlib.contextmanager
def _locked(path: Path) -> Iterator[None]:
    with path.open("w") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def run_server_scenario(
    scenario: str,
    url: str,
    *,
    version: str = PRERELEASE,
    spec_version: str | None = None,
    timeout_ms: int = DEFAULT_TIMEOUT_MS,
) -> ScenarioResult:
    """Run one server scenario against the server at ``url`` (the suite is the client),
    at ``spec_version``'s wire."""
    with tempfile.TemporaryDirectory(prefix="conformance-") as out:
        done = subprocess.run(
            [
                *conformance_command(version),
                "server",
                "--url",
                url,
                "--scenario",
                scenario,
                "--timeout",
                str(timeout_ms),
                "-o",
                out,
                *(["--spec-version", spec_version, "--force"] if spec_version else []),
            ],
            env=npm_env(),
            capture_output=True,
            text=True,
            timeout=timeout_ms / 1000 + 120,
            check=False,
        )
        result = ScenarioResult(scenario, done.returncode, output=done.stdout + done.stderr)
        found = sorted(Path(out).rglob("checks.json"))
        if found:
            result.checks = json.loads(found[-1].read_text("utf-8"))
    return result


def _read(path: Path) -> str:
    try:
        return path.read_text("utf-8", "replace")
    except OSError:
        return ""


if __name__ == "__main__":  # python -m tests.conformance SCENARIO COMMAND...: a quick look
    import sys

    if len(sys.argv) < 3:
        sys.exit("usage: python -m tests.conformance SCENARIO COMMAND [ARGS...]")
    res = run_client_scenario(sys.argv[1], sys.argv[2:], env=dict(os.environ))
    print(json.dumps(res.statuses(), indent=1))
    print("PASSED" if res.passed else res.explain())
