"""HAR 1.2 of a session's HTTP exchanges (the MCP transport's and OAuth's).

Each exchange is one entry: the request line, its headers as recorded, the posted body;
the status, the response headers the transport kept (content-type, mcp-session-id,
www-authenticate...), and the body: a JSON body as it came, an SSE stream as
``text/event-stream`` text rebuilt from its events (ids and types kept). Timings come from
the recording: ``wait`` until the status line, ``receive`` until the last frame. Written
as a stream, one entry at a time. Secrets are as masked as in the session file (recordings
are redacted when written). Fields the recording does not know are ``-1`` or empty, as
HAR allows; ``_mcpInspect`` carries what HAR has no field for (frame numbers).
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from datetime import UTC, datetime
from typing import IO, Any
from urllib.parse import parse_qsl, urlsplit

from inspector import __version__
from inspector.export.http_exchanges import HttpExchange, SseBlock


def iso_time(epoch: float) -> str:
    return (
        datetime.fromtimestamp(epoch, UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")
    )


def header_list(headers: dict[str, str]) -> list[dict[str, str]]:
    return [{"name": k, "value": v} for k, v in headers.items()]


def sse_text(blocks: list[SseBlock]) -> str:
    """The event stream as a server sends it."""
    parts = []
    for block in blocks:
        if block.event_type == "(no data)":  # priming, comment, keep-alive: kept as it came
            parts.append(block.data.rstrip("\n") + "\n\n")
            continue
        lines = []
        if block.event_id is not None:
            lines.append(f"id: {block.event_id}")
        if block.event_type and block.event_type != "message":
            lines.append(f"event: {block.event_type}")
        lines.extend(f"data: {line}" for line in block.data.split("\n"))
        parts.append("\n".join(lines) + "\n\n")
    return "".join(parts)


def har_entry(exchange: HttpExchange) -> dict[str, Any]:
    start = exchange.request.time
    req_headers = exchange.request_headers
    request: dict[str, Any] = {
        "method": exchange.method,
        "url": exchange.url,
        "httpVersion": "HTTP/1.1",
        "cookies": [],
        "headers": header_list(req_headers),
        "queryString": [
            {"name": k, "value": v} for k, v in parse_qsl(urlsplit(exchange.url).query)
        ],
        "headersSize": -1,
        "bodySize": len(exchange.body.raw) if exchange.body is not None else 0,
    }
    if exchange.body is not None:
        mime = next(
            (v for k, v in req_headers.items() if k.lower() == "content-type"), "application/json"
        )
        request["postData"] = {"mimeType": mime, "text": exchange.body.text()}
    status = exchange.status
    if exchange.is_stream:
        text = sse_text(exchange.sse)
    elif exchange.response_body is not None:
        text = exchange.response_body.text()
    else:
        text = ""
    mime = exchange.content_type or ("application/json" if text else "")
    response: dict[str, Any] = {
        "status": status if status is not None else 0,
        "statusText": exchange.reason,
        "httpVersion": "HTTP/1.1" if status is not None else "",
        "cookies": [],
        "headers": header_list(exchange.response_headers),
        "content": {"size": len(text.encode("utf-8")), "mimeType": mime, "text": text},
        "redirectURL": exchange.response_headers.get("location", ""),
        "headersSize": -1,
        "bodySize": -1 if status is None else len(text.encode("utf-8")),
    }
    answered = exchange.response.time if exchange.response is not None else exchange.last_time
    wait = max(0.0, answered - start) * 1000
    receive = max(0.0, exchange.last_time - answered) * 1000
    entry: dict[str, Any] = {
        "startedDateTime": iso_time(start),
        "time": round(wait + receive, 3),
        "request": request,
        "response": response,
        "cache": {},
        "timings": {"send": 0, "wait": round(wait, 3), "receive": round(receive, 3)},
        "_mcpInspect": {"seq": exchange.request.seq, "oauth": exchange.auth},
    }
    if status is None:
        entry["_mcpInspect"]["error"] = "no response in the recording"
    return entry


def write_har(exchanges: Iterable[HttpExchange], out: IO[str], comment: str = "") -> int:
    """Write a HAR 1.2 document of ``exchanges`` to ``out``, one entry at a time."""
    creator = {"name": "mcp-inspect", "version": __version__}
    head = {"version": "1.2", "creator": creator, "pages": []}
    if comment:
        head["comment"] = comment
    opening = json.dumps({"log": head}, ensure_ascii=False)
    out.write(opening[:-2] + ', "entries": [')  # '{"log": {...' left open for the entries
    count = 0
    for exchange in exchanges:
        out.write(
            ("\n" if count == 0 else ",\n") + json.dumps(har_entry(exchange), ensure_ascii=False)
        )
        count += 1
    out.write("\n]}}\n")
    return count
