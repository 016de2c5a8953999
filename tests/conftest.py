"""Shared fixtures: a bounded runner and paths to test servers."""

from __future__ import annotations

from pathlib import Path

import pytest
from paths import SERVERS


@pytest.fixture
def servers_dir() -> Path:
    return SERVERS
