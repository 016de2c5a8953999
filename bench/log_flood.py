"""Message log under a flood: settle time, memory, key latency; stock Textual logs as peers.

Runs headless (``App.run_test``) and prints figures:

(a) append 1,000,000 events in batches to the ``LiveState`` + ``MessageLog``: time spent
    storing and showing each batch (``take_changes`` + ``events_added``), time to settle
    (from the last append until the last row was rendered), resident memory added versus
    the raw bytes held (target: under 2x); then filter all of them (a column filter, a
    text filter) while keys are pressed;
(b) stream 10,000 events/s for ~5 s through the ``LiveState`` and its ``LiveFeed`` (50 ms
    batches, as in the inspector) while a pilot presses a key every 50 ms: the worst
    delay from a key press to the log handling it;
(c) the same events written to Textual's stock ``Log`` (batched ``write_lines``) and
    ``RichLog`` (one ``write`` per event) in the same run, and the ratios;
(d) the whole inspector on a real stdio server sending 50,000 log notifications a second
    for 10 s (``tests/servers/stdio_log_flood.py``): the delay from a key press to the
    message log handling it (worst, target < 100 ms; median, p95, p99), how long the flood
    takes to drain, and the resident memory after it (and its peak).

    python bench/log_flood.py [--events 1000000] [--peer-events 100000] [--stream-seconds 5]
                              [--flood-rate 50000] [--flood-seconds 10] [--only-flood]
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import cast

from keys import press_keys  # bench/, beside this file
from textual import events
from textual.app import App, ComposeResult
from textual.widget import Widget
from textual.widgets import Log, RichLog

from inspector.live.state import LiveState
from inspector.tui.live_feed import LiveFeed
from inspector.tui.widgets.message_log import MessageLog
from inspector.wire.events import Channel, Direction, WireEvent
from inspector.wire.jsonrpc import encode, make_event, notification, request, response

SIZE = (160, 50)
WORDS = [
    "alpha",
    "beta",
    "gamma",
    "delta",
    "epsilon",
    "zeta",
    "eta",
    "theta",
    "iota",
    "kappa",
    "lambda",
    "mu",
]


def make_events(start: int, count: int) -> list[WireEvent]:
    """Realistic traffic: tool calls and results of varied size, progress, stderr."""
    out: list[WireEvent] = []
    now = time.time()
    mono = time.monotonic()
    for n in range(start, start + count):
        phase = n % 6
        if phase == 0:
            msg: object = request(
                n,
                "tools/call",
                {
                    "name": "search",
                    "arguments": {"query": " ".join(WORDS[: 2 + n % 6]), "limit": n % 50},
                },
            )
            event = make_event(Direction.OUT, Channel.STDIN, encode(msg), message=msg)
        elif phase == 1:
            msg = notification(
                "notifications/progress", {"progressToken": n - 1, "progress": n % 7, "total": 7}
            )
            event = make_event(Direction.IN, Channel.STDOUT, encode(msg), message=msg)
        elif phase == 2:
            text = " ".join(WORDS[(n + k) % len(WORDS)] for k in range(8 + n % 40))
            msg = response(n - 2, {"content": [{"type": "text", "text": text}], "isError": False})
            event = make_event(Direction.IN, Channel.STDOUT, encode(msg), message=msg)
        elif phase == 3:
            event = make_event(
                Direction.IN,
                Channel.STDERR,
                f"DEBUG worker {n % 8}: handled search in {n % 97} ms".encode(),
            )
        elif phase == 4:
            msg = request(n, "ping")
            event = make_event(Direction.OUT, Channel.STDIN, encode(msg), message=msg)
        else:
            msg = response(n - 1, {})
            event = make_event(Direction.IN, Channel.STDOUT, encode(msg), message=msg)
        event.seq = n + 1
        event.time = now + n * 1e-4
        event.mono = mono + n * 1e-4
        out.append(event)
    return out


def peak_rss_bytes() -> int:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) * 1024
    return 0


def cpu_seconds() -> float:
    """This process's CPU time (user + system): other processes on the machine do not
    count in it, as they do in wall time."""
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def rss_bytes() -> int:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) * 1024
    return 0


class Bench(App[None]):
    def __init__(self, make_widget: Callable[[], Widget]) -> None:
        super().__init__()
        self.make_widget = make_widget
        self.key_times: list[float] = []

    def compose(self) -> ComposeResult:
        yield self.make_widget()


async def settle_ours(total: int, batch: int) -> dict[str, float]:
    """(a): our log, ``total`` events in batches of ``batch``."""
    state = LiveState()
    app = Bench(lambda: MessageLog(state.events, id="log"))
    async with app.run_test(size=SIZE) as pilot:
        log = app.query_one(MessageLog)
        lines = log.lines
        rendered_at: dict[int, float] = {}
        render_row = lines.render_row

        def spy(index: int, width: int):  # type: ignore[no-untyped-def]
            rendered_at.setdefault(index, time.perf_counter())
            return render_row(index, width)

        lines.render_row = spy  # type: ignore[method-assign]
        await pilot.pause()
        gc.collect()
        rss0 = rss_bytes()
        appending = 0.0
        worst_batch = 0.0
        last_append = 0.0
        for start in range(0, total, batch):
            events = make_events(start, min(batch, total - start))  # not timed
            t0 = time.perf_counter()
            for event in events:
                state.observe(event)
            changes = state.take_changes()
            log.events_added(changes.first, changes.events)
            del changes
            elapsed = time.perf_counter() - t0
            appending += elapsed
            worst_batch = max(worst_batch, elapsed)
            last_append = t0
            del events
            await pilot.pause()  # let the screen refresh, as 50 ms ticks would
        with_deadline = time.perf_counter() + 30
        while total - 1 not in rendered_at and time.perf_counter() < with_deadline:
            await asyncio.sleep(0.001)
        settle = rendered_at.get(total - 1, float("inf")) - last_append
        gc.collect()
        rss = rss_bytes() - rss0
        store = state.store
        scans = {}
        for label, query in (
            ("filter_column", "method:tools/call"),
            ("filter_text", "kind:res lambda mu"),
        ):
            scans[f"{label}_s"], scans[f"{label}_worst_key_ms"] = await filter_scan(app, log, query)
        return {
            **scans,
            "events": total,
            "append_s": appending,
            "worst_batch_ms": worst_batch * 1000,
            "settle_s": settle,
            "raw_mib": store.raw_bytes / 2**20,
            "rss_mib": rss / 2**20,
            "ratio": rss / store.raw_bytes,
            "columns_ratio": store.nbytes() / store.raw_bytes,
            "rows_rendered": lines.rendered_rows,
        }


async def filter_scan(app: App[None], log: MessageLog, query: str) -> tuple[float, float]:
    """Apply a filter over everything and press keys while it scans: (scan s, worst ms)."""
    lines = log.lines
    lines.focus()
    handled: list[float] = []
    move = lines.move_cursor

    def spy(row: int | None, *, post: bool = True) -> None:
        handled.append(time.perf_counter())
        move(row, post=post)

    lines.move_cursor = spy  # type: ignore[method-assign]
    worst = 0.0
    t0 = time.perf_counter()
    log.set_filter(query)
    while log.scanning:
        before = len(handled)
        pressed = time.perf_counter()
        app.post_message(events.Key("up", None))
        while len(handled) == before and time.perf_counter() - pressed < 5:
            await asyncio.sleep(0.001)
        worst = max(worst, (handled[before] if len(handled) > before else 5) - pressed)
        await asyncio.sleep(0.02)
    scan = time.perf_counter() - t0
    lines.move_cursor = move  # type: ignore[method-assign]
    log.set_filter("")
    return scan, worst * 1000


async def key_latency(rate: int, seconds: float) -> dict[str, float]:
    """(b): stream ``rate`` events/s through the state; press a key every 50 ms."""
    state = LiveState()
    feed = LiveFeed(state)
    app = Bench(lambda: MessageLog(state.events, id="log"))
    async with app.run_test(size=SIZE) as pilot:
        log = app.query_one(MessageLog)
        feed.subscribe(log)
        feed.start(app)  # as the inspector does
        lines = log.lines
        lines.focus()
        handled: list[float] = []
        move = lines.move_cursor

        def spy(row: int | None, *, post: bool = True) -> None:
            handled.append(time.perf_counter())
            move(row, post=post)

        lines.move_cursor = spy  # type: ignore[method-assign]
        stop = time.perf_counter() + seconds
        sent = 0

        async def produce() -> None:
            nonlocal sent
            tick = 0.01
            per_tick = int(rate * tick)
            next_at = time.perf_counter()
            while time.perf_counter() < stop:
                for event in make_events(sent, per_tick):
                    state.observe(event)  # what a session observer does, synchronously
                sent += per_tick
                next_at += tick
                await asyncio.sleep(max(0.0, next_at - time.perf_counter()))

        producer = asyncio.create_task(produce())
        delays = await press_keys(app, handled, stop)
        await producer
        feed.flush()
        await pilot.pause()
        settle_by = time.perf_counter() + 10  # the feed's last slices and the log's re-size
        while (state.pending_events or log.shown < len(state.events)) and (
            time.perf_counter() < settle_by
        ):
            await asyncio.sleep(0.01)
        delays.sort()
        return {
            "events": sent,
            "rate": sent / seconds,
            "presses": len(delays),
            "worst_ms": delays[-1] * 1000 if delays else float("inf"),
            "p50_ms": delays[len(delays) // 2] * 1000 if delays else float("inf"),
            "shown": log.shown,
            "stored": len(state.events),
        }


FLOOD_SERVER = Path(__file__).resolve().parent.parent / "tests" / "servers" / "stdio_log_flood.py"


async def app_flood(rate: int, seconds: float, record: bool) -> dict[str, float]:
    """(d): the whole inspector on a real stdio server sending ``rate`` log notifications
    a second for ``seconds`` (``tests/servers/stdio_log_flood.py``): a key every 50 ms,
    alternately in the message log and in the server log tab's table, and the delay
    from each press to the widget handling it. ``record``: to a session file in a
    temporary folder, as the inspector does by default."""
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "flood.jsonl" if record else None
        figures = await _app_flood(rate, seconds, path)
        if path is not None:
            with path.open("rb") as lines:
                figures["recorded"] = sum(1 for _ in lines) - 1  # the header
        return figures


async def _app_flood(rate: int, seconds: float, path: Path | None) -> dict[str, float]:
    from inspector.record.format import SessionHeader
    from inspector.record.recorder import Recorder
    from inspector.target import Target, target_info
    from inspector.tui.app import InspectorApp
    from inspector.tui.widgets.catalog import Catalog
    from inspector.tui.widgets.message_log import LogLines

    target = Target(command=sys.executable, args=[str(FLOOD_SERVER), str(rate), str(seconds)])
    recorder = None
    if path is not None:
        recorder = Recorder(path, SessionHeader(target=target_info(target)))
    app = InspectorApp(target, protocol_version="2025-11-25", recorder=recorder)
    async with app.run_test(size=SIZE) as pilot:
        catalog = app.query_one(Catalog)
        deadline = time.perf_counter() + 30
        while not catalog.items.get("tools") and time.perf_counter() < deadline:
            await pilot.pause(0.05)
        controller = app.controller
        assert controller is not None and controller.client is not None
        lines = app.query_one(LogLines)
        handled: list[float] = []
        move = lines.move_cursor

        def spy(row: int | None, *, post: bool = True) -> None:
            handled.append(time.perf_counter())
            move(row, post=post)

        lines.move_cursor = spy  # type: ignore[method-assign]
        lines.focus()
        await pilot.pause(0.1)
        # the peer in the same run: the same keys with no flood
        idle = sorted(await press_keys(app, handled, time.perf_counter() + 2))
        profiler = None
        if os.environ.get("FLOOD_PROFILE"):  # a profile of the flood alone
            import cProfile

            profiler = cProfile.Profile()
            profiler.enable()
        cpu_before = cpu_seconds()
        await controller.client.call_tool("flood", {})
        started = time.perf_counter()
        stop = started + seconds
        delays = await press_keys(app, handled, stop)
        # the flood's end: the server's last notification (its count) received
        log = app.state.server_log

        def ended() -> int | None:
            last = log.entries[-1] if log.entries else None  # the flood's last one
            if last is not None and last.params.get("logger") == "flood-end":
                return int(last.params["data"]["sent"])
            return None

        while ended() is None and time.perf_counter() < stop + 120:
            await asyncio.sleep(0.05)  # not pilot.pause: it waits for an idle screen
        drained = time.perf_counter() - stop
        cpu_used = cpu_seconds() - cpu_before
        if profiler is not None:
            profiler.disable()
            profiler.dump_stats(os.environ["FLOOD_PROFILE"])
        delays.sort()
        return {
            "received": log.count,
            "sent": float(ended() or 0),
            "rate": log.count / (stop + drained - started),
            "cpu_us": cpu_used / max(log.count, 1) * 1e6,
            "cpu_share": cpu_used / (stop + drained - started),
            "drain_s": drained,
            "presses": len(delays),
            "worst_ms": delays[-1] * 1000 if delays else float("inf"),
            "p50_ms": delays[len(delays) // 2] * 1000 if delays else float("inf"),
            "p95_ms": delays[int(len(delays) * 0.95)] * 1000 if delays else float("inf"),
            "p99_ms": delays[int(len(delays) * 0.99)] * 1000 if delays else float("inf"),
            "idle_worst_ms": idle[-1] * 1000,
            "idle_p50_ms": idle[len(idle) // 2] * 1000,
            "events": len(app.state.events),
            "rss_mib": rss_bytes() / 2**20,
            "peak_rss_mib": peak_rss_bytes() / 2**20,
        }


async def peer_log(total: int, batch: int, rich: bool, per_line: bool = False) -> dict[str, float]:
    """(c): stock ``Log`` (batched ``write_lines`` or ``write_line`` per event) or
    ``RichLog`` (one ``write`` per event)."""
    app = Bench(lambda: RichLog(max_lines=None) if rich else Log(max_lines=None))
    async with app.run_test(size=SIZE) as pilot:
        widget = app.query_one(RichLog if rich else Log)
        await pilot.pause()
        gc.collect()
        rss0 = rss_bytes()
        raw = 0
        writing = 0.0
        for start in range(0, total, batch):
            events = make_events(start, min(batch, total - start))
            texts = [e.raw.decode("utf-8", "replace") for e in events]
            raw += sum(len(e.raw) for e in events)
            t0 = time.perf_counter()
            if isinstance(widget, RichLog):
                for text in texts:
                    widget.write(text)
            elif per_line:
                for text in texts:
                    cast(Log, widget).write_line(text)
            else:
                cast(Log, widget).write_lines(texts)
            writing += time.perf_counter() - t0
            await pilot.pause()
        t0 = time.perf_counter()
        await pilot.pause()
        settle = time.perf_counter() - t0
        gc.collect()
        rss = rss_bytes() - rss0
        return {
            "events": total,
            "append_s": writing,
            "settle_s": settle,
            "rss_mib": rss / 2**20,
            "ratio": rss / raw,
        }


def show(title: str, figures: dict[str, float]) -> None:
    parts = []
    for key, value in figures.items():
        parts.append(f"{key}={value:,.3f}" if isinstance(value, float) else f"{key}={value:,}")
    print(f"{title:<34} " + "  ".join(parts), flush=True)


def run_case(case: str, n: int, args: argparse.Namespace) -> dict[str, float]:
    """Each case in a fresh interpreter, so resident-memory deltas are its own."""
    cmd = [
        sys.executable,
        __file__,
        "--case",
        case,
        "--n",
        str(n),
        "--batch",
        str(args.batch),
        "--stream-rate",
        str(args.stream_rate),
        "--stream-seconds",
        str(args.stream_seconds),
        "--flood-rate",
        str(args.flood_rate),
        "--flood-seconds",
        str(args.flood_seconds),
        *(["--no-record"] if args.no_record else []),
    ]
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=900, check=False)
    if done.returncode != 0:
        raise SystemExit(f"case {case} failed:\n{done.stderr[-3000:]}")
    figures: dict[str, float] = json.loads(done.stdout.strip().splitlines()[-1])
    return figures


async def one_case(args: argparse.Namespace) -> dict[str, float]:
    if args.case == "ours":
        return await settle_ours(args.n, args.batch)
    if args.case == "stream":
        return await key_latency(args.stream_rate, args.stream_seconds)
    if args.case == "flood":
        return await app_flood(args.flood_rate, args.flood_seconds, not args.no_record)
    return await peer_log(
        args.n, args.batch, rich=args.case == "richlog", per_line=args.case == "log-line"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--events", type=int, default=1_000_000)
    parser.add_argument("--batch", type=int, default=5_000)
    parser.add_argument("--peer-events", type=int, default=100_000)
    parser.add_argument("--richlog-events", type=int, default=20_000)
    parser.add_argument("--stream-rate", type=int, default=10_000)
    parser.add_argument("--stream-seconds", type=float, default=5.0)
    parser.add_argument("--flood-rate", type=int, default=50_000)
    parser.add_argument("--flood-seconds", type=float, default=10.0)
    parser.add_argument("--only-flood", action="store_true", help="run (d) alone")
    parser.add_argument(
        "--no-record", action="store_true", help="(d) without recording (it records by default)"
    )
    parser.add_argument("--case", help=argparse.SUPPRESS)
    parser.add_argument("--n", type=int, default=0, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.case:
        print(json.dumps(asyncio.run(one_case(args))))
        return

    flood = run_case("flood", 0, args)
    show("(d) inspector on a log flood", flood)
    print(
        f"(d) worst key delay {flood['worst_ms']:,.1f} ms (target < 100 ms), median "
        f"{flood['p50_ms']:,.1f} ms, p95 {flood['p95_ms']:,.1f} ms, p99 {flood['p99_ms']:,.1f} ms, "
        f"{flood['presses']:.0f} "
        f"presses; {flood['received']:,.0f} log notifications at {flood['rate']:,.0f}/s "
        f"(asked {args.flood_rate:,}/s for {args.flood_seconds:g} s), drained "
        f"{flood['drain_s']:.1f} s after; the same keys with no flood: worst "
        f"{flood['idle_worst_ms']:,.1f} ms, median {flood['idle_p50_ms']:,.1f} ms (flood / "
        f"idle median {flood['p50_ms'] / max(flood['idle_p50_ms'], 0.001):,.1f}x); resident "
        f"{flood['rss_mib']:,.0f} MiB after, peak {flood['peak_rss_mib']:,.0f} MiB; CPU "
        f"{flood['cpu_us']:,.1f} us a notification ({flood['cpu_share']:.0%} of a core); "
        + (
            "not recorded"
            if args.no_record
            else f"{flood.get('recorded', 0):,.0f} events recorded (of {flood['events']:,.0f})"
        )
        + f"; load average {' '.join(f'{x:.2f}' for x in os.getloadavg())}"
    )
    if args.only_flood:
        return
    peer_n, rich_n = args.peer_events, args.richlog_events
    ours_small = run_case("ours", peer_n, args)
    show(f"(c) MessageLog {peer_n:,}", ours_small)
    log_peer = run_case("log", peer_n, args)
    show(f"(c) textual Log.write_lines {peer_n:,}", log_peer)
    line_peer = run_case("log-line", peer_n, args)
    show(f"(c) textual Log.write_line {peer_n:,}", line_peer)
    ours_rich = run_case("ours", rich_n, args)
    show(f"(c) MessageLog {rich_n:,}", ours_rich)
    rich_peer = run_case("richlog", rich_n, args)
    show(f"(c) textual RichLog.write {rich_n:,}", rich_peer)
    big = run_case("ours", args.events, args)
    show(f"(a) MessageLog {args.events:,}", big)
    stream = run_case("stream", 0, args)
    show("(b) stream + keys", stream)

    def total(f: dict[str, float]) -> float:
        return f["append_s"] + f["settle_s"]

    def ratio(peer: dict[str, float], ours: dict[str, float]) -> str:
        return (
            f"time {total(peer) / total(ours):,.2f}x, "
            f"memory {peer['rss_mib'] / max(ours['rss_mib'], 0.1):,.2f}x"
        )

    print()
    print(
        f"(a) settle after last batch: {big['settle_s'] * 1000:,.0f} ms (target < 2,000 ms); "
        f"memory {big['ratio']:.2f}x raw bytes (target < 2x; columns alone "
        f"{big['columns_ratio']:.2f}x); append {big['append_s']:.2f} s for "
        f"{args.events:,} events"
    )
    print(
        f"(a) filters over {args.events:,}: method:tools/call "
        f"{big['filter_column_s']:.2f} s (worst key {big['filter_column_worst_key_ms']:.1f} ms),"
        f" text {big['filter_text_s']:.2f} s (worst key "
        f"{big['filter_text_worst_key_ms']:.1f} ms)"
    )
    print(
        f"(b) worst key delay {stream['worst_ms']:,.1f} ms (target < 100 ms), "
        f"median {stream['p50_ms']:,.1f} ms, {stream['presses']:.0f} presses at "
        f"{stream['rate']:,.0f} events/s"
    )
    print(
        f"(c) peer / MessageLog at {peer_n:,}: Log.write_lines {ratio(log_peer, ours_small)}; "
        f"Log.write_line {ratio(line_peer, ours_small)}"
    )
    print(f"(c) peer / MessageLog at {rich_n:,}: RichLog.write {ratio(rich_peer, ours_rich)}")


if __name__ == "__main__":
    main()
