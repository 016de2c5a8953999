"""Where the test suite's CPU goes: each test's own CPU and that of the processes it starts.

    python bench/suite_cpu.py [--top N] [--out FILE] -- [pytest args...]

Runs pytest (its arguments after ``--``) with a small plugin (``bench/suite_cpu_plugin.py``)
that marks which test each worker is running, and samples ``/proc`` every 50 ms: the CPU of
every process below pytest is charged to the test its worker was running when the CPU was
spent. A 2-core machine runs the suite CPU-bound, so CPU, not wall time, is what a faster
suite must cut; CPU also holds still on a loaded machine where wall time does not.

Prints the suite's wall and CPU time, the share the samples saw (processes that live less
than one sample are missed), the costliest tests and files, and the started processes by
command.
"""

from __future__ import annotations

import argparse
import collections
import json
import os
import resource
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

TICK = os.sysconf("SC_CLK_TCK")
SAMPLE_S = 0.05


def _read_stat(pid: int) -> tuple[int, float] | None:
    """(parent pid, CPU seconds) of a process, or None once it is gone."""
    try:
        raw = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    # the command name sits in parentheses and may hold spaces: split after the last ')'
    fields = raw[raw.rindex(")") + 2 :].split()
    return int(fields[1]), (int(fields[11]) + int(fields[12])) / TICK


def _cmdline(pid: int) -> str:
    try:
        raw = Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return "?"
    return raw.replace(b"\0", b" ").decode(errors="replace").strip()


def command_kind(cmdline: str) -> str:
    """A short name for what a process runs: a script, a module, a package, a program."""
    parts = cmdline.split()
    if not parts:
        return "?"
    program = os.path.basename(parts[0])
    if program.startswith("python"):
        skip = False
        for index, part in enumerate(parts[1:], start=1):
            if skip:  # the value of -W or -X, not the script
                skip = False
            elif part == "-m" and index + 1 < len(parts):
                return f"python -m {parts[index + 1]}"
            elif part == "-c":
                return "python -c"
            elif part in ("-W", "-X"):
                skip = True
            elif not part.startswith("-"):
                return f"python {Path(part).name}"
        return "python"
    if program in {"node", "npm", "npx"}:
        package = next((p for p in parts[1:] if "modelcontextprotocol" in p or "/" in p), "")
        return f"{program} {Path(package).name if package else ''}".strip()
    return program


class Sampler:
    """Charges the CPU of every process below ``root`` to the test its worker runs."""

    def __init__(self, root: int, marks: Path) -> None:
        self.root = root
        self.marks = marks
        self.seen: dict[int, float] = {}
        self.kind: dict[int, str] = {}
        self.by_test: dict[str, float] = collections.defaultdict(float)
        self.spawned_by_test: dict[str, float] = collections.defaultdict(float)
        self.by_kind: dict[str, float] = collections.defaultdict(float)
        self.count_by_kind: collections.Counter[str] = collections.Counter()

    def _current_test(self, worker: int) -> str:
        try:
            return (self.marks / str(worker)).read_text() or "(between tests)"
        except OSError:
            return "(worker start-up)"

    def sample(self) -> None:
        stats: dict[int, tuple[int, float]] = {}
        for entry in os.listdir("/proc"):
            if entry.isdigit():
                stat = _read_stat(int(entry))
                if stat is not None:
                    stats[int(entry)] = stat
        for pid, (parent, cpu) in stats.items():
            worker = self._worker_of(pid, stats)
            if worker is None:
                continue
            delta = cpu - self.seen.get(pid, 0.0)
            self.seen[pid] = cpu
            kind = self.kind.get(pid)
            if kind is None:
                line = _cmdline(pid)
                kind = command_kind(line)
                # forked but not yet exec'd, a process still shows its parent's command
                # line (a worker's is ``python -c ...``): named again at the next sample,
                # so that what it then runs is charged, not its parent's name
                if pid == worker or line != _cmdline(parent):
                    self.kind[pid] = kind
                    if pid != worker:
                        self.count_by_kind[kind] += 1
            if delta <= 0:
                continue
            test = "(controller)" if worker == self.root else self._current_test(worker)
            self.by_test[test] += delta
            if pid != worker and worker != self.root:
                self.spawned_by_test[test] += delta
                self.by_kind[kind] += delta

    def _worker_of(self, pid: int, stats: dict[int, tuple[int, float]]) -> int | None:
        """The xdist worker (a child of the root) above ``pid``, the root itself, or None."""
        if pid == self.root:
            return self.root
        hops = 0
        while pid in stats and hops < 64:
            parent = stats[pid][0]
            if parent == self.root:
                return pid
            pid, hops = parent, hops + 1
        return None


QUICK_BUDGET_S = 1.0  # a test's CPU past which it is marked slow (out of the quick run)


def unmarked_costly(spent: dict[str, float], marks: Path) -> list[tuple[str, float]]:
    """Tests not marked ``slow`` that cost at least ``QUICK_BUDGET_S`` of CPU (theirs and
    their processes'), costliest first: what keeps ``pytest -m "not slow"`` from being
    the quick run (under two minutes on two cores) until they are marked."""
    slow: set[str] = set()
    for listed in marks.glob("slow-*"):
        slow.update(listed.read_text().splitlines())
    costly = {
        test: cpu
        for test, cpu in spent.items()
        if cpu >= QUICK_BUDGET_S and test not in slow and not test.startswith("(")
    }
    return top(costly, len(costly))


def top(spent: dict[str, float], count: int) -> list[tuple[str, float]]:
    """The ``count`` biggest entries of ``spent``."""
    return sorted(spent.items(), key=lambda item: item[1], reverse=True)[:count]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--top", type=int, default=30)
    parser.add_argument("--out", type=Path, help="write every test's CPU as JSON here")
    parser.add_argument("pytest_args", nargs="*")
    args = parser.parse_args()
    marks = Path(tempfile.mkdtemp(prefix="suite-cpu-"))
    env = dict(os.environ, SUITE_CPU_MARKS=str(marks))
    paths = [str(Path(__file__).parent), env.get("PYTHONPATH", "")]
    env["PYTHONPATH"] = os.pathsep.join(filter(None, paths))
    started = time.monotonic()
    proc = subprocess.Popen(
        [sys.executable, "-m", "pytest", "-p", "suite_cpu_plugin", *args.pytest_args], env=env
    )
    sampler = Sampler(proc.pid, marks)
    # stopped early (ctrl+c, ``timeout``): pytest stopped, and what was seen still printed
    signal.signal(signal.SIGTERM, signal.default_int_handler)
    try:
        while proc.poll() is None:
            sampler.sample()
            time.sleep(SAMPLE_S)
    except KeyboardInterrupt:
        proc.terminate()
        proc.wait()
    wall = time.monotonic() - started
    total_cpu = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = total_cpu.ru_utime + total_cpu.ru_stime
    seen = sum(sampler.by_test.values())
    print(f"\nwall {wall:.0f} s, CPU {cpu:.0f} s ({cpu / wall:.2f} cores), seen {seen:.0f} s")
    print(f"\n{'CPU s':>8} {'spawned':>8}  test (top {args.top})")
    for test, spent in top(sampler.by_test, args.top):
        print(f"{spent:8.1f} {sampler.spawned_by_test[test]:8.1f}  {test}")
    by_file: dict[str, float] = collections.defaultdict(float)
    for test, spent in sampler.by_test.items():
        by_file[test.split("::")[0]] += spent
    print(f"\n{'CPU s':>8}  file (top {args.top})")
    for name, spent in top(by_file, args.top):
        print(f"{spent:8.1f}  {name}")
    print(f"\n{'CPU s':>8} {'count':>6}  started process")
    for kind, spent in top(sampler.by_kind, args.top):
        print(f"{spent:8.1f} {sampler.count_by_kind[kind]:6d}  {kind}")
    costly = unmarked_costly(sampler.by_test, marks)
    print(f"\nnot marked slow, {QUICK_BUDGET_S:g} s of CPU or more: {len(costly)}")
    for test, spent in costly:
        print(f"{spent:8.1f}  {test}")
    if args.out:
        args.out.write_text(
            json.dumps(
                {
                    "wall": wall,
                    "cpu": cpu,
                    "tests": dict(sampler.by_test),
                    "spawned": dict(sampler.spawned_by_test),
                    "kinds": dict(sampler.by_kind),
                    "kind_counts": dict(sampler.count_by_kind),
                },
                indent=1,
            )
        )
    return proc.returncode


if __name__ == "__main__":
    raise SystemExit(main())
