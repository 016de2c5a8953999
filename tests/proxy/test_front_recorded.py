"""What the recording holds of one call through the HTTP front to an HTTP server, with
and without a secret in its headers: pinned line by line (times, ports and session ids
aside), so a faster path through the recorder and the redactor keeps it as it is."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import anyio
import httpx
import pytest
from proxy_support import INIT

from inspector.proxy.host_http import HttpFront
from inspector.proxy.wire import ProxyWire
from inspector.record.format import SessionHeader
from inspector.record.recorder import Recorder
from inspector.record.redact import Redactor
from inspector.transports.http import StreamableHttpTransport

SECRET = "s3cret-pin-value-0123"
CALL = {
    "jsonrpc": "2.0",
    "id": 7,
    "method": "tools/call",
    "params": {"name": "add", "arguments": {"a": 2, "b": 40}},
}
ANSWER = (
    '{"jsonrpc":"2.0","id":7,"result":{"content":[{"text":"42","type":"text"}],'
    '"isError":false,"structuredContent":{"result":42}}}'
)


def expected(secret: bool) -> list[dict[str, Any]]:
    """The call's five lines: the host's POST, the server's POST line and body, the
    answer's status and body."""
    agent = "pin/1 «redacted»" if secret else "pin/1"
    back_headers = {
        "Accept": "application/json, text/event-stream",
        "Content-Type": "application/json",
        **({"Authorization": "«redacted»", "X-Trace": "t «redacted»"} if secret else {}),
        "MCP-Session-Id": "SID",
        "MCP-Protocol-Version": "2025-11-25",
    }
    return [
        {
            "dir": "out",
            "ch": "http",
            "raw": "POST /mcp",
            "meta": {
                "method": "POST",
                "url": "/mcp",
                "headers": {
                    "accept": "application/json, text/event-stream",
                    "content-type": "application/json",
                    "mcp-protocol-version": "2025-11-25",
                    "user-agent": agent,
                },
                "front": True,
                "side": "host",
                "link": 1,
            },
        },
        {
            "dir": "out",
            "ch": "http",
            "raw": "POST BASE/mcp",
            "meta": {
                "method": "POST",
                "url": "BASE/mcp",
                "headers": back_headers,
                "request_id": 7,
                "link": 1,
                "side": "host",
            },
        },
        {
            "dir": "out",
            "ch": "body",
            "raw": json.dumps(CALL, separators=(",", ":")),
            "meta": {"url": "BASE/mcp", "link": 1, "side": "host"},
        },
        {
            "dir": "in",
            "ch": "http",
            "raw": "HTTP 200 OK application/json",
            "meta": {
                "status": 200,
                "reason": "OK",
                "headers": {
                    "content-type": "application/json",
                    "content-length": str(len(ANSWER)),
                    "mcp-session-id": "SID",
                },
                "url": "BASE/mcp",
                "request_id": 7,
                "link": 1,
                "side": "host",
            },
        },
        {
            "dir": "in",
            "ch": "body",
            "raw": ANSWER,
            "meta": {
                "status": 200,
                "content_type": "application/json",
                "request_id": 7,
                "link": 1,
                "side": "host",
            },
        },
    ]


@pytest.mark.parametrize("secret", [False, True], ids=["plain", "secret"])
async def test_a_call_is_recorded_as_pinned(
    tmp_path: Path, secret: bool, sdk_json_base: str
) -> None:
    path = tmp_path / "p.jsonl"
    recorder = Recorder(path, SessionHeader(target={}), Redactor([SECRET] if secret else []))
    back_headers = {"Authorization": f"Bearer {SECRET}", "X-Trace": f"t {SECRET}"}
    agent = f"pin/1 {SECRET}" if secret else "pin/1"
    base = sdk_json_base  # the worker's shared server (conftest)
    wire = ProxyWire(recorder)
    front = HttpFront(
        wire,
        ("127.0.0.1", 0),
        lambda: StreamableHttpTransport(f"{base}/mcp", back_headers if secret else None),
    )
    await front.listen()
    async with anyio.create_task_group() as tg:
        tg.start_soon(front.serve)
        await front.ready.wait()
        headers = {"Accept": "application/json, text/event-stream", "User-Agent": agent}
        async with httpx.AsyncClient(timeout=30) as client:
            first = await client.post(front.url, json=INIT, headers=headers)
            headers["Mcp-Session-Id"] = first.headers["mcp-session-id"]
            headers["MCP-Protocol-Version"] = "2025-11-25"
            done = {"jsonrpc": "2.0", "method": "notifications/initialized"}
            await client.post(front.url, json=done, headers=headers)
            await anyio.sleep(0.3)  # the standing GET the transport opens, settled
            before = len(path.read_text().splitlines())
            answer = await client.post(front.url, json=CALL, headers=headers)
            assert answer.status_code == 200 and b'"result":42' in answer.content
            await anyio.sleep(0.1)
        lines = path.read_text().splitlines()[before:]
        await front.stop()
        tg.cancel_scope.cancel()
    recorder.close()
    text = "\n".join(lines)
    assert SECRET not in text
    sids = {
        json.loads(line).get("meta", {}).get("headers", {}).get(k)
        for line in lines
        for k in ("mcp-session-id", "MCP-Session-Id")
    } - {None}
    for sid in sids:
        text = text.replace(str(sid), "SID")
    got = [json.loads(line) for line in text.replace(base, "BASE").splitlines()]
    for event in got:
        assert (event.pop("seq"), event.pop("t"), event.pop("mono")) != (None, None, None)
    assert got == expected(secret)
    # and each line as the encoder writes it: the key order too
    assert [list(e) for e in got] == [["dir", "ch", "raw", "meta"]] * 5
    assert [list(e["meta"]) for e in got] == [list(e["meta"]) for e in expected(secret)]
