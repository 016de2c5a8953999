"""The attach socket's line protocol: one JSON object a line, ``op`` says what it is.

Inspector -> proxy:
    {"op": "hello", "protocol": 1, "tool": "mcp-inspect X", "probe": false}
    {"op": "send", "raw": "<a JSON-RPC frame>"}             (or "raw_b64")

Proxy -> inspector:
    {"op": "welcome", "protocol": 1, "name", "pid", "uid", "target", "front", "started",
     "record", "attach": N, "out_channel": "stdin" | "body"}
    {"op": "event", "route": true|false, "event": {<a session-file event line>}}
    {"op": "refused", "message": "..."}                       (then the proxy hangs up)
    {"op": "bye", "message": "..."}                           (the proxy is ending)

An event with ``route`` true is the inspector's own: an answer to its request (its id
restored), a request of the server that it caused, a server notification everyone gets.
Every other event is shown, not acted on.
"""

from __future__ import annotations

import base64
import json
from collections.abc import AsyncIterator
from typing import Any

import anyio
from anyio.abc import ByteReceiveStream

from inspector.errors import InspectorError

PROTOCOL = 1
READ_CHUNK = 1 << 16
MAX_LINE = 1 << 30  # a frame of the server can be big; a line longer than this is an attack


class ChannelError(InspectorError):
    """The other end broke the protocol."""


def op_line(op: str, **fields: Any) -> bytes:
    return (json.dumps({"op": op, **fields}, ensure_ascii=False) + "\n").encode("utf-8")


def event_line(event_json: str, route: bool) -> bytes:
    """An event line from an event already encoded as JSON text (shared by every reader)."""
    head = (
        '{"op": "event", "route": true, "event": '
        if route
        else ('{"op": "event", "route": false, "event": ')
    )
    return (head + event_json + "}\n").encode("utf-8")


def raw_fields(raw: bytes) -> dict[str, str]:
    try:
        return {"raw": raw.decode("utf-8")}
    except UnicodeDecodeError:
        return {"raw_b64": base64.b64encode(raw).decode("ascii")}


def raw_from(data: dict[str, Any]) -> bytes:
    if isinstance(data.get("raw_b64"), str):
        return base64.b64decode(data["raw_b64"])
    return str(data.get("raw", "")).encode("utf-8")


async def read_lines(stream: ByteReceiveStream) -> AsyncIterator[dict[str, Any]]:
    """The JSON objects of a stream, one a line, until it ends."""
    buffer = bytearray()
    searched = 0  # no newline before this offset
    while True:
        try:
            chunk = await stream.receive(READ_CHUNK)
        except (anyio.EndOfStream, anyio.BrokenResourceError, anyio.ClosedResourceError):
            return
        buffer += chunk
        start = 0
        while (end := buffer.find(b"\n", max(start, searched))) >= 0:
            yield _parse(bytes(buffer[start:end]))
            start = end + 1
        del buffer[:start]
        searched = len(buffer)
        if searched > MAX_LINE:
            raise ChannelError(f"a line of more than {MAX_LINE} bytes")


def _parse(line: bytes) -> dict[str, Any]:
    try:
        data = json.loads(line)
    except (ValueError, UnicodeDecodeError) as exc:
        raise ChannelError(f"not a JSON line: {exc}") from exc
    if not isinstance(data, dict) or not isinstance(data.get("op"), str):
        raise ChannelError("a line without an op")
    return data
