"""A HAR of a Streamable HTTP session (saved from browser devtools, e.g. the official web
Inspector's) as session events, so ``replay`` opens it offline like a recording.

Each entry that talks MCP (a JSON-RPC body posted, or an event stream answered) becomes
the frames the HTTP transport would have recorded: request line, posted body, status
line, then the JSON body or one event per server-sent event (parsed with the transport's
own SSE parser). Entries that are not MCP (a page, a script, an OAuth redirect) are left
out and counted. Times come from the entries; the frames are in the order they happened.
Credentials in the HAR (an ``Authorization`` header, a cookie) are masked by the
recorder as in any session file.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from inspector.errors import InspectorError
from inspector.record.format import SessionHeader
from inspector.record.recorder import Recorder
from inspector.transports.sse_parser import SseParser
from inspector.wire.events import Channel, Direction, WireEvent
from inspector.wire.jsonrpc import make_event

MAX_HAR_BYTES = 512 * 1024 * 1024


class HarError(InspectorError):
    """A file that is not a HAR this can read; the message says what is wrong."""


@dataclass(slots=True)
class HarImport:
    """What an import made: the events, the endpoint, what was left out."""

    events: list[WireEvent] = field(default_factory=list)
    url: str = ""
    skipped: int = 0


def looks_like_har(path: Path) -> bool:
    """A ``.har`` file, or JSON whose first key is ``log``."""
    if path.suffix.lower() == ".har":
        return True
    try:
        with open(path, "rb") as fh:
            head = fh.read(64).lstrip()
    except OSError:
        return False
    return head.startswith(b"{") and b'"log"' in head


def _time(entry: dict[str, Any]) -> float:
    text = str(entry.get("startedDateTime", ""))
    try:
        return datetime.fromisoformat(text.replace("Z", "+00:00")).timestamp()
    except ValueError:
        return 0.0


def _headers(items: Any) -> dict[str, str]:
    if not isinstance(items, list):
        return {}
    return {
        str(h.get("name")): str(h.get("value", ""))
        for h in items
        if isinstance(h, dict) and h.get("name") and not str(h.get("name")).startswith(":")
    }


def _is_mcp(entry: dict[str, Any]) -> bool:
    request = entry.get("request") or {}
    post = request.get("postData") or {}
    text = post.get("text") if isinstance(post, dict) else None
    if isinstance(text, str) and '"jsonrpc"' in text:
        return True
    content = (entry.get("response") or {}).get("content") or {}
    return str(content.get("mimeType", "")).startswith("text/event-stream")


def read_har(path: Path) -> HarImport:
    """The session events of a HAR file."""
    try:
        size = path.stat().st_size
        if size > MAX_HAR_BYTES:
            raise HarError(f"{path}: {size:,} bytes, more than a HAR import reads (512 MiB)")
        data = json.loads(path.read_bytes())
    except OSError as exc:
        raise HarError(f"{path}: cannot be read: {exc.strerror or exc}") from exc
    except (ValueError, UnicodeDecodeError) as exc:
        raise HarError(f"{path}: not JSON ({exc}); is this a HAR file?") from exc
    log = data.get("log") if isinstance(data, dict) else None
    entries = log.get("entries") if isinstance(log, dict) else None
    if not isinstance(entries, list):
        raise HarError(f"{path}: no log.entries; this is not a HAR file")
    out = HarImport()
    timed: list[tuple[float, int, WireEvent]] = []
    for number, entry in enumerate(entries):
        if not isinstance(entry, dict) or not _is_mcp(entry):
            out.skipped += 1
            continue
        for order, event in enumerate(_entry_events(entry, number)):
            timed.append((event.time, number * 10_000 + order, event))
        out.url = out.url or str((entry.get("request") or {}).get("url", ""))
    timed.sort(key=lambda item: (item[0], item[1]))
    for seq, (_, _, event) in enumerate(timed, start=1):
        event.seq = seq
        out.events.append(event)
    if not out.events:
        raise HarError(
            f"{path}: none of its {len(entries)} entries is an MCP exchange "
            "(a JSON-RPC body posted, or an event stream answered)"
        )
    return out


def _entry_events(entry: dict[str, Any], number: int) -> list[WireEvent]:
    request = entry.get("request") or {}
    response = entry.get("response") or {}
    start = _time(entry)
    timings = entry.get("timings") or {}
    wait = max(0.0, float(timings.get("send") or 0) + float(timings.get("wait") or 0)) / 1000
    total = max(wait, float(entry.get("time") or 0) / 1000)
    method = str(request.get("method", "POST"))
    url = str(request.get("url", ""))
    post = request.get("postData") or {}
    body_text = post.get("text") if isinstance(post, dict) else None
    rid: Any = None
    events: list[WireEvent] = []
    if isinstance(body_text, str):
        body = make_event(Direction.OUT, Channel.BODY, body_text.encode(), {"url": url})
        if isinstance(body.message, dict) and "method" in body.message:
            rid = body.message.get("id")
    meta: dict[str, Any] = {
        "method": method,
        "url": url,
        "headers": _headers(request.get("headers")),
    }
    if rid is not None:
        meta["request_id"] = rid
    events.append(WireEvent(Direction.OUT, Channel.HTTP, f"{method} {url}".encode(), meta=meta))
    if isinstance(body_text, str):
        events.append(body)
    status = response.get("status")
    if isinstance(status, int) and status > 0:
        headers = {k.lower(): v for k, v in _headers(response.get("headers")).items()}
        content = response.get("content") or {}
        ctype = str(headers.get("content-type") or content.get("mimeType", ""))
        reason = str(response.get("statusText", ""))
        status_meta: dict[str, Any] = {
            "status": status,
            "reason": reason,
            "headers": headers,
            "url": url,
        }
        if rid is not None:
            status_meta["request_id"] = rid
        line = f"HTTP {status} {reason} {ctype}".replace("  ", " ").strip()
        events.append(WireEvent(Direction.IN, Channel.HTTP, line.encode(), meta=status_meta))
        text = content.get("text")
        if isinstance(text, str) and text:
            if content.get("encoding") == "base64":
                text = _b64(text)
            stream = f"post:{rid}" if rid is not None else "get"
            if ctype.startswith("text/event-stream"):
                events.extend(_sse_events(text, stream))
            else:
                meta_in: dict[str, Any] = {"status": status, "content_type": ctype}
                if rid is not None:
                    meta_in["request_id"] = rid
                events.append(make_event(Direction.IN, Channel.BODY, text.encode(), meta_in))
    # spread the frames over the entry's timings: the request at its start, the status
    # after the wait, the body's frames until its end
    for index, event in enumerate(events):
        if event.direction is Direction.OUT:
            event.time = start
        elif index == len(events) - 1 or event.channel is Channel.HTTP:
            event.time = start + (total if event.channel is not Channel.HTTP else wait)
        else:
            event.time = start + wait
        event.mono = event.time
    return events


def _b64(text: str) -> str:
    import base64

    try:
        return base64.b64decode(text).decode("utf-8", "replace")
    except ValueError:
        return text


def _sse_events(text: str, stream: str) -> list[WireEvent]:
    parser = SseParser()
    blocks = parser.feed(text.encode())
    last = parser.close()
    if last is not None:
        blocks.append(last)
    events = []
    for block in blocks:
        if not block.has_data or not block.data:
            kind = (
                "priming" if block.is_priming else "comment" if block.is_comment_only else "empty"
            )
            events.append(
                WireEvent(
                    Direction.IN, Channel.HTTP, block.raw, meta={"sse": kind, "stream": stream}
                )
            )
            continue
        meta = {"stream": stream, "event_id": block.id, "event_type": block.event_type}
        events.append(make_event(Direction.IN, Channel.SSE, block.data, meta))
    return events


def write_session(imported: HarImport, path: Path, source: Path) -> Path:
    """The import as a session file at ``path`` (0600, secrets masked)."""
    header = SessionHeader(
        target={
            "transport": "http",
            "describe": f"{imported.url} (imported from {source.name})",
            "url": imported.url,
            "headers": {},
        },
        extra={"imported_from": str(source)},
    )
    recorder = Recorder(path, header)
    try:
        for event in imported.events:
            recorder.write(event, flush=False)
        recorder.flush()
    finally:
        recorder.close()
    if recorder.error:
        raise HarError(recorder.error)
    return path
