"""A collection of 1,000 ``add`` steps against the demo server over stdio, three ways:

- ``mcp-inspect test FILE``: one process, one connection, every step checked (``text``);
- the same calls as one ``mcp-inspect --cli`` process each (``--calls-sampled`` of them
  timed, scaled to the whole count);
- the official SDK client in one session (a child process too: start-up counted alike).

Each is timed from process start to exit (server start and shutdown included). Prints the
wall times and the ratios; targets: within 1.5x of the SDK session, at least 10x faster
than one process per call.

    python bench/collection_run.py [--steps 1000] [--cli-sample 50] [--rounds 3]
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PY = sys.executable
DEMO = [PY, "-m", "inspector.demo"]

SDK_SESSION = """
import sys, anyio
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

async def main(steps):
    params = StdioServerParameters(command=sys.executable, args=["-m", "inspector.demo"])
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        for i in range(steps):
            result = await session.call_tool("add", {"a": i, "b": 1})
            assert result.content[0].text == f"{i} + 1 = {i + 1}", result

anyio.run(main, int(sys.argv[1]))
"""


def collection(path: Path, steps: int) -> Path:
    lines = [f"server: {{command: {json.dumps(DEMO)}}}", "steps:"]
    for i in range(steps):
        lines += [
            "  - call: add",
            f"    arguments: {{a: {i}, b: 1}}",
            f'    expect: {{text: "{i} + 1 = {i + 1}"}}',
        ]
    path.write_text("\n".join(lines) + "\n")
    return path


def timed(argv: list[str]) -> float:
    start = time.perf_counter()
    done = subprocess.run(argv, cwd=ROOT, capture_output=True, text=True, check=False)
    elapsed = time.perf_counter() - start
    if done.returncode != 0:
        said = done.stdout[-2000:] + done.stderr[-2000:]
        raise SystemExit(f"{' '.join(argv[:4])}... failed ({done.returncode}):\n{said}")
    return elapsed


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--steps", type=int, default=1000)
    parser.add_argument("--cli-sample", type=int, default=50)
    parser.add_argument("--rounds", type=int, default=3)
    opts = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        path = collection(Path(folder) / "adds.mcp.yaml", opts.steps)
        ours, sdk = [], []
        for _ in range(opts.rounds):  # alternated: machine noise hits both alike
            ours.append(timed([PY, "-m", "inspector", "test", str(path)]))
            sdk.append(timed([PY, "-c", SDK_SESSION, str(opts.steps)]))
        per_call = []
        for i in range(opts.cli_sample):
            per_call.append(
                timed(
                    [
                        PY,
                        "-m",
                        "inspector",
                        "--cli",
                        "--method",
                        "tools/call",
                        "--tool-name",
                        "add",
                        "--tool-arg",
                        f"a={i}",
                        "--tool-arg",
                        "b=1",
                        "--",
                        *DEMO,
                    ]
                )
            )
    o, s = statistics.median(ours), statistics.median(sdk)
    each = statistics.median(per_call)
    cli_total = each * opts.steps
    print(
        f"{opts.steps} add calls against the demo server over stdio (wall, process start to exit)"
    )
    for name, median, times in (
        ("mcp-inspect test, one file:      ", o, ours),
        ("official SDK client, one session:", s, sdk),
    ):
        print(f"{name} median {median:6.2f} s  (rounds: {', '.join(f'{t:.2f}' for t in times)})")
    print(
        f"mcp-inspect --cli, one process each: median {each * 1000:.0f} ms a call "
        f"({opts.cli_sample} timed) -> {cli_total:.1f} s for {opts.steps}"
    )
    print(
        f"ratio test/sdk: {o / s:.2f} (target <= 1.50); "
        f"one process per call / test: {cli_total / o:.1f}x (target >= 10x)"
    )


if __name__ == "__main__":
    main()
