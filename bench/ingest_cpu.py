"""CPU per notification of the inspector's ingest path, without the TUI, against a peer.

The headless path a flood takes in the TUI: the stdio transport reading
``tests/servers/stdio_log_flood.py`` (``--rate`` log notifications a second for
``--seconds``), the session (seq, lint, routing, the server log), the recorder (a session
file in a temporary folder, as the TUI records by default; ``--no-record``: none) and the
``LiveState`` taken as the TUI's feed takes it (at most 500 events a turn, the rest at the
next turn, every 50 ms otherwise). Printed: notifications received and their rate, the
process's CPU time per notification (user + system, so other helpers on a shared machine
count less than in wall time), and the same lines through ``json.loads`` + ``list.append``
in the same run (the peer: the least any Python reader does per line) with the ratio.
First in process (``--in-process`` lines fed to the transport's reading from a stream, no
server and no pipe: the steadiest figure on a shared machine), then over a real pipe
from the server. Runs are repeated (``--runs``) and the load average is printed.

    python bench/ingest_cpu.py [--rate 50000] [--seconds 5] [--runs 3] [--no-record]
                               [--in-process 100000]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import resource
import statistics
import sys
import tempfile
import time
from pathlib import Path

from inspector.engine.session import Session
from inspector.live.state import LiveState
from inspector.record.format import SessionHeader
from inspector.record.recorder import Recorder
from inspector.transports.stdio import StdioTransport

FLOOD_SERVER = Path(__file__).resolve().parent.parent / "tests" / "servers" / "stdio_log_flood.py"
TAKE_LIMIT = 500  # as inspector.tui.live_feed
FLUSH = 0.05


def cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def flood_lines(count: int) -> list[bytes]:
    """The lines the flood server writes (the same shape and sizes)."""
    out = []
    for sent in range(1, count + 1):
        params = {"level": "info", "logger": "flood", "data": f"line {sent} of the flood"}
        message = {"jsonrpc": "2.0", "method": "notifications/message", "params": params}
        out.append(json.dumps(message).encode())
    return out


def peer(count: int) -> float:
    """CPU seconds per line for ``json.loads`` + ``list.append`` of the flood's lines."""
    lines = flood_lines(count)
    kept: list[object] = []
    start = cpu()
    for line in lines:
        kept.append(json.loads(line))
    return (cpu() - start) / count


async def take_like_the_feed(state: LiveState, stop: asyncio.Event) -> None:
    while not stop.is_set():
        state.take_changes(limit=TAKE_LIMIT)
        await asyncio.sleep(0 if state.pending_events else FLUSH)
    state.take_changes()


def recorded_session(
    transport: StdioTransport, folder: Path, record: bool
) -> tuple[Session, Recorder | None, LiveState]:
    """A session over ``transport`` feeding a ``LiveState``, recording to
    ``folder/flood.jsonl`` when ``record`` (as the TUI does)."""
    recorder = None
    if record:
        header = SessionHeader(target=transport.target_info())
        recorder = Recorder(folder / "flood.jsonl", header)
    session = Session(transport, recorder=recorder, protocol_version="2025-11-25")
    state = LiveState()
    session.add_observer(state.observe)
    return session, recorder, state


async def ingest(rate: int, seconds: float, record: bool) -> dict[str, float]:
    transport = StdioTransport(sys.executable, [str(FLOOD_SERVER), str(rate), str(seconds)])
    with tempfile.TemporaryDirectory() as folder:
        session, recorder, state = recorded_session(transport, Path(folder), record)
        async with session:
            await session.initialize()
            state.attach(session)
            log = state.server_log
            stop = asyncio.Event()
            taker = asyncio.ensure_future(take_like_the_feed(state, stop))
            started, cpu_start = time.perf_counter(), cpu()
            await session.request("tools/call", {"name": "flood", "arguments": {}})
            ended: int | None = None
            while ended is None:
                await asyncio.sleep(0.02)
                last = log.entries[-1] if log.entries else None  # the flood's last one
                if last is not None and last.params.get("logger") == "flood-end":
                    ended = int(last.params["data"]["sent"])
            wall, used = time.perf_counter() - started, cpu() - cpu_start
            stop.set()
            await taker
        if recorder is not None:
            recorder.close()
            recorded = sum(1 for _ in (Path(folder) / "flood.jsonl").open("rb")) - 1
        else:
            recorded = 0
    received = log.count
    assert received == ended + 1, (received, ended)  # every one, and the last
    return {
        "received": received,
        "rate": received / wall,
        "cpu_us": used / received * 1e6,
        "cpu_share": used / wall,
        "recorded": recorded,
        "stored": len(state.events),
    }


async def in_process(count: int, record: bool) -> dict[str, float]:
    """The flood's lines read from a stream fed in 64 KiB pieces (no server, no pipe: the
    steadiest figure on a shared machine) through the stdio transport's reading, the
    session, the recorder and the state: CPU seconds a line."""
    data = b"\n".join(flood_lines(count)) + b"\n"
    transport = StdioTransport(sys.executable)
    with tempfile.TemporaryDirectory() as folder:
        session, recorder, state = recorded_session(transport, Path(folder), record)
        state.attach(session)
        stream = asyncio.StreamReader(limit=1 << 16)
        piece = 1 << 16
        for start in range(0, len(data), piece):
            stream.feed_data(data[start : start + piece])
        stream.feed_eof()
        stop = asyncio.Event()
        taker = asyncio.ensure_future(take_like_the_feed(state, stop))
        transport._host = session  # the reading alone: no process started
        start_cpu = cpu()
        await transport.read_stdout(stream)
        stop.set()
        await taker
        used = cpu() - start_cpu
        if recorder is not None:
            recorder.close()
    assert state.server_log.count == count and len(state.events) == count
    return {"cpu_us": used / count * 1e6}


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--rate", type=int, default=50_000)
    parser.add_argument("--seconds", type=float, default=5.0)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--no-record", action="store_true")
    parser.add_argument("--in-process", type=int, default=100_000, metavar="LINES")
    args = parser.parse_args()
    print(f"load average before: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    print(f"in process, {args.in_process:,} lines:", flush=True)
    ratios = []
    for run in range(args.runs):
        figures = asyncio.run(in_process(args.in_process, not args.no_record))
        per_line = peer(args.in_process)
        ratios.append(figures["cpu_us"] / (per_line * 1e6))
        print(
            f"run {run + 1}: CPU {figures['cpu_us']:.2f} us a line; json.loads+append "
            f"{per_line * 1e6:.2f} us: {ratios[-1]:.2f}x",
            flush=True,
        )
    print(f"in process: median ratio {statistics.median(ratios):.2f}x")
    print("with the server (a real pipe):", flush=True)
    ratios, ours, peers = [], [], []
    for run in range(args.runs):
        figures = asyncio.run(ingest(args.rate, args.seconds, not args.no_record))
        per_line = peer(int(figures["received"]))
        ratio = figures["cpu_us"] / (per_line * 1e6)
        ratios.append(ratio)
        ours.append(figures["cpu_us"])
        peers.append(per_line * 1e6)
        print(
            f"run {run + 1}: {figures['received']:,.0f} notifications at "
            f"{figures['rate']:,.0f}/s (asked {args.rate:,}/s), stored {figures['stored']:,.0f},"
            f" recorded {figures['recorded']:,.0f}; CPU {figures['cpu_us']:.1f} us each "
            f"({figures['cpu_share']:.0%} of a core); json.loads+append {per_line * 1e6:.2f} us"
            f" each: {ratio:.1f}x",
            flush=True,
        )
    print(
        f"median: ingest {statistics.median(ours):.1f} us/notification, peer "
        f"{statistics.median(peers):.2f} us, ratio {statistics.median(ratios):.1f}x "
        f"({'no recording' if args.no_record else 'recording'}); load average after: "
        f"{' '.join(f'{x:.2f}' for x in os.getloadavg())}"
    )


if __name__ == "__main__":
    main()
