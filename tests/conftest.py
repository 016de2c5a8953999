"""Shared fixtures: paths to test servers, and each test's own state and runtime folders
(so tests running in parallel processes never see each other's files or proxies)."""

from __future__ import annotations

import compileall
import sys
from pathlib import Path

import pytest
from paths import SERVERS

ROOT = Path(__file__).resolve().parent.parent

# pytest keeps each test module's assertion-rewritten code in __pycache__ unless
# PYTHONDONTWRITEBYTECODE is set (some containers and CI images set it): each worker then
# rewrote and compiled the whole suite again, about 8 s of CPU each. This process only;
# the processes the tests start keep the environment as it is (pytest_configure below).
sys.dont_write_bytecode = False


def pytest_configure(config: pytest.Config) -> None:
    """Once, before the workers start: the package and the tests' helpers compiled to
    bytecode, so that neither each worker nor each process a test starts (the CLI under
    test, the demo and test servers: over a thousand in a run) compiles them from source
    again where PYTHONDONTWRITEBYTECODE is set (1.8 s of CPU for one ``--cli`` call
    instead of 0.5 s). Only reading caches changes in those processes: they still write
    none, and a source edited since is compiled again on the next run."""
    if hasattr(config, "workerinput"):  # a pytest-xdist worker: the controller did it
        return
    for folder in ("inspector", "tests"):
        compileall.compile_dir(ROOT / folder, quiet=2)


@pytest.fixture
def servers_dir() -> Path:
    return SERVERS


@pytest.fixture(autouse=True)
def private_state(
    tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> Path:
    """Each test its own state folder: what one test's run remembers (the era each
    server spoke, eras.json) must not change what another sees on the wire."""
    state = tmp_path_factory.mktemp("state")
    monkeypatch.setenv("XDG_STATE_HOME", str(state))
    return state


@pytest.fixture(autouse=True)
def private_runtime(
    tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> Path:
    """Each test its own folder of proxy attach sockets: a proxy that one test (or another
    test process running in parallel) starts is never listed, picked or attached to by
    another. A test that needs a shorter folder still makes its own (``runtime_folder``)."""
    runtime = tmp_path_factory.mktemp("run")
    monkeypatch.setenv("MCP_INSPECT_RUNTIME_DIR", str(runtime))
    return runtime
