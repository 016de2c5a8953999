"""The tests' process helpers."""

from __future__ import annotations

import subprocess
import time

from paths import PY
from processes import line_with

TWO_LINES = (
    "import sys, time; sys.stderr.write('a warning\\nlistening on URL\\nlater\\n'); "
    "sys.stderr.flush(); time.sleep(30)"
)


def test_the_ready_line_is_found_when_it_comes_in_one_write_with_others() -> None:
    """A warning and the ready line in one write: the ready line is found at once (a
    ``select`` on the buffered pipe waited out its timeout, and a proxy test failed), and
    what follows it is left for later readers."""
    child = subprocess.Popen([PY, "-c", TWO_LINES], stderr=subprocess.PIPE)
    assert child.stderr is not None
    try:
        began = time.monotonic()
        line, seen = line_with(child.stderr, b"listening on ", 20)
        assert line == b"listening on URL"
        assert seen == b"a warning\nlistening on URL\n"
        assert time.monotonic() - began < 10
        assert child.stderr.readline() == b"later\n"
    finally:
        child.kill()
        child.wait()
        child.stderr.close()


def test_a_pipe_that_ends_first_gives_no_line() -> None:
    child = subprocess.Popen([PY, "-c", "print('bye')"], stdout=subprocess.PIPE)
    assert child.stdout is not None
    try:
        assert line_with(child.stdout, b"PORT ", 20) == (None, b"bye\n")
    finally:
        child.wait()
        child.stdout.close()
