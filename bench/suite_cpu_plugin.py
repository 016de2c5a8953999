"""pytest plugin for ``bench/suite_cpu.py``: each worker writes the test it runs to a file.

The file is named by the worker's pid in ``$SUITE_CPU_MARKS``; the sampler reads it to
charge the CPU it sees to that test. The tests marked ``slow`` are listed beside it
(``slow-PID``, one node id a line), so the bench can name the quick run's costly tests.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item: pytest.Item) -> Iterator[None]:
    marks = os.environ.get("SUITE_CPU_MARKS")
    mark = Path(marks) / str(os.getpid()) if marks else None
    if mark is not None:
        mark.write_text(item.nodeid)
        if item.get_closest_marker("slow") is not None:
            with (mark.parent / f"slow-{mark.name}").open("a") as slow:
                slow.write(item.nodeid + "\n")
    yield
    if mark is not None:
        mark.write_text("")
