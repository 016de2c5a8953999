"""Streamable HTTP transport (MCP 2025-03-26 and later).

Every client message is one POST to the endpoint. What the wire shows, as events:

- ``Channel.HTTP`` OUT, raw ``b"POST http://host/mcp"``: the request line, meta
  ``{method, url, headers, request_id?, stream?, last_event_id?}``.
- ``Channel.BODY`` OUT: the exact bytes posted (one JSON-RPC message).
- ``Channel.HTTP`` IN, raw ``b"HTTP 200 OK text/event-stream"``: the status, meta
  ``{status, reason, headers (content-type, mcp-session-id, ...), url, request_id?}``.
- ``Channel.BODY`` IN: an ``application/json`` response body, or an error body; a
  non-JSON or HTML body keeps its bytes and carries a parse error that says what it is.
- ``Channel.SSE`` IN: a JSON-RPC message carried by a server-sent event, meta
  ``{event_id, event_type, stream}``; ``stream`` is ``"post:<request id>"`` or ``"get"``.
- ``Channel.HTTP`` IN with meta ``sse`` = ``"priming" | "comment" | "empty"``: SSE
  events that carry no message (resumption cursors, keep-alives); raw is the block.
- ``Channel.SYSTEM`` LOCAL: the transport's own notes, meta ``{severity, ...}``.

Per-request failures that do not end the connection (an HTTP error status, a
response stream that ends without the response and cannot be resumed, a read
timeout) are reported as a ``Channel.SYSTEM`` IN event whose message is a JSON-RPC
error response for that request id: code ``HTTP_ERROR`` (-32000, the SDK's
"transport failure" convention), message ``"HTTP 500 Internal Server Error: ..."``,
data ``{"status", "body"}``; meta ``{"http_error": status, "request_id": id}``. The
session routes it like any response, so exactly that request fails, clearly.

Failures that end the connection go to ``host.connection_lost``: connection
refused, DNS, TLS, connect timeouts, and a 404 to a request that carried a session
id (the session is gone: ``session_expired`` becomes True; starting a new session
is the session's job).

In the stateless era (2026-07-28, ``set_protocol_version`` before the first request)
every POST is self-contained: ``MCP-Protocol-Version``, ``Mcp-Method`` and ``Mcp-Name``
headers, no session id, no GET stream, no DELETE; a cancelled request's response
stream is closed instead of posting ``notifications/cancelled``.

Reading SSE streams and resuming or reopening them is ``httpstreams``'; what this
transport shares with the legacy ``sse`` one (client, auth hook, background cancels,
closing) is ``httpbase``'s.
"""

from __future__ import annotations

import functools
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, ClassVar

import anyio
import httpx
from anyio.abc import TaskGroup

from inspector.transports.authhook import AUTH_STATUSES, AuthHook, Denial, denied_text
from inspector.transports.httpbase import HttpClientTransport
from inspector.transports.httpstreams import (
    Stream,
    Terminal,
    keep_get_stream,
    read_stream,
    resume_response,
)
from inspector.transports.httpwire import (
    ACCEPT_BOTH,
    FATAL_ERRORS,
    RedirectRefused,
    body_event,
    body_excerpt,
    content_type,
    describe_network_error,
    describe_response,
    failed_request_event,
    has_response,
    http_in_event,
    http_out_event,
    param_headers,
    read_capped,
    refused_event,
    routing_headers,
    sent_trace,
    system_note,
)
from inspector.transports.httpwire import HTTP_ERROR as HTTP_ERROR  # re-exported
from inspector.wire.jsonrpc import decode
from inspector.wire.transport import (
    ConnectionLost,
    ToolHeaders,
    TransportError,
    TransportHost,
)

FALLBACK_STATUSES = frozenset({400, 404, 405})  # first POST: maybe a legacy HTTP+SSE server
SESSION_EXPIRED = "the server's session expired (HTTP 404 to a request carrying its session id)"
CLOSE_TIMEOUT = 2.0


# ---------------------------------------------------------------- the transport


@dataclass(slots=True)
class _Denied:
    """A 401/403 that an auth hook may answer (the status and body are already events)."""

    status: int
    headers: dict[str, str]
    body: bytes
    text: str  # the failure's message if the hook does not retry
    reason: str = ""  # the status line's reason phrase
    excerpt: str = ""  # what the body said, in short

    def failure(self, decision: Denial) -> str:
        return denied_text(self.text, self.status, self.reason, self.excerpt, decision)


def _denied(response: httpx.Response, body: bytes, text: str) -> _Denied:
    return _Denied(
        response.status_code,
        dict(response.headers),
        body,
        text,
        response.reason_phrase,
        body_excerpt(body, content_type(response)),
    )


class StreamableHttpTransport(HttpClientTransport):
    """One endpoint URL; POST per message, optional GET stream, resumable SSE streams."""

    kind: ClassVar[str] = "http"
    mirrors_tool_headers: ClassVar[bool] = True

    def __init__(
        self,
        url: str,
        headers: dict[str, str] | None = None,
        timeout: float = 30.0,
        verify: bool | str = True,
        *,
        read_timeout: float | None = None,
        max_resume_attempts: int = 5,
        open_get_stream: bool = True,
        follow_redirects: bool = False,
        auth: AuthHook | None = None,
    ) -> None:
        """``timeout`` bounds connecting, writing, and POSTs that expect 202 (and the DELETE
        is bounded by ``CLOSE_TIMEOUT``). ``read_timeout`` bounds silence while waiting
        for a request's response; None leaves that to the session's request timeout."""
        super().__init__(
            url, headers, timeout, verify, follow_redirects=follow_redirects, auth=auth
        )
        self.read_timeout = read_timeout
        self.max_resume_attempts = max_resume_attempts
        self.open_get_stream = open_get_stream
        self.session_id: str | None = None
        self.protocol_version: str | None = None
        self.stateless = False  # the 2026-07-28 era: no session, routing headers
        self.tool_headers: ToolHeaders = {}  # x-mcp-header, from the engine
        self._expired = False
        # Set by AutoHttpTransport: sees the first POST's status (None: no status) and
        # returns True to take over (fall back); the transport then reports nothing more.
        self.on_first_response: Callable[[int | None], bool] | None = None
        self._first_pending = True
        self._request_scopes: dict[Any, anyio.CancelScope] = {}
        self._get_started = False

    @property
    def session_expired(self) -> bool:
        return self._expired

    def set_protocol_version(self, version: str, *, stateless: bool) -> None:
        self.protocol_version = version
        self.stateless = stateless

    def reset_protocol_version(self) -> None:
        self.protocol_version = None
        self.stateless = False
        self.expect_first()

    def expect_first(self) -> None:
        """The next POST is a session's first (its failure may mean another transport)."""
        self._first_pending = True

    def set_tool_headers(self, headers: ToolHeaders) -> None:
        """Mirrored into ``Mcp-Param-*`` headers on tools/call (stateless era)."""
        self.tool_headers = dict(headers)

    async def start(self, host: TransportHost, task_group: TaskGroup) -> None:
        self._start_client(host, task_group, httpx.Timeout(self.timeout, read=self.read_timeout))

    # ------------------------------------------------------------ sending

    async def send_raw(self, raw: bytes, message: Any = None) -> None:
        if self._host is None or self._client is None or self._tg is None:
            raise TransportError("the HTTP transport is not started")
        if message is None:
            message, _ = decode(raw)
        method = message.get("method") if isinstance(message, dict) else None
        rid = message.get("id") if isinstance(message, dict) and method is not None else None
        if self._closed:
            self._emit(
                system_note(f"not sent ({method or 'message'}): the transport is closed", "warning")
            )
            return
        if method == "initialize":  # a new session: forget the old one
            self.session_id = None
            self._expired = False
        if self.stateless and method == "notifications/cancelled":
            # 2026-07-28 HTTP has no client notifications: a client cancels by closing
            # the response stream
            self._emit(
                system_note(
                    "cancel: closing the response stream (the stateless "
                    "protocol posts no notifications/cancelled)"
                )
            )
            self._stop_cancelled(message)
            return
        headers = await self._post_headers(message)
        self._emit_post(self._url, self.url, headers, raw, message, rid)
        first, self._first_pending = self._first_pending, False
        if rid is not None:
            scope = anyio.CancelScope()
            self._request_scopes[rid] = scope
            self._tg.start_soon(self._run, self._post_request, raw, message, headers, first, scope)
            return
        if method == "notifications/cancelled":
            # the request is given up on: stop reading its response now, and post the
            # cancel in the background (a server that answers nothing must not hold the
            # caller for another timeout)
            self._stop_cancelled(message)
            self._tg.start_soon(self._post_cancel, raw, message, headers, first)
            return
        await self._run(self._post_other, raw, message, headers, first, anyio.CancelScope())

    async def _run(
        self,
        fn: Callable[..., Awaitable[None]],
        raw: bytes,
        message: Any,
        headers: dict[str, str],
        first: bool,
        scope: anyio.CancelScope,
    ) -> None:
        """Run one exchange in its own cancel scope; nothing but cancellation escapes."""
        if self._closed:
            return
        self._scopes.add(scope)
        try:
            with scope:
                await fn(raw, message, headers, first)
        except Exception as exc:  # a bug must not take the session's task group down
            self._emit(system_note(f"HTTP transport error: {type(exc).__name__}: {exc}", "error"))
            rid = message.get("id") if isinstance(message, dict) else None
            if rid is not None and "method" in message:
                self._emit(failed_request_event(rid, None, f"HTTP transport error: {exc}"))
        finally:
            self._scopes.discard(scope)
            rid = message.get("id") if isinstance(message, dict) else None
            if self._request_scopes.get(rid) is scope:
                del self._request_scopes[rid]

    async def _post_cancel(
        self, raw: bytes, message: Any, headers: dict[str, str], first: bool
    ) -> None:
        async def post(sent: anyio.Event) -> None:
            exchange = functools.partial(self._post_other, sent=sent)
            await self._run(exchange, raw, message, headers, first, anyio.CancelScope())

        await self._post_in_background(post)

    async def _post_other(
        self,
        raw: bytes,
        message: Any,
        headers: dict[str, str],
        first: bool,
        sent: anyio.Event | None = None,
    ) -> None:
        """POST a notification or response; the answer should be 202 with no body.
        ``sent`` is set once the body is written. A 401/403 goes to the auth hook, and the
        message is sent again when it says so."""
        attempt = 0
        while True:
            denied = await self._post_other_once(raw, message, headers, first, sent)
            if denied is None:
                break
            decision = await self._ask_auth(denied.status, denied.headers, headers, attempt)
            if not decision.retry:
                what = (message.get("method") if isinstance(message, dict) else None) or "response"
                text = f"{what} not accepted: {denied.failure(decision)}"
                self._emit(system_note(text, "error", http_error=denied.status))
                return
            attempt, first = attempt + 1, False
            headers = await self._resend(raw, message, attempt)

    async def _post_other_once(
        self,
        raw: bytes,
        message: Any,
        headers: dict[str, str],
        first: bool,
        sent: anyio.Event | None,
    ) -> _Denied | None:
        """One POST of a notification or response; a 401/403 for the auth hook returned."""
        assert self._client is not None
        try:
            async with self._client.stream(
                "POST",
                self._url,
                content=raw,
                headers=headers,
                timeout=httpx.Timeout(self.timeout),
                extensions=sent_trace(sent) if sent is not None else None,
            ) as response:
                self._emit_status(response, None)
                failed = response.status_code >= 300
                body = await self._emit_body(response, None) if failed else b""
                if first and self._take_over(response.status_code):
                    return None
                if response.status_code == 404 and "MCP-Session-Id" in headers:
                    self._expire()
                    return None
                if failed:
                    method = message.get("method") if isinstance(message, dict) else None
                    text = describe_response(
                        response, first=first, excerpt=body_excerpt(body, content_type(response))
                    )
                    if response.status_code in AUTH_STATUSES and self.auth is not None:
                        return _denied(response, body, text)
                    what = method or "response"
                    self._emit(
                        system_note(
                            f"{what} not accepted: {text}", "error", http_error=response.status_code
                        )
                    )
                    return None
                body = await read_capped(response)
                if body.strip():  # 202 should have no body; show what came
                    self._emit(body_event(body, response.status_code, content_type(response)))
        except httpx.HTTPError as exc:
            self._network_failure(exc, None, first)
            return None
        if isinstance(message, dict) and message.get("method") == "notifications/initialized":
            self._open_get_stream()
        return None

    async def _post_request(
        self, raw: bytes, message: Any, headers: dict[str, str], first: bool
    ) -> None:
        assert self._client is not None
        rid = message["id"]
        attempt = 0
        while True:
            try:
                async with self._streamed_post(self._url, raw, headers) as response:
                    denied = await self._request_response(response, message, headers, first)
            except httpx.HTTPError as exc:
                self._network_failure(exc, rid, first)
                return
            if denied is None:
                return
            decision = await self._ask_auth(denied.status, denied.headers, headers, attempt)
            if not decision.retry:
                self._emit(
                    failed_request_event(rid, denied.status, denied.failure(decision), denied.body)
                )
                return
            attempt, first = attempt + 1, False
            headers = await self._resend(raw, message, attempt)

    async def _request_response(
        self,
        response: httpx.Response,
        message: dict[str, Any],
        headers: dict[str, str],
        first: bool,
    ) -> _Denied | None:
        """Report one response to a request; a 401/403 for the auth hook is returned."""
        rid = message["id"]
        status = response.status_code
        ctype = content_type(response)
        self._emit_status(response, rid)
        body = await self._emit_body(response, rid) if status >= 300 else b""
        # a redirect that made the POST a GET says nothing about Streamable HTTP support
        if first and self._take_over(status if response.request.method == "POST" else None):
            return None
        if message.get("method") == "initialize" and status < 300 and not self.stateless:
            self.session_id = response.headers.get("mcp-session-id") or self.session_id
        if self.stateless and "mcp-session-id" in response.headers:
            self._emit(
                system_note(
                    "the server sent Mcp-Session-Id to a stateless (2026-07-28) request; ignored",
                    "warning",
                    request_id=rid,
                )
            )
        if status == 404 and "MCP-Session-Id" in headers:
            self._expire()
            return None
        if status >= 300:
            routed, _ = decode(body)
            if not has_response(routed, rid):
                text = describe_response(response, first=first, excerpt=body_excerpt(body, ctype))
                if status in AUTH_STATUSES and self.auth is not None:
                    return _denied(response, body, text)
                self._emit(failed_request_event(rid, status, text, body))
            return None
        if ctype == "text/event-stream":
            await self._request_stream(response, rid)
            return None
        body = await response.aread()
        if body or status != 202:
            self._emit(body_event(body, status, ctype, request_id=rid))
        if ctype == "application/json" or ctype.endswith("+json"):
            parsed, _ = decode(body)
            if not has_response(parsed, rid):
                self._emit(
                    failed_request_event(
                        rid,
                        status,
                        f"HTTP {status}: the JSON body holds no response to request {rid!r}",
                        body,
                    )
                )
        elif status in (202, 204):
            self._emit(
                failed_request_event(
                    rid,
                    status,
                    f"HTTP {status}: the server accepted the request but sent no "
                    "response (a request must be answered with JSON or an SSE stream)",
                )
            )
        else:
            self._emit(
                failed_request_event(
                    rid,
                    status,
                    f"HTTP {status}: unexpected Content-Type {ctype or 'none'!r} "
                    "(expected application/json or text/event-stream)",
                    body,
                )
            )
        return None

    # ------------------------------------------------------------ SSE streams (httpstreams)

    async def _request_stream(self, response: httpx.Response, rid: Any) -> None:
        """Read a request's SSE stream; resume with GET + Last-Event-ID until the response."""
        stream = Stream(f"post:{rid}")
        if await read_stream(response, stream, rid, self._url, self._emit):
            return
        if self.stateless:  # 2026-07-28 streams are not resumable: the request is lost
            self._emit(
                failed_request_event(
                    rid,
                    response.status_code,
                    "the server closed the response stream before "
                    "sending the response (2026-07-28 streams cannot be resumed; send the request "
                    "again)",
                    streamBroken=True,
                )
            )
            return
        await resume_response(
            stream,
            rid,
            response.status_code,
            self._emit,
            self._open_stream,
            max_attempts=self.max_resume_attempts,
        )

    def _open_get_stream(self) -> None:
        if self.stateless:
            return  # no standing stream in 2026-07-28: subscriptions/listen instead
        if self.open_get_stream and not self._get_started and self._tg and not self._closed:
            self._get_started = True
            scope = anyio.CancelScope()
            self._tg.start_soon(self._run, self._get_loop, b"", None, {}, False, scope)

    async def _get_loop(
        self, _raw: bytes, _message: Any, _headers: dict[str, str], _first: bool
    ) -> None:
        """The optional GET stream for server-initiated messages (``httpstreams``)."""
        await keep_get_stream(
            self._emit,
            self._open_stream,
            max_attempts=self.max_resume_attempts,
            closed=lambda: self._closed,
        )

    async def _open_stream(self, stream: Stream, rid: Any) -> bool:
        """GET the endpoint (resuming ``stream`` when it has a last event id) and read it;
        a 401/403 goes to the auth hook, and the GET is sent again when it says so.

        Returns True when the response to ``rid`` arrived; raises ``Terminal`` when the
        stream cannot be (re)opened, after reporting why."""
        attempt = 0
        while True:
            headers = self._headers("GET", stream.last_id)
            headers.update(await self._auth_headers("GET"))
            answer = await self._open_stream_once(stream, rid, headers)
            if not isinstance(answer, _Denied):
                return answer
            decision = await self._ask_auth(answer.status, answer.headers, headers, attempt)
            if not decision.retry:
                text = answer.failure(decision)
                if rid is not None:
                    self._emit(failed_request_event(rid, answer.status, text, answer.body))
                else:
                    self._emit(system_note(text, "warning", http_error=answer.status))
                raise Terminal
            attempt += 1

    async def _open_stream_once(
        self, stream: Stream, rid: Any, headers: dict[str, str]
    ) -> bool | _Denied:
        assert self._client is not None
        resume = stream.last_id is not None
        self._emit(
            http_out_event(
                "GET",
                self._url,
                self._shown(headers),
                stream=stream.name,
                request_id=rid,
                last_event_id=stream.last_id,
            )
        )
        try:
            async with self._client.stream(
                "GET", self._url, headers=headers, timeout=httpx.Timeout(self.timeout, read=None)
            ) as r:
                self._emit_status(r, rid, stream=stream.name)
                status = r.status_code
                if status == 200 and content_type(r) == "text/event-stream":
                    return await read_stream(r, stream, rid, self._url, self._emit)
                body = await self._emit_body(r, rid)
                if status == 404 and "MCP-Session-Id" in headers:
                    self._expire()
                elif rid is None and status == 405:
                    self._emit(
                        system_note(
                            "the server offers no GET stream (405); server "
                            "messages arrive on response streams only"
                        )
                    )
                elif rid is None and status == 409:
                    self._emit(
                        system_note(
                            "the server refused the GET stream (409 Conflict: "
                            "another one is open for this session)",
                            "warning",
                        )
                    )
                else:
                    what = "resume the response stream" if resume else "open the GET stream"
                    text = f"could not {what}: " + (
                        describe_response(r, excerpt=body_excerpt(body, content_type(r)))
                        if status != 200
                        else f"expected text/event-stream, got "
                        f"{content_type(r) or 'no Content-Type'}"
                    )
                    if status in AUTH_STATUSES and self.auth is not None:
                        return _denied(r, body, text)
                    if rid is not None:
                        self._emit(failed_request_event(rid, status, text, body))
                    else:
                        self._emit(system_note(text, "warning", http_error=status))
                raise Terminal
        except httpx.HTTPError as exc:
            text = describe_network_error(exc, self._url, self.timeout)
            if isinstance(exc, RedirectRefused):
                self._emit(refused_event(exc, request_id=rid))
                if rid is not None:
                    self._emit(failed_request_event(rid, exc.response.status_code, text))
                else:
                    self._emit(system_note(text, "error", stream=stream.name))
                raise Terminal from exc
            if isinstance(exc, FATAL_ERRORS):
                self._emit(system_note(text, "error", stream=stream.name))
                self._lose(ConnectionLost(text))
                raise Terminal from exc
            self._emit(system_note(f"{stream.name} stream: {text}", "warning", stream=stream.name))
            return False

    # ------------------------------------------------------------ helpers

    def _headers(self, method: str, last_event_id: str | None = None) -> dict[str, str]:
        headers = {"Accept": ACCEPT_BOTH if method == "POST" else "text/event-stream"}
        if method == "POST":
            headers["Content-Type"] = "application/json"
        headers.update(self.headers)
        if self.session_id:
            headers["MCP-Session-Id"] = self.session_id
        if self.protocol_version:
            headers["MCP-Protocol-Version"] = self.protocol_version
        if last_event_id is not None:
            headers["Last-Event-ID"] = last_event_id
        return headers

    async def _post_headers(self, message: Any) -> dict[str, str]:
        headers = self._headers("POST")
        headers.update(await self._auth_headers())
        if self.stateless:
            headers.update(routing_headers(message))
            method = message.get("method") if isinstance(message, dict) else None
            if method == "tools/call" and isinstance(message.get("params"), dict):
                params = message["params"]
                headers.update(
                    param_headers(
                        self.tool_headers.get(str(params.get("name")), {}), params.get("arguments")
                    )
                )
        return headers

    async def _resend(self, raw: bytes, message: Any, attempt: int) -> dict[str, str]:
        """The same POST again after an authorization: its events, its new headers."""
        rid = message.get("id") if isinstance(message, dict) and "method" in message else None
        headers = await self._post_headers(message)
        self._emit_post(self._url, self.url, headers, raw, message, rid, auth_retry=attempt)
        return headers

    def _emit_status(self, response: httpx.Response, rid: Any, **meta: Any) -> None:
        self._emit_hops(response, rid, **meta)
        self._emit(http_in_event(response, request_id=rid, **meta))

    async def _emit_body(self, response: httpx.Response, rid: Any) -> bytes:
        body = await read_capped(response)
        if body:
            self._emit(
                body_event(body, response.status_code, content_type(response), request_id=rid)
            )
        return body

    def _take_over(self, status: int | None) -> bool:
        hook, self.on_first_response = self.on_first_response, None
        return bool(hook and hook(status))

    def _network_failure(self, exc: httpx.HTTPError, rid: Any, first: bool) -> None:
        if first and self._take_over(None):
            return
        text = describe_network_error(exc, self._url, self.read_timeout or self.timeout)
        if isinstance(exc, RedirectRefused):
            self._emit(refused_event(exc, request_id=rid))
            self._emit(
                system_note(text, "error", request_id=rid, http_error=exc.response.status_code)
            )
            if rid is not None:
                self._emit(failed_request_event(rid, exc.response.status_code, text))
            return
        self._emit(system_note(text, "error", request_id=rid, error=type(exc).__name__))
        if isinstance(exc, FATAL_ERRORS):
            self._lose(ConnectionLost(text))
        elif rid is not None:
            self._emit(failed_request_event(rid, None, text))

    def _expire(self) -> None:
        if self._expired:
            return
        self._expired = True
        self._emit(
            system_note(
                f"the server answered 404 to a request carrying session id "
                f"{self.session_id}: the session is gone",
                "error",
                http_error=404,
            )
        )
        self._lose(ConnectionLost(SESSION_EXPIRED, http_status=404))

    def _stop_cancelled(self, message: dict[str, Any]) -> None:
        """After ``notifications/cancelled`` the response no longer matters: stop reading."""
        params = message.get("params")
        rid = params.get("requestId") if isinstance(params, dict) else None
        scope = self._request_scopes.pop(rid, None)
        if scope is not None:
            scope.cancel()
            self._emit(
                system_note(
                    f"stopped reading the response to request {rid!r} (cancelled)", request_id=rid
                )
            )

    async def _closing(self) -> None:
        live = self.session_id and not self.session_expired and not self.stateless
        if self._client is not None and live:
            await self._delete_session()

    async def _delete_session(self) -> None:
        """End the session on the server (SHOULD); 405 is a fine answer. Bounded."""
        assert self._client is not None
        headers = self._headers("DELETE")
        del headers["Accept"]
        if self.auth is not None:
            with anyio.move_on_after(CLOSE_TIMEOUT, shield=True):
                headers.update(
                    await self.auth.headers(refresh=False, method="DELETE", url=str(self._url))
                )
        self._emit(http_out_event("DELETE", self._url, self._shown(headers)))
        with anyio.move_on_after(CLOSE_TIMEOUT, shield=True) as scope:
            try:
                response = await self._client.delete(
                    self._url, headers=headers, timeout=CLOSE_TIMEOUT
                )
                self._emit_status(response, None)
            except httpx.HTTPError as exc:
                self._emit(system_note(f"DELETE failed: {describe_network_error(exc, self._url)}"))
        if scope.cancelled_caught:
            self._emit(system_note(f"DELETE got no answer within {CLOSE_TIMEOUT:g} s"))
