"""``replay FILE --serve --listen 127.0.0.1:PORT``: a recording served over Streamable
HTTP by the proxy's front, used by the official SDK client in both its modes."""

from __future__ import annotations

import contextlib
import json
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import httpx
import pytest
from cli_runner import cli, inspector_argv
from mcp.client import Client
from mcp.client.streamable_http import streamable_http_client
from paths import PY, ROOT, SERVERS
from processes import line_with

SDK_SERVER = [PY, str(SERVERS / "sdk_stdio_server.py")]


def record_call(path: Path, *era: str) -> Path:
    """One ``--cli`` tools/call, recorded as a user makes it."""
    done = cli(
        "--cli",
        *era,
        "--record",
        str(path),
        "--method",
        "tools/call",
        "--tool-name",
        "add",
        "--tool-args-json",
        '{"a": 1, "b": 2}',
        "--",
        *SDK_SERVER,
    )
    assert done.returncode == 0, done.stderr
    return path


@pytest.fixture(scope="module")
def recording(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The era found by the probe: 2026-07-28 (the SDK server speaks it)."""
    return record_call(tmp_path_factory.mktemp("listen") / "call.jsonl")


@contextlib.contextmanager
def serving(*args: str) -> Iterator[tuple[subprocess.Popen[bytes], str]]:
    """``mcp-inspect replay ARGS --serve --listen 127.0.0.1:0``: (process, endpoint URL)."""
    argv = inspector_argv("replay", *args, "--serve", "--listen", "127.0.0.1:0")
    proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stderr=subprocess.PIPE, cwd=ROOT)
    assert proc.stderr is not None
    line, said = line_with(proc.stderr, b"listening on ", 30)
    url = line.decode().split("listening on ", 1)[1].strip() if line else ""
    try:
        assert url, said.decode(errors="replace")
        yield proc, url
    finally:
        proc.terminate()
        proc.wait(20)
        proc.stderr.close()


async def call_through(server: Any, mode: str) -> dict[str, Any]:
    with anyio.fail_after(60):
        async with Client(server, mode=mode) as client:
            result = await client.call_tool("add", {"a": 1, "b": 2})
            return {"version": client.protocol_version, "result": result.structured_content}


@pytest.mark.parametrize("mode", ["auto", "legacy"])
@pytest.mark.slow
async def test_the_sdk_client_over_http_against_the_recording(
    recording: Path, mode: str, tmp_path: Path
) -> None:
    http_side = tmp_path / "front.jsonl"
    with serving(str(recording), "--no-auth-front", "--record", str(http_side)) as (_proc, url):
        got = await call_through(url, mode)
    assert got["result"] == {"result": 3}
    assert (got["version"] == "2026-07-28") == (mode == "auto")
    recorded = [json.loads(line) for line in http_side.read_text().splitlines()[1:]]
    assert any(e["dir"] == "out" and e["raw"] == "POST /mcp" for e in recorded)
    assert any('"name":"add"' in e["raw"] for e in recorded if e["dir"] == "out")


@pytest.mark.slow
async def test_the_replay_front_keeps_the_proxys_rules(recording: Path) -> None:
    """The same front: the token (``proxies --token replay-STEM``), Host checks."""
    with serving(str(recording)) as (_proc, url):
        async with httpx.AsyncClient(timeout=30) as http:
            no_token = await http.post(url, json={"jsonrpc": "2.0", "id": 1, "method": "x"})
            port = httpx.URL(url).port
            rebound = await http.post(url, json={}, headers={"Host": f"evil.example:{port}"})
        shown = cli("proxies", "--token", f"replay-{recording.stem}")
        token = shown.stdout.strip()
        assert shown.returncode == 0 and token, shown.stderr
        headers = {"Authorization": f"Bearer {token}"}
        async with httpx.AsyncClient(headers=headers, timeout=30) as http:
            transport = streamable_http_client(url, http_client=http)
            got = await call_through(transport, "auto")
    assert no_token.status_code == 401
    assert rebound.status_code == 421
    assert got == {"version": "2026-07-28", "result": {"result": 3}}


def test_listen_needs_serve(recording: Path) -> None:
    done = cli("replay", str(recording), "--listen", "127.0.0.1:0")
    assert done.returncode == 2
    assert "--listen goes with --serve" in done.stderr
    off = cli("replay", str(recording), "--serve", "--listen", "0.0.0.0:8808")
    assert off.returncode == 2
    assert "loopback only" in off.stderr


@pytest.mark.slow
async def test_a_handshake_recording_over_http(tmp_path: Path) -> None:
    """(The SDK client's default mode on a handshake recording needs replay --serve to add
    what 2026-07-28 results carry: serve.py's answering, not the front's.)"""
    path = record_call(tmp_path / "old.jsonl", "--protocol-version", "2025-11-25")
    with serving(str(path), "--no-auth-front") as (_proc, url):
        got = await call_through(url, "legacy")
    assert got == {"version": "2025-11-25", "result": {"result": 3}}
