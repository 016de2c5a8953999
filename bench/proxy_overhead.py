"""What the proxy costs: per-request latency added (p50, p99) and throughput, against direct.

A minimal client (raw JSON-RPC lines over stdio, raw HTTP/1.1 keep-alive POSTs over
HTTP; no SDK or client library on top, so the proxy's cost is not hidden in the client's)
talks to the same server directly and through ``mcp-inspect proxy`` (recording on, as by
default), in the same run, rounds alternating so machine noise hits both alike; over stdio
also through ``bench/bare_relay.py``, a relay that only passes bytes (over HTTP a TCP
relay), as the floor any Python relay costs on this machine; over HTTP also through its
``--http`` relay, which reads each message whole before passing it on, and the same
recording each one to a file: the least an HTTP relay that parses (and records) costs:

- latency: sequential ``tools/call`` round trips; the proxy adds (proxied - direct) at
  the 50th and 99th percentiles;
- throughput: ``--window`` requests kept in flight for ``--throughput-calls`` calls (a
  few seconds: shorter runs measure the scheduler more than the proxy); calls per
  second, proxied / direct.

Over stdio (the host starts the proxy; behind it the demo server, the cheapest server there
is, where the proxy's share of the work is largest, and a server written with the official
SDK, like most servers; ``--stdio-servers``) and over HTTP (the
host posts to ``proxy --listen``; an official-SDK Streamable HTTP server behind it,
against posting to that server directly) when ``--http`` is given.

    python bench/proxy_overhead.py [--calls 2000] [--throughput-calls 12000] [--rounds 3]
        [--window 16] [--stdio-servers demo,sdk] [--placements] [--http | --http-only]
        [--h11] [--lane]

Targets: p50 added <= 1 ms, throughput >= 90 % of direct.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import statistics
import sys
import tempfile
import time
from collections.abc import AsyncIterator, Sequence
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from inspector.proxy.fronttoken import read_token

ROOT = Path(__file__).resolve().parent.parent
PY = sys.executable
DEMO = [PY, "-m", "inspector.demo"]
SDK_STDIO = [PY, str(ROOT / "tests" / "servers" / "sdk_stdio_server.py")]
# the stdio servers measured: the demo (the cheapest server there is, so the proxy's share
# of the work is at its largest) and one written with the official SDK (what most are)
STDIO_SERVERS = {"demo": ("demo server", DEMO), "sdk": ("official SDK server", SDK_STDIO)}
WARMUP = 50
PROXY = [PY, "-m", "inspector", "proxy"]
FRONT_NAME = "bench-front"  # the proxy's name over HTTP: its front token is kept under it
CALL: dict[str, object] = {"name": "add", "arguments": {"a": 2, "b": 40}}


def proxied(server: list[str], record: Path) -> list[str]:
    return [PY, "-m", "inspector", "proxy", "--record", str(record), "--", *server]


class LineClient:
    """JSON-RPC over a child's stdin/stdout, one line a message, responses by id."""

    def __init__(self, proc: asyncio.subprocess.Process) -> None:
        self.proc = proc
        self.waiting: dict[int, asyncio.Future[dict[str, object]]] = {}
        self.ids = 0
        self.reader = asyncio.ensure_future(self._read())

    async def _read(self) -> None:
        assert self.proc.stdout is not None
        while line := await self.proc.stdout.readline():
            message = json.loads(line)
            future = self.waiting.pop(message.get("id"), None)
            if future is not None and not future.done():
                future.set_result(message)

    async def request(self, method: str, params: dict[str, object] | None = None) -> None:
        assert self.proc.stdin is not None
        self.ids += 1
        future = asyncio.get_running_loop().create_future()
        self.waiting[self.ids] = future
        body = {"jsonrpc": "2.0", "id": self.ids, "method": method, "params": params or {}}
        self.proc.stdin.write(json.dumps(body).encode() + b"\n")
        await future

    async def notify(self, method: str) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(json.dumps({"jsonrpc": "2.0", "method": method}).encode() + b"\n")


@contextlib.asynccontextmanager
async def stdio_client(command: list[str]) -> AsyncIterator[LineClient]:
    proc = await asyncio.create_subprocess_exec(
        *command,
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.DEVNULL,
        cwd=str(ROOT),
        limit=1 << 24,
        env={**os.environ, "MCP_INSPECT_RUNTIME_DIR": tempfile.gettempdir() + "/mi-bench"},
    )
    client = LineClient(proc)
    try:
        await client.request(
            "initialize",
            {
                "protocolVersion": "2025-11-25",
                "capabilities": {},
                "clientInfo": {"name": "bench", "version": "0"},
            },
        )
        await client.notify("notifications/initialized")
        yield client
    finally:
        assert proc.stdin is not None
        proc.stdin.close()
        await proc.wait()
        client.reader.cancel()


class HttpConnection:
    """One keep-alive HTTP/1.1 connection: a POST written, the response read whole
    (Content-Length or chunked), nothing else parsed."""

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.reader = reader
        self.writer = writer

    async def post(self, head: bytes, body: bytes) -> tuple[dict[str, str], bytes]:
        self.writer.write(head + b"Content-Length: %d\r\n\r\n" % len(body) + body)
        status = await self.reader.readline()
        if not status.startswith(b"HTTP/1.1 2"):
            raise SystemExit(f"unexpected status: {status!r}")
        headers: dict[str, str] = {}
        while (line := await self.reader.readline()) not in (b"\r\n", b""):
            name, _, value = line.decode("latin-1").partition(":")
            headers[name.strip().lower()] = value.strip()
        if "content-length" in headers:
            return headers, await self.reader.readexactly(int(headers["content-length"]))
        if headers.get("transfer-encoding", "").lower() != "chunked":
            raise SystemExit(f"no length, not chunked: {headers}")
        chunks: list[bytes] = []
        while size := int((await self.reader.readline()).split(b";")[0], 16):
            chunks.append(await self.reader.readexactly(size))
            await self.reader.readline()
        await self.reader.readline()  # the empty line after the last chunk
        return headers, b"".join(chunks)


class HttpClient:
    """JSON-RPC over Streamable HTTP, one POST a message (the answer as JSON or SSE), on
    raw keep-alive connections (one per request in flight): like ``LineClient``, no
    client library on top, so the proxy's cost is not hidden in the client's."""

    def __init__(self, url: str) -> None:
        target = urlsplit(url)
        self.address = (target.hostname or "127.0.0.1", target.port or 80)
        self.path = target.path or "/"
        self.host = target.netloc
        self.headers = {
            "Accept": "application/json, text/event-stream",
            "Content-Type": "application/json",
        }
        self.idle: list[HttpConnection] = []
        self.open: list[HttpConnection] = []
        self.ids = 0

    async def _connection(self) -> HttpConnection:
        if self.idle:
            return self.idle.pop()
        reader, writer = await asyncio.open_connection(*self.address, limit=1 << 24)
        connection = HttpConnection(reader, writer)
        self.open.append(connection)
        return connection

    async def _post(self, body: bytes) -> tuple[dict[str, str], bytes]:
        head = f"POST {self.path} HTTP/1.1\r\nHost: {self.host}\r\n" + "".join(
            f"{name}: {value}\r\n" for name, value in self.headers.items()
        )
        connection = await self._connection()
        headers, content = await connection.post(head.encode(), body)
        self.idle.append(connection)
        if "mcp-session-id" in headers:
            self.headers["Mcp-Session-Id"] = headers["mcp-session-id"]
        return headers, content

    async def request(self, method: str, params: dict[str, object] | None = None) -> None:
        self.ids += 1
        body = {"jsonrpc": "2.0", "id": self.ids, "method": method, "params": params or {}}
        headers, content = await self._post(json.dumps(body).encode())
        text = content.decode()
        if headers.get("content-type", "").startswith("text/event-stream"):
            text = "\n".join(
                line[5:].strip() for line in text.splitlines() if line.startswith("data:")
            )
        if json.loads(text).get("id") != body["id"]:
            raise SystemExit(f"unexpected answer: {text[:200]}")

    async def notify(self, method: str) -> None:
        await self._post(json.dumps({"jsonrpc": "2.0", "method": method}).encode())

    async def aclose(self) -> None:
        for connection in self.open:
            connection.writer.close()


@contextlib.asynccontextmanager
async def http_client(url: str, token: str | None = None) -> AsyncIterator[HttpClient]:
    """A session on ``url``; ``token``: the proxy front's, sent as a host sends it."""
    client = HttpClient(url)
    if token is not None:
        client.headers["Authorization"] = f"Bearer {token}"
    try:
        await client.request(
            "initialize",
            {
                "protocolVersion": "2025-11-25",
                "capabilities": {},
                "clientInfo": {"name": "bench", "version": "0"},
            },
        )
        client.headers["MCP-Protocol-Version"] = "2025-11-25"
        await client.notify("notifications/initialized")
        yield client
    finally:
        await client.aclose()


async def started(command: list[str], marker: bytes, on_stderr: bool) -> tuple[Any, str]:
    """A child process and the address it prints (``PORT n`` / ``listening on URL``)."""
    proc = await asyncio.create_subprocess_exec(
        *command,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE if on_stderr else asyncio.subprocess.DEVNULL,
        cwd=str(ROOT),
        env={**os.environ, "MCP_INSPECT_RUNTIME_DIR": tempfile.gettempdir() + "/mi-bench"},
    )
    stream = proc.stderr if on_stderr else proc.stdout
    assert stream is not None
    while line := await asyncio.wait_for(stream.readline(), 60):
        if marker in line:
            return proc, line.split(marker, 1)[1].decode().strip()
    raise SystemExit(f"{command} did not start")


# the proxy through a bench wrapper, run in the same rounds (A/B): label -> the wrapper
VARIANTS = {"h11": "h11_front.py", "lane": "lane_front.py"}


async def http_rounds(
    calls: int, busy: int, rounds: int, window: int, record: Path, variants: Sequence[str] = ()
) -> list[Round]:
    server, port = await started(
        [PY, str(ROOT / "tests" / "servers" / "http_sdk_server.py"), "json"], b"PORT ", False
    )
    url = f"http://127.0.0.1:{port}/mcp"

    async def front(proxy_command: list[str], *options: str) -> tuple[Any, str]:
        """A proxy listening in front of the server, under the bench's name (one token)."""
        listening = [*proxy_command, "--name", FRONT_NAME, *options, "--listen", "127.0.0.1:0"]
        return await started([*listening, url], b"listening on ", True)

    proxy, proxy_front = await front(PROXY, "--record", str(record))
    token = read_token(FRONT_NAME)  # the front asks for it, as a host's config gives it
    relays = [("direct", url, server), ("proxied", proxy_front, proxy)]
    # the same proxy with nothing recorded: what the recording (five lines a call, each
    # redacted, flushed before the frame goes on) costs of it, measured each run
    unrecorded, unrecorded_front = await front(PROXY, "--no-record")
    relays.append(("unrecorded", unrecorded_front, unrecorded))
    for label in variants:
        wrapped = [PY, str(ROOT / "bench" / VARIANTS[label]), "proxy"]
        own_record = str(record.with_suffix(f".{label}.jsonl"))
        other, other_front = await front(wrapped, "--record", own_record)
        relays.append((label, other_front, other))
    bare_relay = [PY, str(ROOT / "bench" / "bare_relay.py")]
    floors = {
        "bare": ["--tcp", url],
        "parsed": ["--http", url],
        "recorded": ["--http", url, "--record", str(record.with_suffix(".floor.jsonl"))],
    }
    for label, args in floors.items():
        floor, floor_front = await started([*bare_relay, *args], b"listening on ", True)
        relays.append((label, floor_front, floor))
    out: list[Round] = []
    try:
        for _ in range(rounds):
            result: Round = {}
            for label, target, proc in relays:
                pid = proc.pid
                mine = token if label in ("proxied", "unrecorded", *variants) else None
                async with http_client(target, mine) as client:
                    lat = await latencies(client, calls)
                    relay = pid if pid != server.pid else None
                    rate, parts = await measured_throughput(client, busy, window, server.pid, relay)
                result[label] = (lat, rate, parts["relay" if relay else "server"], parts)
            out.append(result)
    finally:
        for _label, _target, proc in reversed(relays):
            proc.terminate()
            await proc.wait()
    return out


async def latencies(client: LineClient | HttpClient, calls: int) -> list[float]:
    for _ in range(WARMUP):
        await client.request("tools/call", CALL)
    out: list[float] = []
    for _ in range(calls):
        start = time.perf_counter()
        await client.request("tools/call", CALL)
        out.append((time.perf_counter() - start) * 1000)
    return out


async def throughput(client: LineClient | HttpClient, calls: int, window: int) -> float:
    done = 0

    async def worker(n: int) -> None:
        nonlocal done
        for _ in range(n):
            await client.request("tools/call", CALL)
            done += 1

    start = time.perf_counter()
    await asyncio.gather(*(worker(calls // window) for _ in range(window)))
    return done / (time.perf_counter() - start)


async def measured_throughput(
    client: LineClient | HttpClient, calls: int, window: int, server: int, relay: int | None
) -> tuple[float, dict[str, float]]:
    """The throughput, and the CPU a call of the client (this process), the server and the
    relay between them (None: direct)."""
    pids = {"server": server, **({"relay": relay} if relay is not None else {})}
    before = {name: cpu_ms(pid) for name, pid in pids.items()}
    mine = time.process_time()
    rate = await throughput(client, calls, window)
    done = calls // window * window
    parts = {name: (cpu_ms(pid) - before[name]) / done for name, pid in pids.items()}
    parts["client"] = (time.process_time() - mine) * 1000 / done
    return rate, parts


def cpu_ceiling(parts: dict[str, float], cpus: int) -> float:
    """Calls a second when CPU is all that limits them: the processes share ``cpus``, and
    none runs on more than one."""
    return min(cpus / sum(parts.values()), 1 / max(parts.values())) * 1000


def children(pid: int) -> list[int]:
    try:
        text = Path(f"/proc/{pid}/task/{pid}/children").read_text()
    except OSError:
        return []
    return [int(p) for p in text.split()]


def cpu_ms(pid: int) -> float:
    """CPU time (user + system) a process used so far, in ms (Linux /proc)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return float("nan")
    return (int(fields[11]) + int(fields[12])) * 1000 / os.sysconf("SC_CLK_TCK")


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


# latencies, rate, CPU ms a call (the relay's, or the server's direct), the CPU of each part
Round = dict[str, tuple[list[float], float, float, dict[str, float]]]


# where the processes run, for --placements: (client, relay, server) CPUs; None: no relay
PLACEMENTS = {
    "direct, client | server": (0, None, 1),
    "direct, all on one CPU": (0, None, 0),
    "proxied, client + proxy | server": (0, 0, 1),
    "proxied, client | proxy + server": (0, 1, 1),
    "proxied, client + server | proxy": (0, 1, 0),
}


async def placements(server_command: list[str], calls: int, window: int, record: Path) -> None:
    """Throughput with each process pinned to a CPU (Linux, 2 CPUs or more): over stdio the
    kernel's choice of where three busy processes run moves the figure more than the
    proxy does; each setup's best placement against the other's is the proxy's own cost."""
    best: dict[str, float] = {}
    for label, (mine, relay_cpu, server_cpu) in PLACEMENTS.items():
        command = server_command if relay_cpu is None else proxied(server_command, record)
        async with stdio_client(command) as client:
            pid = client.proc.pid
            server = pid if relay_cpu is None else (children(pid) or [pid])[0]
            os.sched_setaffinity(0, {mine})
            os.sched_setaffinity(server, {server_cpu})
            if relay_cpu is not None:
                os.sched_setaffinity(pid, {relay_cpu})
            await throughput(client, calls // 4, window)  # settle
            rate = statistics.median([await throughput(client, calls, window) for _ in range(3)])
            os.sched_setaffinity(0, range(os.cpu_count() or 1))
        kind = label.split(",")[0]
        best[kind] = max(best.get(kind, 0.0), rate)
        print(f"  {label:36s} {rate:8.0f} calls/s")
    print(f"  best against best: ratio {best['proxied'] / best['direct']:.2f}  (target >= 0.90)")


async def stdio_round(
    server_command: list[str], calls: int, busy: int, window: int, record: Path
) -> Round:
    results: Round = {}
    bare = [PY, str(ROOT / "bench" / "bare_relay.py"), *server_command]
    for label, command in (
        ("direct", server_command),
        ("proxied", proxied(server_command, record)),
        ("bare", bare),
    ):
        async with stdio_client(command) as client:
            lat = await latencies(client, calls)
            pid = client.proc.pid
            if label == "direct":
                rate, parts = await measured_throughput(client, busy, window, pid, None)
                cpu = parts["server"]
            else:
                server = (children(pid) or [pid])[0]
                rate, parts = await measured_throughput(client, busy, window, server, pid)
                cpu = parts["relay"]
        results[label] = (lat, rate, cpu, parts)
    return results


def measured(rounds: list[Round], label: str) -> tuple[float, list[float]]:
    """One relay's CPU a call (the median of the rounds) and its latencies (all rounds)."""
    return statistics.median(r[label][2] for r in rounds), [v for r in rounds for v in r[label][0]]


def report(title: str, rounds: list[Round]) -> None:
    direct = measured(rounds, "direct")[1]
    proxy = measured(rounds, "proxied")[1]
    d_rate = statistics.median(r["direct"][1] for r in rounds)
    p_rate = statistics.median(r["proxied"][1] for r in rounds)
    p50 = pct(proxy, 0.5) - pct(direct, 0.5)
    p99 = pct(proxy, 0.99) - pct(direct, 0.99)
    print(f"== {title}")
    print(
        f"latency ms     direct p50 {pct(direct, 0.5):6.3f} p99 {pct(direct, 0.99):6.3f}   "
        f"proxied p50 {pct(proxy, 0.5):6.3f} p99 {pct(proxy, 0.99):6.3f}"
    )
    print(f"added by the proxy: p50 {p50:+.3f} ms, p99 {p99:+.3f} ms  (target p50 <= 1 ms)")
    print(
        f"throughput     direct {d_rate:8.0f} calls/s   proxied {p_rate:8.0f} calls/s   "
        f"ratio {p_rate / d_rate:.2f}  (target >= 0.90)"
    )
    # each round's own ratio: three processes on few cores swing between placements
    each = " ".join(f"{r['proxied'][1] / r['direct'][1]:.2f}" for r in rounds)
    print(f"               ratio round by round: {each}")
    proxy_cpu = statistics.median(r["proxied"][2] for r in rounds)
    print(
        f"CPU a call     the proxy {proxy_cpu:.3f} ms   (the server alone, direct: "
        f"{statistics.median(r['direct'][2] for r in rounds):.3f} ms); load average "
        f"{os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs"
    )
    cpus = os.cpu_count() or 1
    d_parts = [r["direct"][3] for r in rounds]
    p_parts = [r["proxied"][3] for r in rounds]
    ceiling = statistics.median(
        cpu_ceiling(p, cpus) / cpu_ceiling(d, cpus) for d, p in zip(d_parts, p_parts, strict=True)
    )
    print(
        f"CPU bound      client {statistics.median(p['client'] for p in p_parts):.3f} + server "
        f"{statistics.median(p['server'] for p in p_parts):.3f} + proxy {proxy_cpu:.3f} ms a call "
        f"on {cpus} CPUs: were CPU all that limits them, the ratio would be {ceiling:.2f}"
    )
    if "h11" in rounds[0]:  # the same proxy, parsing with h11 (A/B in the same rounds)
        h11_cpu, h11_lat = measured(rounds, "h11")
        print(
            f"h11 parser     CPU a call {h11_cpu:.3f} ms against {proxy_cpu:.3f} ms "
            f"({(h11_cpu - proxy_cpu) / proxy_cpu:+.1%}); added p50 "
            f"{pct(h11_lat, 0.5) - pct(direct, 0.5):+.3f} ms; each round: "
            + " ".join(f"{r['h11'][2]:.3f}/{r['proxied'][2]:.3f}" for r in rounds)
        )
    if "lane" in rounds[0]:  # a minimal direct lane, recording on (A/B in the same rounds)
        lane_cpu, lane_lat = measured(rounds, "lane")
        print(
            f"lane floor     bench/lane_front.py (a minimal direct lane, the same five events "
            f"recorded): CPU a call {lane_cpu:.3f} ms ({(lane_cpu - proxy_cpu) / proxy_cpu:+.0%}"
            f" against the proxy); added p50 {pct(lane_lat, 0.5) - pct(direct, 0.5):+.3f} ms"
        )
    if "unrecorded" in rounds[0]:  # the same proxy, --no-record (A/B in the same rounds)
        unrecorded_cpu, un_lat = measured(rounds, "unrecorded")
        print(
            f"not recording  the proxy with --no-record: CPU a call {unrecorded_cpu:.3f} ms "
            f"(recording is {(proxy_cpu - unrecorded_cpu) / proxy_cpu:.0%} of the proxy's); "
            f"added p50 {pct(un_lat, 0.5) - pct(direct, 0.5):+.3f} ms"
        )
    for label, what in (
        ("parsed", "each HTTP message read whole, then passed"),
        ("recorded", "the same, and each written to a file as a JSON line, flushed"),
    ):
        if label in rounds[0]:  # HTTP: the least a relay that parses (and records) costs
            cpu, floor = measured(rounds, label)
            print(
                f"floor {label:8s} bench/bare_relay.py --http ({what}): "
                f"p50 {pct(floor, 0.5) - pct(direct, 0.5):+.3f} ms, CPU a call {cpu:.3f} ms"
            )
    if "bare" in rounds[0]:  # the peer: what any Python relay costs here
        bare = [v for r in rounds for v in r["bare"][0]]
        b_rate = statistics.median(r["bare"][1] for r in rounds)
        bare_cpu = statistics.median(r["bare"][2] for r in rounds)
        print(
            f"floor          bench/bare_relay.py (bytes passed, nothing parsed or recorded): "
            f"p50 {pct(bare, 0.5) - pct(direct, 0.5):+.3f} ms, ratio {b_rate / d_rate:.2f}, "
            f"CPU a call {bare_cpu:.3f} ms; "
            f"the proxy's throughput against it {p_rate / b_rate:.2f}"
        )
        against = [f"the proxy {proxy_cpu / bare_cpu:.2f}x (target <= 2x)"]
        for label, what in (
            ("unrecorded", "not recording"),
            ("lane", "lane floor"),
            ("parsed", "floor parsed"),
            ("recorded", "floor recorded"),
        ):
            if label in rounds[0]:
                cpu = measured(rounds, label)[0]
                against.append(f"{what} {cpu / bare_cpu:.2f}x")
        print(f"CPU against it {', '.join(against)}")


async def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--calls", type=int, default=2000)
    parser.add_argument("--throughput-calls", type=int, default=12000)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--window", type=int, default=16)
    parser.add_argument(
        "--placements",
        action="store_true",
        help="over stdio, also the throughput with the processes pinned to CPUs, each way",
    )
    parser.add_argument("--http", action="store_true", help="also measure the HTTP front")
    parser.add_argument("--http-only", action="store_true", help="measure the HTTP front only")
    parser.add_argument(
        "--h11",
        action="store_true",
        help="HTTP: also the proxy with h11 parsing its requests (bench/h11_front.py), "
        "in the same rounds",
    )
    parser.add_argument(
        "--lane",
        action="store_true",
        help="HTTP: also the proxy with a minimal direct lane for plain calls "
        "(bench/lane_front.py: measurement only), in the same rounds",
    )
    parser.add_argument(
        "--stdio-servers",
        default="demo,sdk",
        help="which stdio servers, comma-separated: demo, sdk (default: both)",
    )
    opts = parser.parse_args()
    if opts.placements and (os.cpu_count() or 1) < 2:
        parser.error("--placements needs 2 CPUs or more")
    with tempfile.TemporaryDirectory() as tmp:
        record = Path(tmp) / "bench.jsonl"
        busy = opts.throughput_calls
        for key in [] if opts.http_only else opts.stdio_servers.split(","):
            if key not in STDIO_SERVERS:
                parser.error(f"--stdio-servers: no server {key!r} (demo, sdk)")
            title, command = STDIO_SERVERS[key]
            rounds = [
                await stdio_round(command, opts.calls, busy, opts.window, record)
                for _ in range(opts.rounds)
            ]
            report(f"stdio: {title}, {opts.calls} calls x {opts.rounds} rounds", rounds)
            if opts.placements:
                print("placements   (client | relay | server pinned; throughput, median of 3)")
                await placements(command, busy, opts.window, record)
        if opts.http or opts.http_only:
            report(
                f"HTTP: SDK server (JSON responses), {opts.calls} calls x {opts.rounds} "
                "rounds; the proxy's CPU is its own, the direct CPU is the server's",
                await http_rounds(
                    opts.calls,
                    busy,
                    opts.rounds,
                    opts.window,
                    record,
                    [label for label in VARIANTS if getattr(opts, label)],
                ),
            )


if __name__ == "__main__":
    asyncio.run(main())
