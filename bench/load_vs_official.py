"""`mcp-inspect load` against the official Inspector CLI's `--load`, in one run.

The same call (server-everything's `echo`) for the same time at the same concurrency over
Streamable HTTP, each tool's own summary read back; the client's CPU per call measured
from the child's resource usage (both are bound by the client's CPU on a small machine).

Usage: python bench/load_vs_official.py [--seconds 10] [--concurrency 8] [--rounds 2]
"""

from __future__ import annotations

import argparse
import json
import re
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]


def cpu_children() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def ours(url: str, seconds: float, concurrency: int) -> tuple[int, float, float]:
    out = Path(tempfile.mkdtemp()) / "run.json"
    before = cpu_children()
    subprocess.run(
        [
            sys.executable,
            "-m",
            "inspector",
            "load",
            url,
            "--tool-name",
            "echo",
            "--tool-arg",
            "message=hi",
            "-c",
            str(concurrency),
            "--duration",
            f"{seconds}s",
            "--json",
            str(out),
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    )
    cpu = cpu_children() - before
    data = json.loads(out.read_text())
    return int(data["calls"]), float(data["throughput"]), cpu


def official(url: str, seconds: float, concurrency: int) -> tuple[int, float, float, str]:
    from official_inspector import official_cli

    home = Path(tempfile.mkdtemp())
    before = cpu_children()
    started = time.monotonic()
    done = official_cli(
        home,
        "--server-url",
        url,
        "--transport",
        "http",
        "--method",
        "tools/call",
        "--tool-name",
        "echo",
        "--tool-arg",
        "message=hi",
        "--load",
        "--load-concurrency",
        str(concurrency),
        "--load-duration",
        str(seconds),
        timeout=seconds * 6 + 60,
    )
    wall = time.monotonic() - started
    cpu = cpu_children() - before
    text = done.stdout + done.stderr
    calls = _number(text, r'"(?:total|requests|calls|count)"\s*:\s*(\d+)') or _number(
        text, r"(\d+)\s+(?:requests|calls)"
    )
    throughput = _float(text, r'"(?:throughput|rps|requestsPerSecond)"\s*:\s*([\d.]+)')
    if throughput is None and calls:
        throughput = calls / min(wall, seconds)
    return calls or 0, throughput or 0.0, cpu, text


def _number(text: str, pattern: str) -> int | None:
    match = re.search(pattern, text, re.I)
    return int(match.group(1)) if match else None


def _float(text: str, pattern: str) -> float | None:
    match = re.search(pattern, text, re.I)
    return float(match.group(1)) if match else None


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=10)
    parser.add_argument("--concurrency", type=int, default=8)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--show-official", action="store_true", help="print its summary")
    args = parser.parse_args()
    from servers.http_support import everything_server

    with everything_server("streamableHttp") as base:
        url = f"{base}/mcp"
        for round_ in range(1, args.rounds + 1):
            o_calls, o_rate, o_cpu = ours(url, args.seconds, args.concurrency)
            p_calls, p_rate, p_cpu, text = official(url, args.seconds, args.concurrency)
            if args.show_official or not p_calls:
                print(text[-3000:])
            ratio = o_rate / p_rate if p_rate else float("nan")
            o_per = o_cpu / o_calls * 1000 if o_calls else float("nan")
            p_per = p_cpu / p_calls * 1000 if p_calls else float("nan")
            print(
                f"round {round_}: mcp-inspect load {o_rate:8.1f} calls/s ({o_calls} calls, "
                f"{o_per:.2f} ms CPU a call) | official --load {p_rate:8.1f} calls/s "
                f"({p_calls} calls, {p_per:.2f} ms CPU a call) | ratio {ratio:.2f}x"
            )


if __name__ == "__main__":
    main()
