"""A workspace of many stdio servers from one config file: do they connect in parallel?

Writes a config of N copies of the bundled demo server (``mcpServers``), opens it in the
real app (headless ``run_test``, as the command line's ``--config FILE`` does), and
measures the time until every server is connected, against one demo server's own start
alone in the same app (the slowest of a few runs). Parallel start: the ratio stays under
2; one after another it would be near N. From the app's first screen on, a key (down or
up in the tools list) is posted every 50 ms and timed until the list handles it (as
``log_flood.py`` does, ``keys.py``; ``pilot.press`` would time an idle screen instead),
and the app's CPU while they connect is set against the wall time: a small share means
its keys waited for a CPU (twenty servers starting at once), not for the app's work.
The CPU of the whole start (the app's, and its servers' and watchdog's read from /proc
when all are connected) over the machine's cores is the floor of that time: twenty
servers' own start CPU is most of it.

Usage: python bench/workspace_start.py [--servers 20] [--single-runs 3]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from keys import press_keys  # noqa: E402 - bench/, beside this file
from textual.app import ScreenStackError  # noqa: E402

from inspector.tui.app import InspectorApp  # noqa: E402
from inspector.tui.mode import Live  # noqa: E402
from inspector.workspace.entries import config_entries  # noqa: E402
from inspector.workspace.status import State  # noqa: E402

BOUND = 120.0  # seconds: a server that has not connected by then fails the bench
KEYS = 20  # keys handled once all are connected (and all those pressed before)


def write_config(folder: Path, servers: int) -> Path:
    demo = {"command": sys.executable, "args": ["-m", "inspector.demo"]}
    path = folder / "mcp.json"
    path.write_text(json.dumps({"mcpServers": {f"demo{n:02}": demo for n in range(servers)}}))
    return path


def connected(app: InspectorApp) -> bool:
    return all(view.status.state is State.CONNECTED for view in app.views)


def failed(app: InspectorApp) -> list[str]:
    return [v.name for v in app.views if v.status.state is State.FAILED]


Started = tuple[float, float, list[float], int, float, float]


async def start(config: Path, count: int) -> Started:
    """Seconds until the app's first screen takes keys (the tools list focused) and until
    the first ``count`` servers of ``config`` are all connected, and the delays (ms) of
    keys pressed from the first screen on (while they connect, and a few after): each
    posted as the driver does and timed until the tools list handles it
    (``keys.press_keys``); how many of them were pressed before all had connected; and
    the CPU seconds the app's process had between the two (its share of the wall time
    says whether a slow key waited for the app's own work or for a CPU); and the CPU
    seconds of the whole start until all connected (the app's and its children's).
    The keys start from a task of their own: ``run_test`` returns
    only at the app's first idle moment, which came once every server had connected."""
    (first, *others) = config_entries(config)[:count]
    app = InspectorApp(Live(first.target), workspace=[(e.name, e.target, None) for e in others])
    began, began_cpu = time.perf_counter(), time.process_time()
    took = screen = total_cpu = 0.0
    cpu = 0.0  # the app's process_time at the first screen, then the CPU it had since
    handled: list[float] = []
    connecting = 0  # keys pressed before every server had connected

    def check() -> None:
        if failed(app) or time.perf_counter() - began > BOUND:
            raise SystemExit(f"not connected: {failed(app) or 'timed out'}")

    def done() -> bool:
        nonlocal took, connecting, cpu, total_cpu
        check()
        if not took and connected(app):
            took = time.perf_counter() - began
            cpu = time.process_time() - cpu
            total_cpu = time.process_time() - began_cpu + children_cpu()
            connecting = len(handled)
        return bool(took) and len(handled) >= connecting + KEYS

    async def press() -> list[float]:
        nonlocal screen, cpu
        while not tools_focused(app):
            check()
            await asyncio.sleep(0.005)
        screen = time.perf_counter() - began
        cpu = time.process_time()
        tools = app.main.query_one("#list-tools")
        for action in ("action_cursor_down", "action_cursor_up"):
            setattr(tools, action, spied(getattr(tools, action), handled))
        return await press_keys(app, handled, done, keys=("down", "up"))

    pressing = asyncio.create_task(press())
    async with app.run_test(size=(120, 35)) as pilot:
        delays = await pressing
        await pilot.press("q")
    return screen, took, [delay * 1000 for delay in delays], connecting, cpu, total_cpu


def children_cpu() -> float:
    """CPU seconds of this process's descendants alive now (the servers, the lifeline
    watchdog), from /proc; 0 where there is none."""
    tick = os.sysconf("SC_CLK_TCK")
    parent_of: dict[int, tuple[int, float]] = {}
    for entry in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = entry.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        parent_of[int(entry.parent.name)] = (
            int(fields[1]),
            (int(fields[11]) + int(fields[12])) / tick,
        )
    mine, total = {os.getpid()}, 0.0
    for _ in range(8):  # a few generations: servers' own children too
        for pid, (parent, used) in parent_of.items():
            if parent in mine and pid not in mine:
                mine.add(pid)
                total += used
    return total


def tools_focused(app: InspectorApp) -> bool:
    """The first screen is up and takes keys: its tools list holds the focus."""
    try:
        return app.is_running and app.focused is not None and app.focused.id == "list-tools"
    except ScreenStackError:  # no screen yet
        return False


def spied(action: Callable[[], None], handled: list[float]) -> Callable[[], None]:
    """``action`` (a key's handling), noting when it runs."""

    def spy() -> None:
        handled.append(time.perf_counter())
        action()

    return spy


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--servers", type=int, default=20)
    parser.add_argument("--single-runs", type=int, default=3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        config = write_config(Path(folder), args.servers)
        runs = [await start(config, 1) for _ in range(args.single_runs)]
        singles = [run[1] for run in runs]
        alone = [key for run in runs for key in run[2]]
        slowest = max(singles)
        screen, took, keys, connecting, cpu, total_cpu = await start(config, args.servers)
    shown = ", ".join(f"{s:.2f}" for s in singles)
    print(f"one demo server alone, connected: {shown} s (slowest {slowest:.2f} s)")
    print(
        f"{args.servers} demo servers from one config: first screen taking keys {screen:.2f} s,"
        f" all connected {took:.2f} s"
    )
    print(f"ratio: {took / slowest:.2f}x the slowest single start (target: under 2x)")
    print(f"keys while they connect, press to handled: {figures(keys[:connecting])}")
    wall = took - screen
    print(
        f"the app's CPU from its first screen until all connected: {cpu:.2f} s of"
        f" {wall:.2f} s ({cpu / wall:.0%} of one core: the rest of the time it waited for a CPU"
        " or for the servers)"
        if wall > 0
        else "all connected before the first screen took keys"
    )
    cores = os.cpu_count() or 1
    floor = total_cpu / cores
    print(
        f"CPU of the whole start until all connected (the app, its servers, the watchdog):"
        f" {total_cpu:.2f} s; on {cores} cores at least {floor:.2f} s of wall ="
        f" {floor / slowest:.2f}x the slowest single start (the floor of the ratio)"
    )
    print(f"keys once all are connected: {figures(keys[connecting:])}")
    print(f"the same keys, one server alone: {figures(alone)} (target for both: under 100 ms)")


def figures(delays: list[float]) -> str:
    """Count, median, 95th percentile and worst of key delays in ms."""
    ranked = sorted(delays)
    if not ranked:
        return "none"
    p95 = ranked[min(len(ranked) - 1, int(len(ranked) * 0.95))]
    return (
        f"{len(ranked)} keys, median {statistics.median(ranked):.0f} ms,"
        f" p95 {p95:.0f} ms, max {ranked[-1]:.0f} ms"
    )


if __name__ == "__main__":
    asyncio.run(main())
