"""Run ``mcp-inspect ARGS`` inside the test process: the exit code, stdout and stderr a
child process would give, without starting Python and loading the package again (about
0.5 s of CPU a run, hundreds of runs a suite).

    from cli_inprocess import cli_inprocess
    done = cli_inprocess("--cli", "--method", "tools/list", "--", *SERVER)
    assert done.returncode == 0, done.stderr

For tests of what a command prints and returns. Tests of the process itself (signals, a
terminal, stdin/stdout piping, what reaches its stderr file, what its children inherit or
leave behind), commands that take signals in their event loop (``load``: only a main
thread may) and one end-to-end run per command keep :func:`cli_runner.cli`, a real child
process.

The run is what ``python -m inspector ARGS`` runs (``inspector.__main__.main`` with
``sys.argv`` set), in a thread of its own (no event loop of the test's in the way), with
stdin, stdout, stderr, the environment, the working folder (the project's root, as
``cli`` runs it), the root logger and the state-file notes said once a process as a
fresh process has them, all put back after: nothing leaks from one call into the next
test (tests/cli/test_cli_inprocess.py). Calls are one at a time (these are
process-wide); a run still going at ``timeout`` fails the test.
"""

from __future__ import annotations

import io
import logging
import os
import subprocess
import sys
import threading
import traceback
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from typing import Any

import anyio
from paths import ROOT

from inspector.record import state as state_files

_ONE_AT_A_TIME = threading.Lock()


def cli_inprocess(
    *args: str, timeout: float = 60, env: Mapping[str, str] | None = None, input: str = ""
) -> subprocess.CompletedProcess[str]:
    """``mcp-inspect ARGS`` run to its end in this process; ``env`` replaces the whole
    environment (as ``subprocess.run(env=...)`` does), ``input`` is stdin's text."""
    argv = [str(arg) for arg in args]
    with _ONE_AT_A_TIME:
        out, err = _stream("strict"), _stream("backslashreplace")
        stdin = io.TextIOWrapper(io.BytesIO(input.encode()), encoding="utf-8")
        codes: list[int] = []
        with _process_state(argv, env, stdin, out, err):
            runner = threading.Thread(target=_main, args=(codes,), name="mcp-inspect", daemon=True)
            runner.start()
            runner.join(timeout)
            if runner.is_alive():  # a thread cannot be killed: left to end on its own
                raise subprocess.TimeoutExpired(["mcp-inspect", *argv], timeout)
        return subprocess.CompletedProcess(["mcp-inspect", *argv], codes[0], _text(out), _text(err))


async def cli_inprocess_async(
    *args: str, timeout: float = 60, env: Mapping[str, str] | None = None, input: str = ""
) -> subprocess.CompletedProcess[str]:
    """:func:`cli_inprocess` without blocking the test's event loop (its servers live there)."""

    def run() -> subprocess.CompletedProcess[str]:
        return cli_inprocess(*args, timeout=timeout, env=env, input=input)

    return await anyio.to_thread.run_sync(run)


def _main(codes: list[int]) -> None:
    """What ``python -m inspector`` does with ``sys.argv``, the exit code as Python gives it."""
    from inspector.__main__ import main

    try:
        codes.append(main())
    except SystemExit as exc:
        if exc.code is None or isinstance(exc.code, int):
            codes.append(exc.code or 0)
        else:  # sys.exit("message"): Python prints it and exits 1
            print(exc.code, file=sys.stderr)
            codes.append(1)
    except BaseException:  # an uncaught error: Python prints the traceback, exit 1
        traceback.print_exc()
        codes.append(1)
    finally:
        sys.stdout.flush()
        sys.stderr.flush()


def _stream(errors: str) -> io.TextIOWrapper:
    return io.TextIOWrapper(io.BytesIO(), encoding="utf-8", errors=errors, write_through=True)


def _text(stream: io.TextIOWrapper) -> str:
    """The bytes written, read back as ``subprocess.run(text=True)`` reads a pipe."""
    stream.flush()
    buffer = stream.buffer
    assert isinstance(buffer, io.BytesIO)
    data = buffer.getvalue().decode("utf-8")
    return data.replace("\r\n", "\n").replace("\r", "\n")


@contextmanager
def _process_state(
    argv: list[str],
    env: Mapping[str, str] | None,
    stdin: io.TextIOWrapper,
    out: io.TextIOWrapper,
    err: io.TextIOWrapper,
) -> Iterator[None]:
    """The process-wide state a fresh ``mcp-inspect`` starts with, restored on the way out."""
    saved: dict[str, Any] = {
        "argv": sys.argv,
        "stdin": sys.stdin,
        "stdout": sys.stdout,
        "stderr": sys.stderr,
    }
    environ = dict(os.environ)
    cwd = os.getcwd()
    root = logging.getLogger()
    handlers, level = root.handlers[:], root.level
    said = set(state_files._SAID)
    try:
        # what a process says once (a state file ignored) is said again by the next run
        state_files._SAID.clear()
        sys.argv = [os.path.join(str(ROOT), "inspector", "__main__.py"), *argv]
        sys.stdin, sys.stdout, sys.stderr = stdin, out, err
        if env is not None:
            os.environ.clear()
            os.environ.update(env)
        os.chdir(ROOT)
        # no handler configured, as in a fresh process: warnings reach stderr through
        # logging's last resort instead of pytest's capture
        root.handlers, root.level = [], logging.WARNING
        yield
    finally:
        state_files._SAID.clear()
        state_files._SAID.update(said)
        root.handlers, root.level = handlers, level
        os.chdir(cwd)
        if env is not None:
            os.environ.clear()
            os.environ.update(environ)
        sys.argv = saved["argv"]
        sys.stdin, sys.stdout, sys.stderr = saved["stdin"], saved["stdout"], saved["stderr"]
