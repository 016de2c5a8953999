"""One-shot tools/call wall time: `mcp-inspect --cli` against the official SDK client.

Both start the same server, initialize, call one tool and exit cleanly. Runs are
interleaved so machine noise hits both alike; prints medians and the ratio.

    python bench/oneshot_call.py [--runs 15] [-- SERVER COMMAND...]
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
PY = sys.executable


def timed(cmd: list[str]) -> float:
    start = time.perf_counter()
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    elapsed = time.perf_counter() - start
    if done.returncode != 0:
        raise SystemExit(f"failed ({done.returncode}): {' '.join(cmd)}\n{done.stderr[-2000:]}")
    return elapsed


def main() -> None:
    argv = sys.argv[1:]
    server = [PY, "-m", "inspector.demo"]
    if "--" in argv:
        server = argv[argv.index("--") + 1 :]
        argv = argv[: argv.index("--")]
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=15)
    parser.add_argument("--tool", default="add")
    parser.add_argument("--args", default='{"a": 2, "b": 3}')
    opts = parser.parse_args(argv)
    ours = [
        PY,
        "-m",
        "inspector",
        "--cli",
        "--method",
        "tools/call",
        "--tool-name",
        opts.tool,
        "--tool-args-json",
        opts.args,
        "--",
        *server,
    ]
    peer = [PY, str(HERE / "sdk_oneshot_client.py"), opts.tool, opts.args, "--", *server]
    timed(ours), timed(peer)  # warm the OS caches for both
    ours_t: list[float] = []
    peer_t: list[float] = []
    for _ in range(opts.runs):
        ours_t.append(timed(ours))
        peer_t.append(timed(peer))
    o, p = statistics.median(ours_t), statistics.median(peer_t)
    print(f"server: {' '.join(server)}")
    print(f"mcp-inspect --cli   median {o * 1000:7.1f} ms  (min {min(ours_t) * 1000:.1f})")
    print(f"official SDK client median {p * 1000:7.1f} ms  (min {min(peer_t) * 1000:.1f})")
    print(f"ratio ours/sdk: {o / p:.2f}  (target <= 0.50)")


if __name__ == "__main__":
    main()
