"""Shared fixtures: paths to test servers, and each test's own state and runtime folders
(so tests running in parallel processes never see each other's files or proxies)."""

from __future__ import annotations

import compileall
import contextlib
import os
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from paths import SERVERS
from servers.http_support import everything_server, sdk_server
from servers.stateless_support import stateless_server

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


# One official-SDK HTTP server of each mode (tests/servers/http_sdk_server.py) for a whole
# worker, for the tests that only need *a* server and open their own MCP session: sessions
# are independent on these stateful servers, and each start costs 1.2 s of CPU (``import
# mcp``; 80 starts a suite when each module or test had its own). A test that stops the
# server, reads its output or changes its state starts its own (``sdk_server``).


@pytest.fixture(scope="session")
def sdk_sse_base() -> Iterator[str]:
    """``http://127.0.0.1:PORT`` of a Streamable HTTP server answering in SSE (at /mcp)."""
    with sdk_server("sse") as base:
        yield base


@pytest.fixture(scope="session")
def sdk_json_base() -> Iterator[str]:
    """``http://127.0.0.1:PORT`` of a Streamable HTTP server answering in JSON (at /mcp)."""
    with sdk_server("json") as base:
        yield base


@pytest.fixture(scope="session")
def sdk_legacy_base() -> Iterator[str]:
    """``http://127.0.0.1:PORT`` of a legacy HTTP+SSE (2024-11-05) server (at /sse)."""
    with sdk_server("legacy") as base:
        yield base


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


@pytest.fixture(scope="session")
def stateless_url() -> Iterator[Callable[[str], str]]:
    """``stateless_url(mode)``: the endpoint of the worker's stateless-era SDK server
    (tests/servers/stateless_server.py) in ``mode`` (http | http-json), started on first
    use; shared the same way."""
    with contextlib.ExitStack() as stack:
        started: dict[str, str] = {}

        def url(mode: str) -> str:
            if mode not in started:
                started[mode] = stack.enter_context(stateless_server(mode))
            return started[mode]

        yield url


@pytest.fixture(scope="session")
def everything_http_base() -> Iterator[str]:
    """``http://127.0.0.1:PORT`` of server-everything (node) over Streamable HTTP (at
    /mcp), shared the same way."""
    with everything_server("streamableHttp") as base:
        yield base


@pytest.fixture(scope="session")
def conformance_runs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A folder shared by every worker of this test session, where each conformance
    scenario is run once (``tests.conformance.run_through_adapter``)."""
    base = tmp_path_factory.getbasetemp()
    if os.environ.get("PYTEST_XDIST_WORKER"):  # each worker's base is in the session's
        base = base.parent
    folder = base / "conformance-runs"
    folder.mkdir(exist_ok=True)
    return folder
