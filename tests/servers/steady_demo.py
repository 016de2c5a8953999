"""The demo server with task ids 0101...01, 0202...02 instead of random ones, so a
snapshot of the Tasks view shows the same ids on every run (python steady_demo.py)."""

from __future__ import annotations

import itertools
import sys
from types import SimpleNamespace

import inspector.demo.tasks as demo_tasks
from inspector.demo.__main__ import main

_ids = itertools.count(1)
# the one use of os in the demo's task store is os.urandom(12) for a new task's id
demo_tasks.os = SimpleNamespace(urandom=lambda n: bytes([next(_ids)]) * n)  # type: ignore[assignment]

if __name__ == "__main__":
    sys.exit(main())
