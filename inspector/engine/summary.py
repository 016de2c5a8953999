"""One-line summaries of wire events for the message log (headless).

``summarize(event)`` does bounded work whatever the payload size: it looks at a
few keys and the first items only, cuts every string, and never serialises a
whole payload. The text may contain anything a server sent: the UI must still
make it safe (``inspector.safe_text``) before showing it.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from inspector.engine.era import ENVELOPE_KEYS
from inspector.engine.kinds import CATALOG_KINDS
from inspector.wire.events import Channel, Direction, Kind, WireEvent, party

TEXT_LIMIT = 160  # characters of summary text
VALUE_LIMIT = 40  # characters of one scalar value
MAX_KEYS = 6  # keys shown of one object
# the lists a result may carry: the catalog kinds, and the client's roots
LIST_KEYS = (*(kind.key for kind in CATALOG_KINDS), "roots")


@dataclass(frozen=True, slots=True)
class RowSummary:
    kind: Kind
    method: str  # "" when none
    id: str  # the JSON-RPC id as shown ("" when none)
    text: str


def _cut(text: str, limit: int) -> str:
    text = " ".join(text[: limit * 2].split())  # one line; whitespace runs collapse
    return text if len(text) <= limit else text[: limit - 1] + "…"


def show_id(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, str):
        return _cut(repr(value) if value.isdigit() else value, 24)
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return str(value)
    # an invalid id (true, [1], {"a": 1}) as the server wrote it: JSON, not Python's repr
    return _cut(json.dumps(value, ensure_ascii=False, separators=(",", ":")), 24)


def brief(value: Any, limit: int = VALUE_LIMIT) -> str:
    """A short form of any JSON value: scalars cut, containers as sizes."""
    if isinstance(value, str):
        return _cut(value or repr(value), limit)
    if isinstance(value, bool) or value is None:
        return "true" if value is True else "false" if value is False else "null"
    if isinstance(value, (int, float)):
        return _cut(str(value), limit)
    if isinstance(value, dict):
        return "{}" if not value else f"{{{len(value)}}}"
    if isinstance(value, list):
        return f"[{len(value)}]"
    return _cut(type(value).__name__, limit)


def compact(obj: Any, limit: int = TEXT_LIMIT) -> str:
    """``key=value`` pairs of an object's first keys (bounded)."""
    if not isinstance(obj, dict):
        return brief(obj) if obj is not None else ""
    parts: list[str] = []
    for n, (key, value) in enumerate(obj.items()):
        if n >= MAX_KEYS:
            parts.append(f"+{len(obj) - MAX_KEYS}")
            break
        if (
            isinstance(value, dict)
            and value
            and key in ("arguments", "params", "_meta")
            and limit >= 20
        ):  # the halving limit also bounds the nesting depth
            parts.append(f"{key}={{{compact(value, limit // 2)}}}")
        else:
            parts.append(f"{key}={brief(value)}")
    return _cut(" ".join(parts), limit)


def _without_envelope(params: dict[str, Any]) -> dict[str, Any]:
    """``params`` without the stateless era's per-request envelope in ``_meta``: it is the
    same on every request, so a row would show it instead of what tells rows apart (the
    detail still shows it). Other ``_meta`` keys (progressToken ...) stay."""
    meta = params.get("_meta")
    if not isinstance(meta, dict) or not any(key in meta for key in ENVELOPE_KEYS):
        return params
    rest = {key: value for key, value in meta.items() if key not in ENVELOPE_KEYS}
    shown = {key: value for key, value in params.items() if key != "_meta"}
    if rest:
        shown["_meta"] = rest
    return shown


def _request_text(method: str, params: Any) -> str:
    if not isinstance(params, dict):
        return "" if params is None else brief(params)
    params = _without_envelope(params)
    if method == "tools/call":
        args = params.get("arguments")
        name = brief(params.get("name"))
        return _cut(f"{name} {compact(args)}" if args else name, TEXT_LIMIT)
    if method in ("resources/read", "resources/subscribe", "resources/unsubscribe"):
        return brief(params.get("uri"), TEXT_LIMIT)
    if method == "prompts/get":
        return _cut(f"{brief(params.get('name'))} {compact(params.get('arguments'))}", TEXT_LIMIT)
    if method == "notifications/progress":
        total = params.get("total")
        done = f"{brief(params.get('progress'))}" + (
            f"/{brief(total)}" if total is not None else ""
        )
        msg = params.get("message")
        return _cut(f"{done} {brief(msg, TEXT_LIMIT)}" if msg else done, TEXT_LIMIT)
    if method == "notifications/message":
        level = brief(params.get("level"))
        data = params.get("data")
        shown = brief(data, TEXT_LIMIT) if isinstance(data, str) else compact(data)
        return _cut(f"{level} {shown}", TEXT_LIMIT)
    return compact(params)


def _content_excerpt(content: Any) -> str | None:
    if not isinstance(content, list) or not content:
        return None
    first = content[0]
    more = f" (+{len(content) - 1})" if len(content) > 1 else ""
    if isinstance(first, dict) and "role" in first and "content" in first:
        # a prompt message (prompts/get, sampling): "role: its content's excerpt"
        inner = first["content"]
        excerpt = _content_excerpt(inner if isinstance(inner, list) else [inner])
        return _cut(f"{brief(first['role'], 12)}: {excerpt or ''}", TEXT_LIMIT) + more
    if isinstance(first, dict):
        if isinstance(first.get("text"), str):
            return _cut(first["text"], TEXT_LIMIT) + more
        kind = brief(first.get("type"))
        extra = first.get("mimeType") or first.get("uri") or ""
        return _cut(f"<{kind}> {brief(extra)}".rstrip(), TEXT_LIMIT) + more
    return brief(first) + more


def _result_text(result: Any) -> str:
    if not isinstance(result, dict):
        return brief(result)
    prefix = "isError " if result.get("isError") is True else ""
    for key in ("content", "contents", "messages"):
        excerpt = _content_excerpt(result.get(key))
        if excerpt is not None:
            return _cut(prefix + excerpt, TEXT_LIMIT)
    for key in LIST_KEYS:
        items = result.get(key)
        if isinstance(items, list):
            names = [
                brief(it.get("name") or it.get("uri"), 24)
                for it in items[:4]
                if isinstance(it, dict)
            ]
            more = ", …" if len(items) > 4 else ""
            cursor = " nextCursor" if result.get("nextCursor") else ""
            return _cut(f"{key}[{len(items)}] {', '.join(names)}{more}{cursor}", TEXT_LIMIT)
    if "serverInfo" in result or "protocolVersion" in result:
        info = result.get("serverInfo")
        name = brief(info.get("name")) if isinstance(info, dict) else "?"
        version = info.get("version") if isinstance(info, dict) else None
        version = f" {brief(version)}" if version not in (None, "") else ""
        return _cut(f"{name}{version} protocol {brief(result.get('protocolVersion'))}", TEXT_LIMIT)
    if not result:
        return "{}"
    return prefix + compact(result)


def _first_line(text: str) -> str:
    return _cut(text[: TEXT_LIMIT * 2].strip(), TEXT_LIMIT)


_SSE_CONTROL = {
    "priming": "SSE priming event",
    "empty": "SSE event without data",
    "comment": "SSE comment",
    "endpoint": "SSE endpoint",
}


def _stream_label(stream: Any) -> str:
    """Which SSE stream an HTTP row belongs to (see ``inspector.transports.http``)."""
    if stream == "get":
        return "GET stream"
    if stream == "sse":
        return "SSE stream"
    if isinstance(stream, str) and stream.startswith("post:"):
        return f"response stream of {stream[5:]}"
    return ""


def _http_text(event: WireEvent) -> str:
    """An HTTP row: the request or status line with what it is for, or an SSE control
    block (priming, keep-alive comment, legacy endpoint) said in words."""
    meta = event.meta
    raw = event.raw[: TEXT_LIMIT * 4].decode("utf-8", errors="backslashreplace")
    sse = meta.get("sse")
    if isinstance(sse, str):
        parts = [_SSE_CONTROL.get(sse, f"SSE {sse}")]
        if sse == "comment":
            comment = " ".join(line.lstrip(":").strip() for line in raw.splitlines())
            parts[0] += f": {comment.strip()}" if comment.strip() else ""
        if sse == "endpoint" and meta.get("endpoint"):
            parts.append(str(meta["endpoint"]))
        if meta.get("event_id") is not None:
            parts.append(f"id={meta['event_id']}")
        if meta.get("retry") is not None:
            parts.append(f"retry={meta['retry']}ms")
        label = _stream_label(meta.get("stream"))
        return _cut(" ".join(parts) + (f" · {label}" if label else ""), TEXT_LIMIT)
    extras: list[str] = []
    label = _stream_label(meta.get("stream"))
    if label:
        extras.append(label)
    if meta.get("last_event_id") is not None:
        extras.append(f"after id {meta['last_event_id']}")
    if meta.get("redirect"):
        extras.append(f"redirect to {meta['redirect']}")
    headers = meta.get("headers")
    status = meta.get("status")
    if isinstance(headers, dict) and isinstance(status, int) and status >= 400:
        for name in ("www-authenticate", "allow", "retry-after"):
            if headers.get(name):
                extras.append(f"{name}: {headers[name]}")
    line = _first_line(raw)
    return _cut(f"{line} · {'; '.join(extras)}" if extras else line, TEXT_LIMIT)


def _invalid_text(event: WireEvent) -> str:
    excerpt = event.raw[:TEXT_LIMIT].decode("utf-8", errors="backslashreplace")
    status = event.meta.get("status")
    if isinstance(status, int) and status >= 300:  # an HTTP error body: show what it says
        ctype = event.meta.get("content_type") or "untyped"
        return _cut(f"HTTP {status} body ({ctype}, not JSON): {excerpt}", TEXT_LIMIT)
    reason = event.error or "not a JSON-RPC message"
    return _cut(f"{reason}: {excerpt}", TEXT_LIMIT)


def _auth_text(event: WireEvent) -> str:
    """An OAuth exchange's row: its step, then the request or status line, or what its
    body holds (secrets are already masked in the event)."""
    meta = event.meta
    step = f"[{meta['step']}] " if meta.get("step") else ""
    if "method" in meta or ("status" in meta and "reason" in meta):
        line = _first_line(event.raw[: TEXT_LIMIT * 4].decode("utf-8", errors="backslashreplace"))
        headers = meta.get("headers")
        if isinstance(headers, dict) and "status" in meta:
            for name in ("location", "www-authenticate"):
                if headers.get(name):
                    line += f" · {name}: {headers[name]}"
        return _cut(step + line, TEXT_LIMIT)
    body = event.message
    if isinstance(body, dict):
        fields = " ".join(f"{k}={brief(v, 40)}" for k, v in list(body.items())[:8])
        return _cut(step + fields, TEXT_LIMIT)
    excerpt = event.raw[:TEXT_LIMIT].decode("utf-8", errors="backslashreplace")
    return _cut(step + "body: " + _first_line(excerpt), TEXT_LIMIT)


def summarize(event: WireEvent) -> RowSummary:
    """A one-line summary of ``event`` (bounded work, plain text)."""
    kind = event.kind
    msg = event.message
    method = ""
    id_ = ""
    if isinstance(msg, dict):
        m = msg.get("method")
        method = _cut(m, 60) if isinstance(m, str) else ""
        id_ = show_id(msg.get("id"))
    if kind in (Kind.REQUEST, Kind.NOTIFICATION) and isinstance(msg, dict):
        text = _request_text(method, msg.get("params"))
    elif kind is Kind.RESPONSE and isinstance(msg, dict):
        text = _result_text(msg.get("result"))
    elif kind is Kind.ERROR and isinstance(msg, dict):
        err = msg.get("error")
        if isinstance(err, dict):
            code = brief(err.get("code"))
            text = _cut(f"{code} {brief(err.get('message'), TEXT_LIMIT)}", TEXT_LIMIT)
            if "data" in err:
                text = _cut(f"{text} data={brief(err['data'])}", TEXT_LIMIT)
        else:
            text = brief(err)
    elif kind is Kind.BATCH and isinstance(msg, list):
        methods = [brief(m.get("method") or "response") for m in msg[:3] if isinstance(m, dict)]
        text = _cut(f"batch of {len(msg)}: {', '.join(methods)}", TEXT_LIMIT)
    elif kind is Kind.INVALID:
        text = _invalid_text(event)
    elif kind is Kind.SYSTEM and isinstance(msg, dict) and isinstance(msg.get("error"), dict):
        # a transport's synthesized failure of one request (HTTP status, broken stream)
        text = _cut(f"request failed: {brief(msg['error'].get('message'), TEXT_LIMIT)}", TEXT_LIMIT)
    elif event.channel is Channel.AUTH and event.direction is not Direction.LOCAL:
        text = _auth_text(event)
    elif kind is Kind.HTTP and event.meta:
        text = _http_text(event)
        id_ = id_ or show_id(event.meta.get("request_id"))
    else:  # stderr, http, system: the line itself
        text = _first_line(event.raw[: TEXT_LIMIT * 4].decode("utf-8", errors="backslashreplace"))
    label = party(event.meta) if event.meta else None
    if label is not None:  # a proxy's wire: whose frame (host, inspector 2, server)
        text = _cut(f"{label} │ {text}", TEXT_LIMIT)
    return RowSummary(kind, method, id_, text)
