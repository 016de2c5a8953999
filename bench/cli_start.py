"""Start-up cost of the command line's entry points, against ``python -c pass``.

Each command runs to its end; runs are interleaved so machine noise hits all alike.
Prints the median wall time and CPU time (user + sys of the process and the children
it waited for) and each one's ratio to ``python -c pass`` measured in the same run:

    --help                   python -m inspector --help
    --version                python -m inspector --version
    usage error              python -m inspector --cli (no --method: exit 2)
    --cli tools/list         a one-shot call over stdio on the bundled demo server
    --cli tools/call         the same, calling the echo tool (its schemas checked)
    demo server              python -m inspector.demo, stdin at end of file
    lifeline                 the stdio watchdog, a group announced and withdrawn at once

    python bench/cli_start.py [--runs 15]
"""

from __future__ import annotations

import argparse
import os
import signal
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PY = sys.executable
DEMO = [PY, "-m", "inspector.demo"]
CLI = [PY, "-m", "inspector", "--cli", "--no-record"]
CALL = ["--method", "tools/call", "--tool-name", "echo", "--tool-arg", "message=hi"]


def commands(pgid: int) -> dict[str, tuple[list[str], bytes | None, set[int]]]:
    """name -> (argv, stdin bytes (None: /dev/null), the exit codes that are right)."""
    watchdog = str(ROOT / "inspector" / "transports" / "watchdog.py")
    return {
        "python -c pass": ([PY, "-c", "pass"], None, {0}),
        "--help": ([PY, "-m", "inspector", "--help"], None, {0}),
        "--version": ([PY, "-m", "inspector", "--version"], None, {0}),
        "usage error": ([PY, "-m", "inspector", "--cli", "--", *DEMO], None, {2}),
        "--cli tools/list": ([*CLI, "--method", "tools/list", "--", *DEMO], None, {0}),
        "--cli tools/call": ([*CLI, *CALL, "--", *DEMO], None, {0}),
        "demo server": (DEMO, None, {0}),
        # the watchdog of a harmless group (a sleep of our own), released at once
        "lifeline": ([PY, "-I", "-S", watchdog], f"+{pgid} 1\n-{pgid}\n".encode(), {0}),
    }


def timed(argv: list[str], stdin: bytes | None, ok: set[int]) -> tuple[float, float]:
    """(wall seconds, CPU seconds) of one run."""
    start = time.perf_counter()
    proc = subprocess.Popen(
        argv,
        stdin=subprocess.PIPE if stdin is not None else subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        cwd=ROOT,
    )
    if stdin is not None:
        assert proc.stdin is not None
        proc.stdin.write(stdin)
        proc.stdin.close()
    assert proc.stderr is not None
    err = proc.stderr.read()
    _, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    wall = time.perf_counter() - start
    if proc.returncode not in ok:
        raise SystemExit(f"failed ({proc.returncode}): {' '.join(argv)}\n{err[-2000:]!r}")
    return wall, usage.ru_utime + usage.ru_stime


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=15)
    opts = parser.parse_args()
    group = subprocess.Popen(["sleep", "600"], start_new_session=True)
    try:
        table = commands(group.pid)
        for argv, stdin, ok in table.values():
            timed(argv, stdin, ok)  # warm the OS caches
        walls: dict[str, list[float]] = {name: [] for name in table}
        cpus: dict[str, list[float]] = {name: [] for name in table}
        for _ in range(opts.runs):
            for name, (argv, stdin, ok) in table.items():
                wall, cpu = timed(argv, stdin, ok)
                walls[name].append(wall)
                cpus[name].append(cpu)
    finally:
        os.killpg(group.pid, signal.SIGKILL)
        group.wait()
    base_wall = statistics.median(walls["python -c pass"])
    base_cpu = statistics.median(cpus["python -c pass"])
    print(f"{opts.runs} runs each, medians; ratio: to python -c pass in the same run")
    print(f"{'':18} {'wall ms':>8} {'ratio':>6} {'CPU ms':>8} {'ratio':>6}")
    for name in table:
        wall, cpu = statistics.median(walls[name]), statistics.median(cpus[name])
        print(
            f"{name:18} {wall * 1000:8.1f} {wall / base_wall:6.1f} "
            f"{cpu * 1000:8.1f} {cpu / max(base_cpu, 1e-6):6.1f}"
        )


if __name__ == "__main__":
    main()
