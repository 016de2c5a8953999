"""bench/suite_cpu.py names each started process by what it runs: the script after
python's options (``-W ignore``), and not its parent's command line, which a child caught
between fork and exec still shows."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from paths import ROOT

sys.path.insert(0, str(ROOT / "bench"))
from suite_cpu import Sampler, command_kind

# the "worker": forks a child that spins a while before it execs spin.py
WORKER = """
import os, sys, time
pid = os.fork()
if pid == 0:
    end = time.monotonic() + 0.4
    while time.monotonic() < end:
        pass
    os.execv(sys.executable, [sys.executable, sys.argv[1]])
os.waitpid(pid, 0)
"""
SPIN = """
import time
end = time.monotonic() + 0.6
while time.monotonic() < end:
    pass
"""


def test_a_forked_child_is_named_by_what_it_execs(tmp_path: Path) -> None:
    (tmp_path / "worker.py").write_text(WORKER)
    (tmp_path / "spin.py").write_text(SPIN)
    sampler = Sampler(os.getpid(), tmp_path)
    worker = subprocess.Popen(
        [sys.executable, str(tmp_path / "worker.py"), str(tmp_path / "spin.py")]
    )
    deadline = time.monotonic() + 30
    while worker.poll() is None and time.monotonic() < deadline:
        sampler.sample()
        time.sleep(0.02)
    assert worker.wait(5) == 0
    assert sampler.count_by_kind["python spin.py"] == 1, sampler.count_by_kind
    assert sampler.count_by_kind["python worker.py"] == 0, sampler.count_by_kind
    assert sampler.by_kind["python spin.py"] > 0, sampler.by_kind


def test_a_script_is_named_after_the_options_python_takes_a_value_for() -> None:
    assert command_kind("/v/bin/python -W ignore /t/servers/http_sdk_server.py sse") == (
        "python http_sdk_server.py"
    )
    assert command_kind("python -X importtime -m inspector --cli") == "python -m inspector"
    assert command_kind("python -I -S /p/lifeline.py 1 2") == "python lifeline.py"


class _Item:
    def __init__(self, nodeid: str, slow: bool) -> None:
        self.nodeid, self.slow = nodeid, slow

    def get_closest_marker(self, name: str) -> object | None:
        return object() if name == "slow" and self.slow else None


def test_the_quick_runs_costly_unmarked_tests_are_named(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The plugin lists the tests marked slow; the bench names the others that cost a
    second of CPU or more (what keeps ``-m "not slow"`` from being a quick run)."""
    from suite_cpu import unmarked_costly
    from suite_cpu_plugin import pytest_runtest_protocol

    monkeypatch.setenv("SUITE_CPU_MARKS", str(tmp_path))
    for nodeid, slow in (("t.py::a", True), ("t.py::b", False), ("t.py::c", False)):
        run = pytest_runtest_protocol(_Item(nodeid, slow))  # type: ignore[arg-type]
        next(run)
        next(run, None)
    spent = {"t.py::a": 9.0, "t.py::b": 2.5, "t.py::c": 0.2, "(between tests)": 5.0}
    assert unmarked_costly(spent, tmp_path) == [("t.py::b", 2.5)]
