"""Shared fixtures: a bounded runner and paths to test servers."""

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
