"""Opening a big session file: IndexedSessionFile vs reading every event.

Generates a ~1 GB session file in /tmp (reused when present), then measures in
fresh subprocesses (so each RSS figure is its own):

- time to first screen: open + header + the first 100 events decoded;
- time to index the whole file, and peak memory (anonymous RSS: what the process
  holds; the mmap'd file pages are page cache and not counted) against file size;
- the naive peer: ``read_session`` (parses every line into WireEvents) on a
  100 MB slice, extrapolated to the whole file, and ``json.loads`` of every line.

With ``--huge-mb N``: a session holding one N MB line (a recorded result) opened in the
TUI, time to its first screen and peak memory, against a file of ordinary lines of the
same size in the same run.

Usage: python bench/replay_open.py [--size-mb 1024] [--slice-mb 100] [--huge-mb 300]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

FILE = Path("/tmp/mcp-inspect-bench-session.jsonl")
SLICE = Path("/tmp/mcp-inspect-bench-slice.jsonl")


def generate(path: Path, size: int) -> None:
    """Request / progress / stderr / response groups of realistic lines (~0.6 KB each)."""
    from inspector.record.format import SessionHeader, encode_event
    from inspector.wire.events import Channel, Direction, WireEvent

    def tail(direction: Direction, channel: Channel, message: object) -> bytes:
        text = message if isinstance(message, str) else json.dumps(message, separators=(",", ":"))
        line = encode_event(
            WireEvent(
                direction, channel, text.replace("4242", "@ID@").encode(), seq=1, time=1.0, mono=1.0
            )
        )
        return line[line.index(b', "dir": ') :]

    parts = [
        tail(
            Direction.OUT,
            Channel.STDIN,
            {
                "jsonrpc": "2.0",
                "id": 4242,
                "method": "tools/call",
                "params": {"name": "search", "arguments": {"q": "query 4242"}},
            },
        ),
        tail(
            Direction.IN,
            Channel.STDOUT,
            {
                "jsonrpc": "2.0",
                "method": "notifications/progress",
                "params": {"progressToken": "p4242", "progress": 1, "total": 2},
            },
        ),
        tail(Direction.IN, Channel.STDERR, "searching for query 4242"),
        tail(
            Direction.IN,
            Channel.STDOUT,
            {
                "jsonrpc": "2.0",
                "id": 4242,
                "result": {
                    "content": [{"type": "text", "text": "result text " * 120}],
                    "isError": False,
                },
            },
        ),
    ]
    tmp = path.with_suffix(".part")
    seq = n = written = 0
    with open(tmp, "wb") as fh:
        written += fh.write(SessionHeader(target={"command": "bench"}).to_line())
        while written < size:
            block = []
            for _ in range(5_000):
                n += 1
                ident = str(n).encode()
                for rest in parts:
                    seq += 1
                    block.append(
                        b'{"seq": %d, "t": %.6f, "mono": %.6f'
                        % (seq, 1_700_000_000 + seq / 1000, seq / 1000)
                        + rest.replace(b"@ID@", ident)
                    )
            written += fh.write(b"".join(block))
    tmp.rename(path)


def make_slice(src: Path, dst: Path, size: int) -> None:
    with open(src, "rb") as fh, open(dst, "wb") as out:
        data = fh.read(size)
        out.write(data[: data.rfind(b"\n") + 1])


# -- measurements, each run in a fresh interpreter -----------------------------------------

CHILD = r"""
import json, os, resource, sys, time
sys.path.insert(0, {root!r})
def rss():
    fields = dict(line.split(":", 1) for line in open("/proc/self/status"))
    kb = lambda k: int(fields[k].split()[0]) * 1024
    return kb("VmRSS"), kb("RssAnon"), kb("VmHWM")
what, path = sys.argv[1], sys.argv[2]
base = rss()
t0 = time.perf_counter()
out = {{}}
if what == "indexed":
    from inspector.record.indexed import IndexedSessionFile
    f = IndexedSessionFile(path)
    events = [f.event(i) for i in range(100)]
    out["first_screen"] = time.perf_counter() - t0
    out["first_events"] = len(f)
    f.index_all()
    out["full"] = time.perf_counter() - t0
    out["events"] = len(f)
    # a screen at the end, and a column filter over the last 10k events
    t1 = time.perf_counter()
    tail = [f.event(i) for i in range(len(f) - 100, len(f))]
    out["last_screen"] = time.perf_counter() - t1
    t2 = time.perf_counter()
    sample = min(len(f), 200_000)
    f.prefetch(0, sample)
    out["facts_per_event"] = (time.perf_counter() - t2) / sample
elif what == "read_session":
    from inspector.record.reader import read_session
    s = read_session(path)
    out["full"] = time.perf_counter() - t0
    out["events"] = len(s.events)
elif what == "json":
    n = 0
    with open(path, "rb") as fh:
        for line in fh:
            json.loads(line)
            n += 1
    out["full"] = time.perf_counter() - t0
    out["events"] = n
end = rss()
out["rss"] = end[0] - base[0]
out["anon"] = end[1] - base[1]
out["hwm"] = end[2]
out["base_hwm"] = base[2]
print(json.dumps(out))
"""


def generate_huge(path: Path, huge_mb: int) -> None:
    """A session whose second line is one ``huge_mb`` MB result, among 400 small events."""
    from inspector.record.format import SessionHeader, encode_event
    from inspector.wire.events import Channel, Direction, WireEvent

    def line(seq: int, direction: Direction, channel: Channel, message: object) -> bytes:
        raw = json.dumps(message, separators=(",", ":")).encode()
        return encode_event(WireEvent(direction, channel, raw, seq=seq, time=1.0, mono=1.0))

    call = {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "big"}}
    text = "result text " * (huge_mb * 2**20 // 12)
    big = {"jsonrpc": "2.0", "id": 1, "result": {"content": [{"type": "text", "text": text}]}}
    with open(path, "wb") as fh:
        fh.write(SessionHeader(target={"command": "bench"}).to_line())
        fh.write(line(1, Direction.OUT, Channel.STDIN, call))
        fh.write(line(2, Direction.IN, Channel.STDOUT, big))
        for n in range(2, 202):
            ping = {"jsonrpc": "2.0", "id": n, "method": "ping"}
            fh.write(line(2 * n - 1, Direction.OUT, Channel.STDIN, ping))
            fh.write(
                line(2 * n, Direction.IN, Channel.STDOUT, {"jsonrpc": "2.0", "id": n, "result": {}})
            )


TUI_CHILD = r"""
import asyncio, json, sys, time
sys.path.insert(0, {root!r})
t0 = time.perf_counter()
from inspector.record.indexed import IndexedSessionFile
from inspector.tui.app import InspectorApp
from inspector.tui.widgets.message_log import MessageLog
async def main():
    source = IndexedSessionFile(sys.argv[1])
    app = InspectorApp(None, source=source, replay_title="bench")
    async with app.run_test(size=(160, 50)) as pilot:
        log = app.query_one(MessageLog)
        while not (log.shown and log.lines.rendered_rows > 10):
            await asyncio.sleep(0.005)
        first = time.perf_counter() - t0
        while not source.done:
            await asyncio.sleep(0.02)
        await pilot.pause(0.5)
    hwm = int(dict(l.split(":", 1) for l in open("/proc/self/status"))["VmHWM"].split()[0])
    print(json.dumps({{"first_screen": first, "hwm": hwm * 1024, "events": len(source)}}))
asyncio.run(main())
"""


def measure_tui(path: Path) -> dict[str, float]:
    """The TUI's replay of ``path`` in a fresh interpreter: time to the first rows drawn
    (imports included), peak resident memory."""
    code = TUI_CHILD.format(root=str(ROOT))
    done = subprocess.run(
        [sys.executable, "-c", code, str(path)], capture_output=True, text=True, check=True
    )
    return json.loads(done.stdout.strip().splitlines()[-1])  # type: ignore[no-any-return]


def huge_line(huge_mb: int) -> None:
    """``--huge-mb``: one huge line against a file of ordinary lines of the same size."""
    path = Path(f"/tmp/mcp-inspect-bench-huge-{huge_mb}.jsonl")
    peer = Path(f"/tmp/mcp-inspect-bench-plain-{huge_mb}.jsonl")
    if not path.exists():
        generate_huge(path, huge_mb)
    if not peer.exists():
        generate(peer, path.stat().st_size)
    ours, plain = measure_tui(path), measure_tui(peer)
    print(
        f"replay in the TUI, one {huge_mb} MB line ({mb(path.stat().st_size)}): first screen "
        f"{ours['first_screen']:.2f} s, peak {mb(ours['hwm'])}"
    )
    print(
        f"replay in the TUI, ordinary lines ({mb(peer.stat().st_size)}, {plain['events']:,} "
        f"events): first screen {plain['first_screen']:.2f} s, peak {mb(plain['hwm'])}"
    )
    print(
        "ratio  huge line / ordinary lines: time "
        f"{ours['first_screen'] / plain['first_screen']:.2f}x, "
        f"peak memory {ours['hwm'] / plain['hwm']:.2f}x"
    )


def measure(what: str, path: Path) -> dict[str, float]:
    code = CHILD.format(root=str(ROOT))
    done = subprocess.run(
        [sys.executable, "-c", code, what, str(path)], capture_output=True, text=True, check=True
    )
    return json.loads(done.stdout)  # type: ignore[no-any-return]


def mb(n: float) -> str:
    return f"{n / 1e6:,.1f} MB"


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--size-mb", type=int, default=1024)
    parser.add_argument("--slice-mb", type=int, default=100)
    parser.add_argument(
        "--huge-mb", type=int, default=0, help="instead: a replay of one line this big in the TUI"
    )
    args = parser.parse_args()
    if args.huge_mb:
        huge_line(args.huge_mb)
        return
    size = args.size_mb * 1_000_000
    if not FILE.exists() or abs(FILE.stat().st_size - size) > size * 0.05:
        t = time.perf_counter()
        generate(FILE, size)
        print(f"generated {FILE} in {time.perf_counter() - t:.1f} s")
    make_slice(FILE, SLICE, args.slice_mb * 1_000_000)
    total = FILE.stat().st_size
    part = SLICE.stat().st_size
    scale = total / part
    # warm the page cache for both, so the figures compare parsing, not the disk
    for p in (FILE, SLICE):
        with open(p, "rb") as fh:
            while fh.read(64 << 20):
                pass

    ours = measure("indexed", FILE)
    naive = measure("read_session", SLICE)
    loads = measure("json", SLICE)
    naive_full = naive["full"] * scale
    loads_full = loads["full"] * scale
    naive_mem = naive["anon"] * scale

    print(
        f"session file: {mb(total)}, {ours['events']:,} events "
        f"({total / ours['events']:.0f} bytes each)"
    )
    print(
        f"IndexedSessionFile  first screen (open, header, 100 events): "
        f"{ours['first_screen'] * 1000:.1f} ms ({ours['first_events']:,} events indexed)"
    )
    print(
        f"IndexedSessionFile  full index: {ours['full']:.2f} s "
        f"({total / ours['full'] / 1e6:,.0f} MB/s); last screen "
        f"{ours['last_screen'] * 1000:.1f} ms"
    )
    print(
        f"IndexedSessionFile  kind/direction facts for column filters: "
        f"{ours['facts_per_event'] * 1e6:.1f} us an event (whole file in the background: "
        f"{ours['facts_per_event'] * ours['events']:.0f} s)"
    )
    print(
        f"IndexedSessionFile  memory held (anonymous RSS): {mb(ours['anon'])} = "
        f"{ours['anon'] / total:.1%} of the file; VmRSS incl. mapped pages "
        f"{mb(ours['rss'])}"
    )
    print(
        f"read_session peer   on {mb(part)}: {naive['full']:.2f} s, {mb(naive['anon'])} held;"
        f" extrapolated x{scale:.1f}: {naive_full:.1f} s, {mb(naive_mem)}"
    )
    print(
        f"json.loads peer     on {mb(part)}: {loads['full']:.2f} s; extrapolated {loads_full:.1f} s"
    )
    print(f"ratio  first screen vs read_session: {naive_full / ours['first_screen']:,.0f}x faster")
    print(
        f"ratio  full index vs read_session:   {naive_full / ours['full']:,.1f}x faster; "
        f"vs json.loads of every line: {loads_full / ours['full']:,.1f}x"
    )
    print(f"ratio  memory vs read_session:       {naive_mem / max(ours['anon'], 1):,.0f}x less")
    ok = ours["first_screen"] < 2.0
    print(f"target: 1 GB opens to its first screen in < 2 s: {'met' if ok else 'NOT met'}")
    os.remove(SLICE)


if __name__ == "__main__":
    main()
