"""Two builds of the proxy's HTTP front at the same time: which costs less CPU a call.

``proxy_overhead.py --http`` measures one proxy after another; on a shared machine the
load moves between those rounds by more than most changes save (one proxy's figure went
from 0.94 to 1.12 ms a call between two runs of the same code). Here both proxies run
at once, each with its own client (the raw keep-alive client of ``proxy_overhead``), in
front of the same Streamable HTTP server (an official-SDK one, JSON responses), and each
round measures both over the same interval: what the machine does meanwhile hits both
alike. Printed: each round's CPU a call of each proxy and their ratio, then the median.

    python bench/proxy_ab.py [--base REV] [--rounds 12] [--calls 1600] [--window 8]
        [--b-args=--no-record]

A is the proxy at git revision ``--base`` (default ``main``, its ``inspector`` package
unpacked into a temporary folder), B the working tree's; ``--b-args`` adds arguments to
B's command line (``--base HEAD --b-args=--no-record``: what recording costs).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import shlex
import statistics
import subprocess
import tempfile
from pathlib import Path
from typing import Any

from proxy_overhead import (  # bench/, beside this file
    PROXY,
    PY,
    ROOT,
    cpu_ms,
    http_client,
    started,
    throughput,
)

from inspector.proxy.fronttoken import read_token


def unpacked(rev: str, into: Path) -> Path:
    """The ``inspector`` package at ``rev``, unpacked into ``into``."""
    archive = subprocess.run(
        ["git", "-C", str(ROOT), "archive", rev, "inspector"], capture_output=True, check=False
    )
    if archive.returncode != 0:
        raise SystemExit(f"git archive {rev}: {archive.stderr.decode().strip()}")
    subprocess.run(["tar", "-x", "-C", str(into)], input=archive.stdout, check=True)
    return into


async def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--base", default="main", help="git revision of proxy A (default main)")
    parser.add_argument("--rounds", type=int, default=12)
    parser.add_argument("--calls", type=int, default=1600, help="calls a proxy a round")
    parser.add_argument("--window", type=int, default=8, help="calls in flight a proxy")
    parser.add_argument("--b-args", default="", help="more arguments for proxy B")
    opts = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        code = {"A": str(unpacked(opts.base, Path(tmp))), "B": str(ROOT)}
        extra = {"A": [], "B": shlex.split(opts.b_args)}
        server, port = await started(
            [PY, str(ROOT / "tests" / "servers" / "http_sdk_server.py"), "json"], b"PORT ", False
        )
        url = f"http://127.0.0.1:{port}/mcp"
        procs: dict[str, tuple[Any, str]] = {}
        try:
            for label in ("A", "B"):
                os.environ["PYTHONPATH"] = code[label]  # the proxy's package: A's or B's
                name = f"bench-ab-{label.lower()}"
                record = ["--record", f"{tmp}/{label}.jsonl"]
                command = [*PROXY, "--name", name, *record, *extra[label]]
                procs[label] = await started(
                    [*command, "--listen", "127.0.0.1:0", url], b"listening on ", True
                )
            os.environ.pop("PYTHONPATH", None)
            await rounds(opts, procs)
        finally:
            os.environ.pop("PYTHONPATH", None)
            for proc, _front in [*procs.values(), (server, url)]:
                proc.terminate()
                await proc.wait()


async def ended(client: Any, opts: argparse.Namespace, pid: int) -> float:
    """A round's calls through one proxy; its CPU when they are done (ms, so far)."""
    await throughput(client, opts.calls, opts.window)
    return cpu_ms(pid)


async def rounds(opts: argparse.Namespace, procs: dict[str, tuple[Any, str]]) -> None:
    async with contextlib.AsyncExitStack() as stack:
        clients = {
            label: await stack.enter_async_context(
                http_client(front, read_token(f"bench-ab-{label.lower()}"))
            )
            for label, (_proc, front) in procs.items()
        }
        await asyncio.gather(*(throughput(c, 400, opts.window) for c in clients.values()))
        done = opts.calls // opts.window * opts.window
        ratios: list[float] = []
        cpu: dict[str, list[float]] = {"A": [], "B": []}
        pids = {label: proc.pid for label, (proc, _front) in procs.items()}
        for n in range(opts.rounds):
            before = {label: cpu_ms(pid) for label, pid in pids.items()}
            ends = await asyncio.gather(
                *(ended(clients[label], opts, pids[label]) for label in clients)
            )
            after = dict(zip(clients, ends, strict=True))
            for label in cpu:
                cpu[label].append((after[label] - before[label]) / done)
            ratios.append(cpu["B"][-1] / cpu["A"][-1])
            print(
                f"round {n + 1}: A {cpu['A'][-1]:.3f}  B {cpu['B'][-1]:.3f} ms CPU a call, "
                f"B/A {ratios[-1]:.3f}  (load {os.getloadavg()[0]:.1f})",
                flush=True,
            )
    print("B/A round by round, sorted: " + " ".join(f"{r:.3f}" for r in sorted(ratios)))
    print(
        f"median: A {statistics.median(cpu['A']):.3f} ms, B {statistics.median(cpu['B']):.3f} ms "
        f"CPU a call; B/A {statistics.median(ratios):.3f}"
    )


if __name__ == "__main__":
    asyncio.run(main())
