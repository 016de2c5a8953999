"""Exporting a big session: time and peak memory of each format, against reading it.

Generates an HTTP session file in /tmp (Streamable HTTP frames: request line, posted body,
status line, SSE progress and answer: reused when present, ~1 GB by default), then runs
in fresh subprocesses, each measured on its own:

- the peer: one pass of ``iter_events`` over the file (decode every line, nothing kept);
- ``export --format otlp``, ``har``, ``markdown``, ``json`` to /dev/null.

Prints each export's wall time as a ratio of the peer's, and its peak RSS (VmHWM) beside
the file's size: the target is streaming, under 200 MB whatever the file's size.

Usage: python bench/export_big.py [--size-mb 1024]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

FILE = Path("/tmp/mcp-inspect-bench-http-session.jsonl")


def generate(path: Path, size: int) -> None:
    from inspector.record.format import SessionHeader

    url = "http://127.0.0.1:8000/mcp"

    def line(seq: int, rid: int, direction: str, channel: str, raw: object, meta: object) -> bytes:
        text = raw if isinstance(raw, str) else json.dumps(raw, separators=(",", ":"))
        data = {
            "seq": seq,
            "t": 1_700_000_000 + seq / 1000,
            "mono": seq / 1000,
            "dir": direction,
            "ch": channel,
            "raw": text,
            "meta": meta,
        }
        return (json.dumps(data) + "\n").encode()

    header = SessionHeader(target={"url": url, "describe": url, "transport": "http"})
    tmp = path.with_suffix(".part")
    seq = rid = written = 0
    with open(tmp, "wb") as fh:
        written += fh.write(header.to_line())
        while written < size:
            block = []
            for _ in range(2_000):
                rid += 1
                request = {
                    "jsonrpc": "2.0",
                    "id": rid,
                    "method": "tools/call",
                    "params": {
                        "name": "search",
                        "arguments": {"q": f"query {rid}"},
                        "_meta": {"progressToken": f"p{rid}"},
                    },
                }
                progress = {
                    "jsonrpc": "2.0",
                    "method": "notifications/progress",
                    "params": {"progressToken": f"p{rid}", "progress": 1, "total": 2},
                }
                answer = {
                    "jsonrpc": "2.0",
                    "id": rid,
                    "result": {"content": [{"type": "text", "text": "result text " * 60}]},
                }
                stream = {"stream": f"post:{rid}", "event_id": None, "event_type": "message"}
                frames = [
                    (
                        "out",
                        "http",
                        f"POST {url}",
                        {
                            "method": "POST",
                            "url": url,
                            "headers": {"Content-Type": "application/json"},
                            "request_id": rid,
                        },
                    ),
                    ("out", "body", request, {"url": url}),
                    (
                        "in",
                        "http",
                        "HTTP 200 OK text/event-stream",
                        {
                            "status": 200,
                            "reason": "OK",
                            "headers": {"content-type": "text/event-stream"},
                            "url": url,
                            "request_id": rid,
                        },
                    ),
                    ("in", "sse", progress, stream),
                    ("in", "sse", answer, stream),
                ]
                for direction, channel, raw, meta in frames:
                    seq += 1
                    block.append(line(seq, rid, direction, channel, raw, meta))
            written += fh.write(b"".join(block))
    tmp.rename(path)


CHILD = r"""
import sys, time
sys.path.insert(0, {root!r})
what, path = sys.argv[1], sys.argv[2]
t0 = time.perf_counter()
if what == "read":
    from inspector.record.reader import iter_events
    n = sum(1 for _ in iter_events(path))
else:
    from inspector.commands import main
    sys.stdout = open("/dev/null", "w")
    main(["export", path, "--format", what])
    sys.stdout = sys.__stdout__
took = time.perf_counter() - t0
hwm = [l for l in open("/proc/self/status") if l.startswith("VmHWM")][0].split()[1]
print(took, int(hwm) * 1024)
"""


def measure(what: str, path: Path) -> tuple[float, int]:
    out = subprocess.run(
        [sys.executable, "-c", CHILD.format(root=str(ROOT)), what, str(path)],
        capture_output=True,
        text=True,
        check=True,
    )
    took, hwm = out.stdout.split()
    return float(took), int(hwm)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size-mb", type=int, default=1024)
    args = parser.parse_args()
    size = args.size_mb * 1024 * 1024
    if not FILE.exists() or abs(FILE.stat().st_size - size) > size // 10:
        FILE.unlink(missing_ok=True)
        started = time.perf_counter()
        generate(FILE, size)
        print(
            f"generated {FILE} ({FILE.stat().st_size / 2**20:.0f} MiB) in "
            f"{time.perf_counter() - started:.1f} s"
        )
    file_mb = FILE.stat().st_size / 2**20
    peer, peer_mem = measure("read", FILE)
    print(
        f"peer: read every event  {peer:7.1f} s  peak {peer_mem / 2**20:6.0f} MiB"
        f"  (file {file_mb:.0f} MiB)"
    )
    for fmt in ("otlp", "har", "markdown", "json"):
        took, mem = measure(fmt, FILE)
        verdict = "ok" if mem < 200 * 2**20 else "OVER 200 MiB"
        print(
            f"export --format {fmt:8} {took:7.1f} s  x{took / peer:4.2f} of the peer  "
            f"peak {mem / 2**20:6.0f} MiB  {verdict}"
        )


if __name__ == "__main__":
    main()
