"""A workspace of many stdio servers from one config file: do they connect in parallel?

Writes a config of N copies of the bundled demo server (``mcpServers``), opens it in the
real app (headless ``run_test``, as the command line's ``--config FILE`` does), and
measures the time until every server is connected, against one demo server's own start
alone in the same app (the slowest of a few runs). Parallel start: the ratio stays under
2; one after another it would be near N. From the app's first screen on, a key (down in
the tools list) is pressed every 50 ms and its round trip through the app timed.

Usage: python bench/workspace_start.py [--servers 20] [--single-runs 3]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from inspector.tui.app import InspectorApp  # noqa: E402
from inspector.tui.mode import Live  # noqa: E402
from inspector.workspace.entries import config_entries  # noqa: E402
from inspector.workspace.status import State  # noqa: E402

BOUND = 120.0  # seconds: a server that has not connected by then fails the bench
KEYS = 20  # keys pressed at least (more while the servers connect)


def write_config(folder: Path, servers: int) -> Path:
    demo = {"command": sys.executable, "args": ["-m", "inspector.demo"]}
    path = folder / "mcp.json"
    path.write_text(json.dumps({"mcpServers": {f"demo{n:02}": demo for n in range(servers)}}))
    return path


def connected(app: InspectorApp) -> bool:
    return all(view.status.state is State.CONNECTED for view in app.views)


def failed(app: InspectorApp) -> list[str]:
    return [v.name for v in app.views if v.status.state is State.FAILED]


async def start(config: Path, count: int) -> tuple[float, float, list[float]]:
    """Seconds until the app's first screen and until the first ``count`` servers of
    ``config`` are all connected, and the round trips (ms) of keys pressed from the first
    screen on (while they connect, and a few after)."""
    (first, *others) = config_entries(config)[:count]
    app = InspectorApp(Live(first.target), workspace=[(e.name, e.target, None) for e in others])
    keys: list[float] = []
    began = time.perf_counter()
    took = 0.0
    async with app.run_test(size=(120, 35)) as pilot:
        screen = time.perf_counter() - began
        while not took or len(keys) < KEYS:
            if failed(app) or time.perf_counter() - began > BOUND:
                raise SystemExit(f"not connected: {failed(app) or 'timed out'}")
            if not took and connected(app):
                took = time.perf_counter() - began
            pressed = time.perf_counter()
            await pilot.press("down")
            keys.append((time.perf_counter() - pressed) * 1000)
            await asyncio.sleep(0.05)
        await pilot.press("q")
    return screen, took, keys


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--servers", type=int, default=20)
    parser.add_argument("--single-runs", type=int, default=3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        config = write_config(Path(folder), args.servers)
        runs = [await start(config, 1) for _ in range(args.single_runs)]
        singles = [took for _, took, _ in runs]
        alone = [key for *_, keys in runs for key in keys]
        slowest = max(singles)
        screen, took, keys = await start(config, args.servers)
    shown = ", ".join(f"{s:.2f}" for s in singles)
    print(f"one demo server alone, connected: {shown} s (slowest {slowest:.2f} s)")
    print(
        f"{args.servers} demo servers from one config: first screen {screen:.2f} s,"
        f" all connected {took:.2f} s"
    )
    print(f"ratio: {took / slowest:.2f}x the slowest single start (target: under 2x)")
    print(
        f"keys from the first screen on: {len(keys)} presses, median"
        f" {statistics.median(keys):.0f} ms, max {max(keys):.0f} ms (target: under 100 ms;"
        f" one server alone: median {statistics.median(alone):.0f} ms, max {max(alone):.0f} ms)"
    )


if __name__ == "__main__":
    asyncio.run(main())
