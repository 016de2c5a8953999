"""The HTTP front in front of an HTTP server records a call's five events with two
flushes (three at most), and stays write-ahead: each frame is on file before its bytes
leave (the server's request, the host's answer)."""

from __future__ import annotations

import json
from pathlib import Path

import anyio
import httpx
import pytest
from proxy_support import INIT

from inspector.proxy.host_http import HttpFront
from inspector.proxy.wire import ProxyWire
from inspector.record.format import SessionHeader
from inspector.record.recorder import Recorder
from inspector.transports.aioconn import StreamProtocol
from inspector.transports.http import StreamableHttpTransport

CALL = {
    "jsonrpc": "2.0",
    "id": 7,
    "method": "tools/call",
    "params": {"name": "add", "arguments": {"a": 2, "b": 40}},
}


async def test_a_call_is_two_flushes_and_each_frame_is_on_file_before_it_leaves(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, sdk_json_base: str
) -> None:
    path = tmp_path / "p.jsonl"
    recorder = Recorder(path, SessionHeader(target={}))
    flushes = 0
    real_flush = recorder.flush

    def counted() -> None:
        nonlocal flushes
        flushes += 1
        real_flush()

    recorder.flush = counted  # type: ignore[method-assign]
    writes: list[tuple[bytes, str]] = []  # every socket write, with what the file held then
    real_write_now, real_write = StreamProtocol.write_now, StreamProtocol.write

    def write_now(self: StreamProtocol, data: bytes) -> None:
        writes.append((data, path.read_text()))
        real_write_now(self, data)

    async def write(self: StreamProtocol, data: bytes, timeout: float | None) -> None:
        writes.append((data, path.read_text()))
        await real_write(self, data, timeout)

    monkeypatch.setattr(StreamProtocol, "write_now", write_now)
    monkeypatch.setattr(StreamProtocol, "write", write)
    base = sdk_json_base  # the worker's shared server (conftest)
    wire = ProxyWire(recorder)
    front = HttpFront(wire, ("127.0.0.1", 0), lambda: StreamableHttpTransport(f"{base}/mcp"))
    await front.listen()
    async with anyio.create_task_group() as tg:
        tg.start_soon(front.serve)
        await front.ready.wait()
        headers = {"Accept": "application/json, text/event-stream"}
        async with httpx.AsyncClient(timeout=30) as client:
            first = await client.post(front.url, json=INIT, headers=headers)
            headers["Mcp-Session-Id"] = first.headers["mcp-session-id"]
            headers["MCP-Protocol-Version"] = "2025-11-25"
            done = {"jsonrpc": "2.0", "method": "notifications/initialized"}
            await client.post(front.url, json=done, headers=headers)
            await anyio.sleep(0.3)  # the standing GET the transport opens, settled
            flushes, writes[:] = 0, []
            answer = await client.post(front.url, json=CALL, headers=headers)
            assert answer.status_code == 200
            await anyio.sleep(0.1)  # a deferred flush at the end of the turn, if any
        counted_flushes = flushes
        await front.stop()
        tg.cancel_scope.cancel()
    recorder.close()
    # the host's POST, the server's POST line and body, the answer's status and body:
    # a flush before the request leaves and one before the answer does (and one for the
    # status alone when the answer's body comes in a later read), not one each
    assert 2 <= counted_flushes <= 3
    request = next(on_file for data, on_file in writes if data.startswith(b"POST "))
    assert _tail(request, 3) == [
        ("out", "http", "POST /mcp"),  # the host's
        ("out", "http", f"POST {base}/mcp"),  # the server's
        ("out", "body", json.dumps(CALL, separators=(",", ":"))),
    ]
    answer = next(on_file for data, on_file in writes if data.startswith(b"HTTP/1.1 200"))
    assert _tail(answer, 2)[0] == ("in", "http", "HTTP 200 OK application/json")
    assert json.loads(_tail(answer, 1)[0][2])["result"]["structuredContent"] == {"result": 42}


def _tail(on_file: str, count: int) -> list[tuple[str, str, str]]:
    """The last ``count`` events on file: direction, channel, bytes."""
    lines = [json.loads(line) for line in on_file.splitlines()[-count:]]
    return [(line["dir"], line["ch"], line["raw"]) for line in lines]
