"""Where the project and its test material are, and how to start Python and the demo.

Resolved from this module's own place (tests/paths.py), so a test file one folder deeper
(tests/engine/..., tests/tui/...) finds the same places. Import it as ``from paths import ...``:
pytest puts tests/ on sys.path, being the folder of the root conftest.py."""

from __future__ import annotations

import sys
from pathlib import Path

TESTS = Path(__file__).resolve().parent
ROOT = TESTS.parent
SERVERS = TESTS / "servers"
DATA = TESTS / "data"
PY = sys.executable
DEMO = [PY, "-m", "inspector.demo"]
