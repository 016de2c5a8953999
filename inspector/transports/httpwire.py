"""HTTP wire helpers shared by the HTTP transports (``http``, ``sse``, ``detect``).

URL checks, the wire events every HTTP exchange becomes (request lines, statuses,
bodies, SSE blocks, notes), the synthesized error response that fails exactly one
request, and clear messages for HTTP statuses and network failures. The event
vocabulary is described in ``inspector.transports.http``.
"""

from __future__ import annotations

import base64
import functools
import importlib.util
import re
import ssl
import sys
from typing import Any

import anyio
import httpx

from inspector.credentials import credential_name
from inspector.errors import InspectorError
from inspector.transports.sse_parser import SseError, SseEvent
from inspector.wire.events import Channel, Direction, WireEvent
from inspector.wire.jsonrpc import decode, encode, error_response
from inspector.wire.stateless import NAME_PARAMS
from inspector.wire.transport import Decode, TransportError

HTTP_ERROR = -32000  # code of the error responses synthesized for per-request HTTP failures
ACCEPT_BOTH = "application/json, text/event-stream"
ERROR_BODY_CAP = 1024 * 1024
RESPONSE_HEADERS = (
    "content-type",
    "content-length",
    "mcp-session-id",
    "mcp-protocol-version",
    "www-authenticate",
    "location",
    "allow",
    "retry-after",
)
_SHOWN = frozenset(RESPONSE_HEADERS)
FATAL_ERRORS = (httpx.ConnectError, httpx.ConnectTimeout, httpx.UnsupportedProtocol)
CANCEL_FLUSH = 0.25  # the most a close waits for cancels on their way to be sent


def _skip_missing_sniffio() -> None:
    """httpcore tries ``import sniffio`` on every request; without sniffio installed each
    attempt searches sys.path again (~12% of a small request's client time). Recording the
    absence once makes the failing import immediate; nothing changes when it is installed."""
    if "sniffio" not in sys.modules and importlib.util.find_spec("sniffio") is None:
        sys.modules["sniffio"] = None  # type: ignore[assignment]


_skip_missing_sniffio()


@functools.lru_cache(maxsize=8)
def tls_context(verify: bool | str, trust_env: bool = True) -> ssl.SSLContext:
    """The TLS context for ``verify`` (True, False, or a CA bundle's path), made once per
    process: building one loads the CA store (tens to hundreds of ms), and every HTTP
    client (a load run's sessions, OAuth's exchanges) would otherwise build its own."""
    return httpx.create_ssl_context(verify=verify, trust_env=trust_env)


def check_url(url: str) -> httpx.URL:
    """Parse an endpoint URL or raise ``TransportError`` saying what is wrong with it."""
    try:
        parsed = httpx.URL(url)
    except (httpx.InvalidURL, TypeError) as exc:
        raise TransportError(f"invalid URL {url!r}: {exc}") from exc
    if parsed.scheme not in ("http", "https"):
        raise TransportError(f"invalid URL {url!r}: the scheme must be http or https")
    if not parsed.host:
        raise TransportError(f"invalid URL {url!r}: no host")
    return parsed


def origin(url: httpx.URL) -> tuple[str, str, int | None]:
    default = 443 if url.scheme == "https" else 80
    return url.scheme, url.host, url.port or default


def origin_text(url: httpx.URL) -> str:
    return f"{url.scheme}://{url.netloc.decode('ascii', 'replace')}"


class RedirectRefused(InspectorError, httpx.HTTPError):
    """A redirect to another origin, not followed (``--follow-redirects`` is not given)."""

    def __init__(self, message: str, response: httpx.Response) -> None:
        super().__init__(message)
        self.response = response


def redirect_target(response: httpx.Response) -> httpx.URL:
    """Where a 3xx response sends the request (its Location, resolved)."""
    url = httpx.URL(response.headers["location"])
    return response.request.url.join(url) if url.is_relative_url else url


def redirect_hooks(endpoint: httpx.URL, follow_cross_origin: bool) -> dict[str, list[Any]]:
    """httpx event hooks that keep a client to ``endpoint``'s origin: a redirect to
    another origin is refused unless ``follow_cross_origin``; when followed, no
    credential header (Authorization, cookies, API keys, OAuth tokens, the session id)
    goes with it. Same-origin redirects are followed (the log shows each hop)."""
    home = origin(endpoint)

    async def on_request(request: httpx.Request) -> None:
        if origin(request.url) != home:
            for name in list(request.headers):
                if credential_name(name) or name.lower() == "mcp-session-id":
                    del request.headers[name]

    async def on_response(response: httpx.Response) -> None:
        if follow_cross_origin or not response.has_redirect_location:
            return
        target = redirect_target(response)
        if origin(target) != home:
            request = response.request
            raise RedirectRefused(
                f"{request.method} {request.url} was answered {response.status_code} "
                f"{response.reason_phrase}, redirecting to {target}: another origin "
                f"({origin_text(target)}, not {origin_text(endpoint)}); not followed, so "
                "no credentials go there. Use that URL if it is right, or pass "
                "--follow-redirects (credential headers are never sent to another origin)",
                response,
            )

    return {"request": [on_request], "response": [on_response]}


def refused_event(exc: RedirectRefused, **meta: Any) -> WireEvent:
    """The redirect that was not followed, as the log's status line for it."""
    hop = exc.response
    return http_in_event(hop, redirect=hop.headers.get("location"), refused="cross-origin", **meta)


def redirect_note(response: httpx.Response) -> str:
    """ " (redirected from POST http://a/mcp by 302, which made it a GET)": how the request
    that got ``response`` came to be, when redirects were followed; else ""."""
    if not response.history:
        return ""
    first = response.history[0].request
    hops = ", ".join(str(hop.status_code) for hop in response.history)
    method = response.request.method
    changed = f", which made it a {method}" if method != first.method else ""
    return f" (redirected from {first.method} {first.url} by {hops}{changed})"


def describe_response(
    response: httpx.Response, *, excerpt: str = "", first: bool = False, legacy: bool = False
) -> str:
    """``describe_status`` for the request that actually got ``response``: after redirects,
    the URL and method that answered, and how it got there."""
    text = describe_status(
        response.status_code,
        response.reason_phrase,
        method=response.request.method,
        url=response.url,
        excerpt="",
        first=first and not response.history,
        legacy=legacy,
    )
    text += redirect_note(response)
    return f"{text}; server said: {excerpt}" if excerpt else text


_HEADER_SAFE = re.compile(r"^[\x20-\x7E]*$")
_B64_SENTINEL = re.compile(r"^=\?base64\?.*\?=$")


def routing_headers(message: Any) -> dict[str, str]:
    """The 2026-07-28 routing headers for a message: ``Mcp-Method``, and ``Mcp-Name`` for
    the methods that name a tool, prompt or resource (servers route without the body)."""
    if not isinstance(message, dict) or not isinstance(message.get("method"), str):
        return {}
    method: str = message["method"]
    headers = {"Mcp-Method": method}
    params = message.get("params")
    key = NAME_PARAMS.get(method)
    if key is not None and isinstance(params, dict) and isinstance(params.get(key), str):
        headers["Mcp-Name"] = header_value(params[key])
    return headers


def param_headers(annotations: dict[tuple[str, ...], str], arguments: Any) -> dict[str, str]:
    """``Mcp-Param-{name}`` headers for a tools/call's arguments (2026-07-28 x-mcp-header):
    the value at each annotated path; absent or null values send no header."""
    headers: dict[str, str] = {}
    for path, name in annotations.items():
        value = arguments
        for key in path:
            value = value.get(key) if isinstance(value, dict) else None
        if isinstance(value, bool):
            headers[f"Mcp-Param-{name}"] = "true" if value else "false"
        elif isinstance(value, int):
            headers[f"Mcp-Param-{name}"] = str(value)
        elif isinstance(value, float) and value.is_integer():
            headers[f"Mcp-Param-{name}"] = str(int(value))
        elif isinstance(value, str):
            headers[f"Mcp-Param-{name}"] = header_value(value)
    return headers


def header_value(value: str) -> str:
    """``value`` as is when it survives an HTTP header, else ``=?base64?...?=`` (the spec's
    encoding for names with non-ASCII, control characters or edge spaces)."""
    if (
        _HEADER_SAFE.fullmatch(value)
        and value == value.strip()
        and not _B64_SENTINEL.fullmatch(value)
    ):
        return value
    return f"=?base64?{base64.b64encode(value.encode('utf-8')).decode('ascii')}?="


def content_type(response: httpx.Response) -> str:
    value: str = response.headers.get("content-type", "")
    return value.split(";")[0].strip().lower()


def system_note(text: str, severity: str = "info", **meta: Any) -> WireEvent:
    """A LOCAL note from the transport (connect, fallback, reconnect, gave up...)."""
    return WireEvent(
        Direction.LOCAL, Channel.SYSTEM, text.encode("utf-8"), meta={"severity": severity, **meta}
    )


def http_out_event(
    method: str, url: httpx.URL | str, headers: dict[str, str], **meta: Any
) -> WireEvent:
    return WireEvent(
        Direction.OUT,
        Channel.HTTP,
        f"{method} {url}".encode(),
        meta={
            "method": method,
            "url": str(url),
            "headers": dict(headers),
            **{k: v for k, v in meta.items() if v is not None},
        },
    )


def http_in_event(response: httpx.Response, **meta: Any) -> WireEvent:
    ctype = response.headers.get("content-type", "")
    line = f"HTTP {response.status_code} {response.reason_phrase}".rstrip()
    if ctype:
        line += f" {ctype}"
    headers = _shown_headers(response.headers)
    return WireEvent(
        Direction.IN,
        Channel.HTTP,
        line.encode("utf-8", "replace"),
        meta={
            "status": response.status_code,
            "reason": response.reason_phrase,
            "headers": headers,
            "url": str(response.url),
            **{k: v for k, v in meta.items() if v is not None},
        },
    )


def _shown_headers(headers: httpx.Headers) -> dict[str, str]:
    """The ``RESPONSE_HEADERS`` a response has, in that order, a repeated one joined with
    commas (as ``headers[name]`` joins them): one pass over the raw list, where a lookup
    a name would walk it once each."""
    encoding = headers.encoding
    found: dict[str, str] = {}
    for key, value in headers.raw:
        name = key.decode(encoding).lower()
        if name in _SHOWN:
            text = value.decode(encoding)
            found[name] = f"{found[name]}, {text}" if name in found else text
    return {name: found[name] for name in RESPONSE_HEADERS if name in found}


def body_event(
    body: bytes, status: int, ctype: str, parse: Decode = decode, **meta: Any
) -> WireEvent:
    """A response body as an IN event (parsed with ``parse``: the transport's, which may
    fold a big answer); a body that is not JSON says what it is instead."""
    message, error = parse(body)
    facts = {"status": status, "content_type": ctype}
    facts.update((k, v) for k, v in meta.items() if v is not None)
    event = WireEvent(Direction.IN, Channel.BODY, body, message, error, facts)
    if event.error is not None:
        kind = "an HTML page" if _looks_html(body, ctype) else f"{ctype or 'untyped'} content"
        detail = event.error.removeprefix("not JSON: ")
        event.error = f"not JSON: {kind} (HTTP {status}); {detail}"
    return event


def sse_wire_event(ev: SseEvent, stream: str, parse: Decode = decode) -> WireEvent:
    """The event for one SSE block: a message (SSE, parsed with ``parse``), a control block
    (HTTP) or garbage."""
    meta: dict[str, Any] = {"stream": stream, "event_id": ev.id, "event_type": ev.event_type}
    if ev.retry is not None:
        meta["retry"] = ev.retry
    if ev.is_comment_only:
        meta["sse"] = "comment"
        return WireEvent(Direction.IN, Channel.HTTP, ev.raw, meta=meta)
    if ev.is_garbage:
        return WireEvent(
            Direction.IN,
            Channel.SSE,
            ev.raw,
            meta=meta,
            error=f"not an SSE event: {ev.unknown[0][:120]!r}",
        )
    if not ev.data.strip():
        meta["sse"] = "priming" if ev.id is not None or ev.retry is not None else "empty"
        return WireEvent(Direction.IN, Channel.HTTP, ev.raw, meta=meta)
    if ev.unknown:
        meta["ignored_lines"] = ev.unknown
    message, error = parse(ev.data)
    event = WireEvent(Direction.IN, Channel.SSE, ev.data, message, error, meta)
    if ev.event_type != "message":
        event.error = f"unexpected SSE event type {ev.event_type!r} (MCP sends 'message')"
    if not ev.complete:
        event.error = "the stream ended in the middle of this event (no blank line after it)"
    return event


def has_response(message: Any, request_id: Any) -> bool:
    """True when ``message`` (or a batch) holds the response to ``request_id``."""
    items = message if isinstance(message, list) else [message]
    return any(
        isinstance(m, dict)
        and "method" not in m
        and ("result" in m or "error" in m)
        and m.get("id") == request_id
        for m in items
    )


def failed_request_event(
    request_id: Any, status: int | None, text: str, body: bytes = b"", **extra: Any
) -> WireEvent:
    """The synthesized JSON-RPC error that fails exactly one request (see module doc);
    ``extra`` goes into its data (``streamBroken``: the response stream ended early)."""
    data: dict[str, Any] = {"status": status, **extra}
    if body:
        data["body"] = body[:4096].decode("utf-8", "replace")
    message = error_response(request_id, HTTP_ERROR, text, data)
    return WireEvent(
        Direction.IN,
        Channel.SYSTEM,
        encode(message),
        message=message,
        meta={"severity": "error", "http_error": status, "request_id": request_id},
    )


def unanswered_event(
    body: bytes, status: int, ctype: str, request_id: Any, parsed: Any
) -> WireEvent | None:
    """What a request's plain (not SSE) 2xx answer earns: None when its JSON body (parsed:
    ``parsed``, as its event has it) holds the response, else the failure of that request
    (no response in the JSON, an empty 202/204, a Content-Type that is neither JSON nor an
    event stream)."""
    if ctype == "application/json" or ctype.endswith("+json"):
        if has_response(parsed, request_id):
            return None
        text = f"HTTP {status}: the JSON body holds no response to request {request_id!r}"
        return failed_request_event(request_id, status, text, body)
    if status in (202, 204):
        return failed_request_event(
            request_id,
            status,
            f"HTTP {status}: the server accepted the request but sent no "
            "response (a request must be answered with JSON or an SSE stream)",
        )
    return failed_request_event(
        request_id,
        status,
        f"HTTP {status}: unexpected Content-Type {ctype or 'none'!r} "
        "(expected application/json or text/event-stream)",
        body,
    )


def body_excerpt(body: bytes, ctype: str, limit: int = 300) -> str:
    """A short, one-line summary of an error body (a JSON-RPC error's message, a page title)."""
    if not body:
        return ""
    message, _ = decode(body)
    if isinstance(message, dict) and isinstance(message.get("error"), dict):
        err = message["error"]
        text = f"{err.get('message', '')} (code {err.get('code')})"
    elif _looks_html(body, ctype):
        page = body.decode("utf-8", "replace")
        title = re.search(r"<title[^>]*>(.*?)</title>", page, re.I | re.S)
        stripped = re.sub(r"<[^>]+>", " ", page)
        text = f"HTML page: {title.group(1) if title else stripped}"
    else:
        text = body.decode("utf-8", "replace")
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def describe_status(
    status: int,
    reason: str,
    *,
    method: str,
    url: httpx.URL | str,
    excerpt: str = "",
    first: bool = False,
    legacy: bool = False,
) -> str:
    """A clear, actionable message for an HTTP error status."""
    hints = {
        401: "authorization needed: the server needs authorization credentials (mcp-inspect "
        "runs OAuth where a person or the configured grant can complete it: see "
        "--auth-follow, --auth-paste, --client-id, --client-credentials; or pass a token "
        "with --header 'Authorization: Bearer <token>')",
        403: "authorization needed: the server refused access (credentials, scope, or an "
        "Origin/Host check)",
        406: f"the server rejected our Accept header ({ACCEPT_BOTH!r})",
        409: "conflict (the server allows one GET stream per session)",
        415: "the server rejected our Content-Type header ('application/json')",
        429: "rate limited by the server",
    }
    if status == 404:
        hint = f"nothing at {url}; check the URL path"
        if first and not legacy:
            hint += " (a legacy HTTP+SSE server? try the sse transport)"
        if legacy and method == "GET":
            hint = f"no SSE endpoint at {url}; check the URL (often /sse)"
    elif status == 405:
        hint = f"{url} does not accept {method}"
        if first and not legacy:
            hint += "; it may be a legacy HTTP+SSE endpoint (try the sse transport)"
        elif legacy and method == "GET":
            hint += "; it may be a Streamable HTTP endpoint (try the http transport)"
    elif status == 400:
        hint = "bad request" + (
            ""
            if legacy
            else " (a missing or unknown MCP-Session-Id, or an unsupported MCP-Protocol-Version?)"
        )
    elif status >= 500:
        hint = "the server failed"
    else:
        hint = hints.get(status, "unexpected status")
    text = f"HTTP {status} {reason}".rstrip() + f": {hint}"
    return f"{text}; server said: {excerpt}" if excerpt else text


def describe_network_error(
    exc: BaseException, url: httpx.URL | str, timeout: float | None = None
) -> str:
    """A clear message for an httpx failure below the HTTP level."""
    target = httpx.URL(str(url))
    where = f"{target.host}:{target.port or (443 if target.scheme == 'https' else 80)}"
    text = str(exc) or type(exc).__name__
    causes = _causes(exc)
    low = " ".join([text, *(str(c) for c in causes)]).lower()
    if isinstance(exc, httpx.ConnectTimeout):
        return (
            f"timed out connecting to {where} (after {timeout:g} s)"
            if timeout
            else f"timed out connecting to {where}"
        )
    if isinstance(exc, httpx.ConnectError):
        if any(w in low for w in ("ssl", "certificate", "tls", "handshake")):
            return f"TLS error connecting to {where}: {text}"
        if any(
            w in low
            for w in (
                "name or service not known",
                "nodename nor servname",
                "name resolution",
                "no address associated",
                "getaddrinfo",
                "name does not resolve",
            )
        ):
            return f"could not resolve host {target.host!r}: {text}"
        if "refused" in low or any(isinstance(c, ConnectionRefusedError) for c in causes):
            return f"connection refused by {where} (is the server running?)"
        return f"could not connect to {where}: {text}"
    if isinstance(exc, httpx.ReadTimeout):
        return (
            f"no data from the server for {timeout:g} s"
            if timeout
            else "timed out waiting for the server"
        )
    if isinstance(exc, httpx.TimeoutException):
        return f"timed out talking to {where}: {type(exc).__name__}"
    if isinstance(exc, httpx.RemoteProtocolError):
        return f"the server broke off the HTTP exchange: {text}"
    if isinstance(exc, httpx.ReadError | httpx.WriteError):
        return f"the connection to {where} broke: {text}"
    if isinstance(exc, SseError):
        return f"unreadable SSE stream: {text}"
    if isinstance(exc, RedirectRefused):
        return text
    return f"{type(exc).__name__}: {text}"


def _causes(exc: BaseException) -> list[BaseException]:
    """The chain below an exception (httpx wraps the OSError that says what happened)."""
    chain: list[BaseException] = []
    cause = exc.__cause__ or exc.__context__
    while cause is not None and len(chain) < 8:
        chain.append(cause)
        cause = cause.__cause__ or cause.__context__
    return chain


async def read_capped(response: httpx.Response, cap: int = ERROR_BODY_CAP) -> bytes:
    """Read at most ``cap`` bytes of a body (error pages can be large or endless)."""
    chunks: list[bytes] = []
    size = 0
    try:
        async for chunk in response.aiter_bytes():
            chunks.append(chunk)
            size += len(chunk)
            if size >= cap:
                break
    except httpx.HTTPError:
        pass  # a broken error body still shows what arrived
    return b"".join(chunks)[:cap]


def sent_trace(sent: anyio.Event) -> dict[str, Any]:
    """httpx request extensions that set ``sent`` once the request body is on the wire."""

    async def trace(name: str, info: dict[str, Any]) -> None:
        if name.endswith("send_request_body.complete"):
            sent.set()

    return {"trace": trace}


async def flush_cancels(cancels: set[anyio.Event]) -> None:
    """On close, let the cancels being posted in the background be sent (each event is
    set once its body is written; an answer is not awaited), briefly."""
    with anyio.move_on_after(CANCEL_FLUSH):
        for done in list(cancels):
            await done.wait()


def _looks_html(body: bytes, ctype: str) -> bool:
    return "html" in ctype or body.lstrip()[:15].lower().startswith((b"<!doctype", b"<html"))
