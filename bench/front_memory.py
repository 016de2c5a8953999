"""What hostile bodies cost ``proxy --listen`` in memory: the proxy's RSS before, at its
peak and after, while ``--clients`` connections each send a ``--size`` MB body.

Two floods, one after the other, on one proxy (the demo server behind, one host session
open, recording off):

- ``no-host``: the head has no ``Host`` (nor the token): refused on the head;
- ``admitted``: a valid head (Host, the token, the session), a JSON notification of
  ``--size`` MB: the bodies are read, as many at once as ``--max-buffer`` allows (the
  others get 503), and passed on to the server.

    python bench/front_memory.py [--clients 15] [--size 60] [--root DIR]

``--root``: run the proxy of another checkout (the same flood against an older version).
Target: the peak under 150 MB, back near the baseline after.
"""

from __future__ import annotations

import argparse
import json
import os
import socket
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
PY = sys.executable
PROXY = [PY, "-m", "inspector", "proxy", "--name", "memory", "--no-record", "--no-attach"]
SETTLE = 3.0  # seconds after a flood before the "after" figure


def rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


class Peak(threading.Thread):
    """The highest RSS of ``pid`` while running (sampled every 10 ms)."""

    def __init__(self, pid: int) -> None:
        super().__init__(daemon=True)
        self.pid, self.peak, self.running = pid, 0.0, True

    def run(self) -> None:
        while self.running:
            self.peak = max(self.peak, rss_mb(self.pid))
            time.sleep(0.01)


def send(
    address: tuple[str, int], head: bytes, body_size: int, tail: bytes, results: list[str]
) -> None:
    """The head, then ``body_size`` bytes (``a``s, then ``tail``) in 1 MB writes while the
    proxy takes them; the answer's status line (or how the connection ended)."""
    chunk = b"a" * (1 << 20)
    try:
        with socket.create_connection(address, timeout=120) as conn:
            conn.sendall(head)
            sent, pad = 0, body_size - len(tail)
            try:
                while sent < pad:
                    part = chunk[: min(len(chunk), pad - sent)]
                    conn.sendall(part)
                    sent += len(part)
                conn.sendall(tail)
            except OSError:
                pass  # refused before the body: the proxy closed
            answer = conn.recv(200)
            results.append(answer.split(b"\r\n", 1)[0].decode() or "closed")
    except OSError as exc:
        results.append(type(exc).__name__)


def flood(address: tuple[str, int], head: bytes, size: int, tail: bytes, clients: int) -> list[str]:
    results: list[str] = []
    threads = [
        threading.Thread(target=send, args=(address, head, size, tail, results))
        for _ in range(clients)
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return results


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--clients", type=int, default=15)
    parser.add_argument("--size", type=int, default=60, help="MB a body")
    parser.add_argument("--root", type=Path, default=ROOT, help="the checkout whose proxy runs")
    opts = parser.parse_args()
    size = opts.size << 20
    state = tempfile.mkdtemp(prefix="front-memory-")
    env = {**os.environ, "XDG_STATE_HOME": state, "MCP_INSPECT_RUNTIME_DIR": state}
    proxy = subprocess.Popen(
        [*PROXY, "--listen", "127.0.0.1:0", "--", PY, "-m", "inspector.demo"],
        cwd=str(opts.root),
        env=env,
        stderr=subprocess.PIPE,
    )
    try:
        url = ""
        assert proxy.stderr is not None
        while not url:
            line = proxy.stderr.readline()
            if not line:
                raise SystemExit("the proxy did not start")
            if b"listening on " in line:
                url = line.decode().split("listening on ", 1)[1].strip()
        host, port = url.split("//", 1)[1].split("/", 1)[0].rsplit(":", 1)
        address = (host, int(port))
        token_file = Path(state) / "mcp-inspect" / "fronts" / "memory.token"
        token = token_file.read_text().strip() if token_file.exists() else ""
        sid = open_session(address, token)
        time.sleep(1)
        rows: list[dict[str, Any]] = []
        # a JSON notification of ``size`` bytes: its start in the head's write, ``a``s, its end
        start = b'{"jsonrpc":"2.0","method":"notifications/bench","params":{"pad":"'
        valid = (
            f"POST /mcp HTTP/1.1\r\nHost: {host}:{port}\r\nAuthorization: Bearer {token}\r\n"
            f"Content-Type: application/json\r\nMcp-Session-Id: {sid}\r\n"
            f"Content-Length: {size}\r\n\r\n"
        ).encode() + start
        no_host = (
            "POST /mcp HTTP/1.1\r\nContent-Type: application/json\r\n"
            f"Content-Length: {size}\r\n\r\n"
        ).encode()
        for label, head, rest, tail in (
            ("no-host", no_host, size, b""),
            ("admitted", valid, size - len(start), b'"}}'),
        ):
            before = rss_mb(proxy.pid)
            peak = Peak(proxy.pid)
            peak.start()
            answers = flood(address, head, rest, tail, opts.clients)
            peak.running = False
            peak.join()
            time.sleep(SETTLE)
            counts: dict[str, int] = {}
            for answer in answers:
                counts[answer] = counts.get(answer, 0) + 1
            rows.append(
                {
                    "flood": label,
                    "before_mb": round(before, 1),
                    "peak_mb": round(peak.peak, 1),
                    "after_mb": round(rss_mb(proxy.pid), 1),
                    "answers": counts,
                }
            )
        print(f"{opts.clients} clients x {opts.size} MB, proxy from {opts.root}")
        for row in rows:
            print(json.dumps(row))
    finally:
        proxy.terminate()
        proxy.wait(30)


def open_session(address: tuple[str, int], token: str) -> str:
    """An initialize with the token; the session id."""
    body = json.dumps(
        {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "initialize",
            "params": {
                "protocolVersion": "2025-06-18",
                "capabilities": {},
                "clientInfo": {"name": "bench", "version": "0"},
            },
        }
    ).encode()
    head = (
        f"POST /mcp HTTP/1.1\r\nHost: {address[0]}:{address[1]}\r\n"
        f"Authorization: Bearer {token}\r\nContent-Type: application/json\r\n"
        f"Accept: application/json\r\nContent-Length: {len(body)}\r\n\r\n"
    ).encode()
    with socket.create_connection(address, timeout=30) as conn:
        conn.sendall(head + body)
        answer = b""
        while b"\r\n\r\n" not in answer:
            answer += conn.recv(4096)
    for line in answer.split(b"\r\n"):
        if line.lower().startswith(b"mcp-session-id:"):
            return line.split(b":", 1)[1].strip().decode()
    raise SystemExit(f"no session: {answer[:200]!r}")


if __name__ == "__main__":
    main()
