"""``mcp-inspect proxy -- CMD``: stdio in front, stdio behind, run as a host runs it."""

from __future__ import annotations

import json
import os
import signal
import subprocess
from pathlib import Path
from typing import Any

import pytest
from paths import DEMO, PY, ROOT, SERVERS
from processes import alive
from proxy_support import events, proxy_argv, raw_of, read_to_end, start_proxy, wait_until

from tests.servers.stdio_bytes import OUTPUT

HOST_INPUT = (
    b'{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18"}}\n'
    b"\n"
    b'   {"jsonrpc": "2.0", "id": "a b",  "method": "ping"}   \r\n'
    b"this is not JSON\n"
    b"\xc3\x28 invalid utf-8\n"
    b'{"jsonrpc":"2.0","method":"notifications/initialized"}\n'
    b"[1, 2"
)


def test_bytes_relayed_unchanged_both_ways_and_recorded(tmp_path: Path) -> None:
    received = tmp_path / "received.bin"
    record = tmp_path / "proxy.jsonl"
    proxy = start_proxy(
        "--record", str(record), "--", PY, str(SERVERS / "stdio_bytes.py"), str(received)
    )
    out, err = proxy.communicate(HOST_INPUT, timeout=60)
    assert proxy.returncode == 0, err
    assert out == OUTPUT  # what the host read is what the server wrote
    assert received.read_bytes() == HOST_INPUT  # what the server read is what the host wrote
    assert b"stdio_bytes: stdin closed, bye" in err  # the server's stderr reaches the host's

    recorded = events(record)
    sent = [e for e in recorded if e["dir"] == "out"]
    got = [e for e in recorded if e["dir"] == "in" and e["ch"] == "stdout"]
    assert all(e["meta"]["side"] == "host" for e in sent + got)
    assert (
        b"".join(
            raw_of(e) + (b"" if e.get("meta", {}).get("unterminated") else b"\n") for e in sent
        )
        == HOST_INPUT
    )
    assert (
        b"".join(raw_of(e) + (b"" if e.get("meta", {}).get("unterminated") else b"\n") for e in got)
        == OUTPUT
    )
    stderr = [e for e in recorded if e["ch"] == "stderr"]
    assert [raw_of(e) for e in stderr] == [b"stdio_bytes: stdin closed, bye"]
    assert stderr[0]["meta"]["side"] == "server"
    # malformed frames are events too, with the reason they did not parse
    assert any(e.get("findings") and raw_of(e) == b"this is not JSON" for e in sent)


def test_the_server_dying_ends_the_hosts_stream(tmp_path: Path) -> None:
    record = tmp_path / "proxy.jsonl"
    proxy = start_proxy(
        "--record", str(record), "--", PY, str(SERVERS / "stdio_misbehave.py"), "exit-now"
    )
    out = read_to_end(proxy.stdout)  # the host's stdin stays open: the server ended it
    assert out == b""
    assert proxy.wait(timeout=60) == 2  # the server's exit code
    assert proxy.stderr is not None
    assert b"fatal: missing API_KEY" in proxy.stderr.read()
    notes = [raw_of(e).decode() for e in events(record) if e["dir"] == "local"]
    assert any("the server's side ended" in n and "exit code 2" in n for n in notes)


def test_the_host_leaving_shuts_the_server_down(tmp_path: Path) -> None:
    record = tmp_path / "proxy.jsonl"
    # ignores stdin closing: the proxy has to escalate to SIGTERM, as the TUI does
    proxy = start_proxy(
        "--record",
        str(record),
        "--",
        PY,
        str(SERVERS / "stdio_misbehave.py"),
        "ignore-stdin-close",
    )
    wait_until(lambda: record.exists() and b"started pid" in record.read_bytes(), what="start")
    pid = next(e["meta"]["pid"] for e in events(record) if "pid" in e.get("meta", {}))
    assert proxy.stdin is not None
    proxy.stdin.close()  # the host went away
    assert proxy.wait(timeout=60) == 0
    wait_until(lambda: not alive(pid), what="the server to exit")
    notes = [raw_of(e).decode() for e in events(record) if e["dir"] == "local"]
    assert any("the host closed its side" in n for n in notes)
    assert any("the server stopped" in n for n in notes)


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGKILL])
def test_the_proxy_killed_leaves_no_server_behind(tmp_path: Path, sig: signal.Signals) -> None:
    record = tmp_path / "proxy.jsonl"
    proxy = start_proxy(
        "--record", str(record), "--", PY, str(SERVERS / "stdio_misbehave.py"), "hang"
    )
    assert proxy.stdin is not None
    proxy.stdin.write(
        b'{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18"}}\n'
    )
    proxy.stdin.flush()
    wait_until(
        lambda: record.exists() and b'"dir": "in", "ch": "stdout"' in record.read_bytes(),
        what="the answer",
    )
    pid = next(e["meta"]["pid"] for e in events(record) if "pid" in e.get("meta", {}))
    proxy.send_signal(sig)
    proxy.wait(timeout=60)
    wait_until(lambda: not alive(pid), what="the server to exit")
    recorded = events(record)  # readable, and nothing that passed is missing
    answer = [e for e in recorded if e["dir"] == "in" and e["ch"] == "stdout"]
    assert json.loads(raw_of(answer[0]))["id"] == 1
    if sig == signal.SIGTERM:
        notes = [raw_of(e).decode() for e in recorded if e["dir"] == "local"]
        assert any("SIGTERM received" in n for n in notes)
    for stream in (proxy.stdin, proxy.stdout, proxy.stderr):
        if stream is not None:
            stream.close()


HOST_SCRIPT = """
import subprocess, sys, time
proxy = subprocess.Popen(sys.argv[1:], stdin=subprocess.PIPE, stdout=subprocess.PIPE)
proxy.stdin.write(b'{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}\\n')
proxy.stdin.flush()
print(proxy.pid, flush=True)
time.sleep(600)
"""


def test_a_killed_host_leaves_nothing_running(tmp_path: Path) -> None:
    record = tmp_path / "proxy.jsonl"
    argv = proxy_argv("--no-attach", "--record", str(record), "--", *DEMO)
    host = subprocess.Popen([PY, "-c", HOST_SCRIPT, *argv], stdout=subprocess.PIPE, cwd=str(ROOT))
    assert host.stdout is not None
    proxy_pid = int(host.stdout.readline())
    wait_until(
        lambda: record.exists() and b'"ch": "stdout"' in record.read_bytes(), what="the answer"
    )
    server_pid = next(e["meta"]["pid"] for e in events(record) if "pid" in e.get("meta", {}))
    host.kill()  # its pipes close: the proxy sees the end of its stdin
    host.wait(10)
    host.stdout.close()
    wait_until(lambda: not alive(proxy_pid), what="the proxy to exit")
    wait_until(lambda: not alive(server_pid), what="the server to exit")
    notes = [raw_of(e).decode() for e in events(record) if e["dir"] == "local"]
    assert any("the host closed its side" in n for n in notes)
    assert any("the server stopped" in n for n in notes)


def test_a_killed_server_ends_the_hosts_stream(tmp_path: Path) -> None:
    record = tmp_path / "proxy.jsonl"
    proxy = start_proxy("--no-attach", "--record", str(record), "--", *DEMO)
    assert proxy.stdin is not None
    proxy.stdin.write(b'{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}\n')
    proxy.stdin.flush()
    wait_until(
        lambda: record.exists() and b'"ch": "stdout"' in record.read_bytes(), what="the answer"
    )
    server_pid = next(e["meta"]["pid"] for e in events(record) if "pid" in e.get("meta", {}))
    os.kill(server_pid, signal.SIGKILL)
    out = read_to_end(proxy.stdout)
    assert json.loads(out.splitlines()[0])["id"] == 1  # what came before the end arrived
    assert proxy.wait(timeout=30) == 128 + signal.SIGKILL  # as a shell reports a kill
    notes = [raw_of(e).decode() for e in events(record) if e["dir"] == "local"]
    assert any("the server's side ended" in n for n in notes)
    for stream in (proxy.stdin, proxy.stderr):
        if stream is not None:
            stream.close()


def test_whatever_the_host_got_is_recorded_when_the_proxy_is_killed(tmp_path: Path) -> None:
    """Write-ahead with batched writes: a burst of answers reaches the host in one write,
    and the recording has every one of them even when the proxy dies right after."""
    record = tmp_path / "proxy.jsonl"
    proxy = start_proxy("--no-attach", "--record", str(record), "--", *DEMO)
    assert proxy.stdin is not None and proxy.stdout is not None
    burst = [b'{"jsonrpc":"2.0","id":0,"method":"initialize","params":{}}\n']
    for n in range(1, 41):
        call = {"name": "add", "arguments": {"a": n, "b": 1}}
        burst.append(
            json.dumps({"jsonrpc": "2.0", "id": n, "method": "tools/call", "params": call}).encode()
            + b"\n"
        )
    proxy.stdin.write(b"".join(burst))  # one write: the proxy reads it in one go
    proxy.stdin.flush()
    got = [json.loads(line) for line in read_lines(proxy.stdout, 41)]
    proxy.send_signal(signal.SIGKILL)  # no shutdown: nothing more can be written
    proxy.wait(timeout=30)
    assert sorted(m["id"] for m in got) == list(range(41))
    recorded = {
        json.loads(raw_of(e))["id"]
        for e in events(record)
        if e["dir"] == "in" and e["ch"] == "stdout"
    }
    assert recorded >= set(range(41))
    sent = [e for e in events(record) if e["dir"] == "out" and e["ch"] == "stdin"]
    assert len(sent) == 41
    server_pid = next(e["meta"]["pid"] for e in events(record) if "pid" in e.get("meta", {}))
    wait_until(lambda: not alive(server_pid), what="the server to exit (its lifeline)")
    for stream in (proxy.stdin, proxy.stdout, proxy.stderr):
        if stream is not None:
            stream.close()


def read_lines(stream: Any, count: int, timeout: float = 30.0) -> list[bytes]:
    """``count`` lines of a pipe, bounded in time (a thread reads; the pipe stays open)."""
    import threading

    lines: list[bytes] = []
    reader = threading.Thread(
        target=lambda: lines.extend(stream.readline() for _ in range(count)), daemon=True
    )
    reader.start()
    reader.join(timeout)
    if reader.is_alive():
        raise AssertionError(f"{len(lines)} of {count} lines within {timeout} s")
    return lines
