"""Run the real command line as a user does: ``python -m inspector ...`` in a child process,
from the project's root, bounded by a timeout."""

from __future__ import annotations

import subprocess
from typing import Any, NamedTuple

import anyio
from paths import PY, ROOT


def inspector_argv(*args: str) -> list[str]:
    """The command line that runs ``mcp-inspect ARGS`` with this Python."""
    return [PY, "-m", "inspector", *args]


def cli(*args: str, timeout: float = 60, **kw: Any) -> subprocess.CompletedProcess[str]:
    """Run ``mcp-inspect ARGS`` to its end; ``kw`` goes to ``subprocess.run`` (env, input, ...)."""
    return subprocess.run(
        inspector_argv(*args),
        capture_output=True,
        text=True,
        timeout=timeout,
        cwd=ROOT,
        check=False,
        **kw,
    )


class Done(NamedTuple):
    returncode: int
    stdout: str
    stderr: str


async def cli_async(*args: str, timeout: float = 60) -> Done:
    """:func:`cli` without blocking the event loop (for tests whose servers live in it)."""
    with anyio.fail_after(timeout):
        done = await anyio.run_process(inspector_argv(*args), check=False, cwd=ROOT)
    return Done(done.returncode, done.stdout.decode(), done.stderr.decode())
