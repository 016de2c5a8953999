"""Sequential tools/call over Streamable HTTP: requests per second, ours vs the official SDK.

Starts one official-SDK MCPServer under uvicorn (tests/servers/http_sdk_server.py) and
drives it in the same run with mcp-inspect's StreamableHttpTransport + Session and with
the SDK's streamable_http_client + ClientSession. Rounds alternate so machine noise hits
both alike; prints the median rates and the ratio (target: ours >= the SDK's).

    python bench/http_rps.py [--calls 300] [--rounds 5] [--mode sse|json]
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time
import warnings
from pathlib import Path

import anyio

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from inspector.engine.client import McpClient  # noqa: E402
from inspector.engine.session import Session  # noqa: E402
from inspector.transports.http import StreamableHttpTransport  # noqa: E402

SERVER = ROOT / "tests" / "servers" / "http_sdk_server.py"
WARMUP = 20


Rates = tuple[float, float]  # (requests per second, client CPU ms per request)


def _rates(calls: int, start: float, cpu: float) -> Rates:
    wall = time.perf_counter() - start
    return calls / wall, (time.process_time() - cpu) * 1000 / calls


async def ours(url: str, calls: int) -> Rates:
    async with Session(StreamableHttpTransport(url)) as session:
        await session.initialize()
        client = McpClient(session)
        for _ in range(WARMUP):
            await client.call_tool("add", {"a": 1, "b": 2})
        start, cpu = time.perf_counter(), time.process_time()
        for i in range(calls):
            await client.call_tool("add", {"a": i, "b": 2})
        return _rates(calls, start, cpu)


async def sdk(url: str, calls: int) -> Rates:
    from mcp.client.session import ClientSession
    from mcp.client.streamable_http import streamable_http_client

    async with streamable_http_client(url) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        for _ in range(WARMUP):
            await session.call_tool("add", {"a": 1, "b": 2})
        start, cpu = time.perf_counter(), time.process_time()
        for i in range(calls):
            await session.call_tool("add", {"a": i, "b": 2})
        return _rates(calls, start, cpu)


def start_server(mode: str) -> tuple[subprocess.Popen[bytes], str]:
    proc = subprocess.Popen(
        [sys.executable, "-W", "ignore", str(SERVER), mode],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
    )
    assert proc.stdout is not None
    line = proc.stdout.readline().decode()
    if not line.startswith("PORT "):
        proc.kill()
        raise SystemExit(f"the SDK server did not start: {line!r}")
    return proc, f"http://127.0.0.1:{int(line.split()[1])}/mcp"


async def run(url: str, calls: int, rounds: int) -> tuple[list[Rates], list[Rates]]:
    mine: list[Rates] = []
    theirs: list[Rates] = []
    for _ in range(rounds):
        with anyio.fail_after(600):
            mine.append(await ours(url, calls))
            theirs.append(await sdk(url, calls))
    return mine, theirs


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--calls", type=int, default=300)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--mode", default="sse", choices=["sse", "json"])
    opts = parser.parse_args()
    warnings.simplefilter("ignore")
    proc, url = start_server(opts.mode)
    try:
        mine, theirs = anyio.run(run, url, opts.calls, opts.rounds)
    finally:
        proc.terminate()
        proc.wait(10)
    o = statistics.median(r for r, _ in mine)
    p = statistics.median(r for r, _ in theirs)
    oc = statistics.median(c for _, c in mine)
    pc = statistics.median(c for _, c in theirs)
    print(f"server: official SDK MCPServer, Streamable HTTP ({opts.mode} responses), {url}")
    print(f"{opts.calls} sequential tools/call x {opts.rounds} rounds (after {WARMUP} warm-up)")
    for name, rates, rate, cpu in (
        ("mcp-inspect transport+session", mine, o, oc),
        ("official SDK client          ", theirs, p, pc),
    ):
        print(
            f"{name}  median {rate:7.1f} req/s, client CPU {cpu:.2f} ms/call  "
            f"(rounds: {', '.join(f'{r:.0f}' for r, _ in rates)})"
        )
    print(
        f"ratio ours/sdk: {o / p:.2f} req/s (target >= 1.00); "
        f"client CPU per call ours/sdk: {oc / pc:.2f}"
    )


if __name__ == "__main__":
    main()
