"""Shared fixtures: paths to test servers, and each test's own state and runtime folders
(so tests running in parallel processes never see each other's files or proxies)."""

from __future__ import annotations

from pathlib import Path

import pytest
from paths import SERVERS


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
