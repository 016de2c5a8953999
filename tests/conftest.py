"""Shared fixtures: a bounded runner and paths to test servers."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SERVERS = Path(__file__).resolve().parent / "servers"
PYTHON = sys.executable


@pytest.fixture
def servers_dir() -> Path:
    return SERVERS
