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

What differs between the session era and the stateless one (2026-07-28: no session id,
routing headers, no GET stream, no DELETE, streams not resumed, cancels not posted) is
``httpera``'s rules, chosen by ``set_protocol_version``. A message to send is parsed once
into an ``httpout.Outgoing``. Reading SSE streams and resuming or reopening them is
``httpstreams``'; what this transport shares with the legacy ``sse`` one (client, auth
hook and its retry loop, background cancels, closing) is ``httpbase``'s.
"""

from __future__ import annotations

import functools
from collections.abc import Awaitable, Callable
from typing import Any, ClassVar

import anyio
import httpx
from anyio.abc import TaskGroup

from inspector.transports.authhook import AUTH_STATUSES, AuthHook
from inspector.transports.http11 import read_body
from inspector.transports.httpbase import Denied, HttpClientTransport
from inspector.transports.httpera import SESSION_ERA, HttpEra, http_era
from inspector.transports.httpout import Outgoing
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
    http_out_event,
    read_capped,
    refused_event,
    sent_trace,
    system_note,
    unanswered_event,
)
from inspector.transports.httpwire import HTTP_ERROR as HTTP_ERROR  # re-exported
from inspector.wire.jsonrpc import decode
from inspector.wire.transport import (
    ConnectionLost,
    Emit,
    FrameMeta,
    ToolHeaders,
    TransportError,
    TransportHost,
    exchange_emit,
)

FALLBACK_STATUSES = frozenset({400, 404, 405})  # first POST: maybe a legacy HTTP+SSE server
SESSION_EXPIRED = "the server's session expired (HTTP 404 to a request carrying its session id)"
CLOSE_TIMEOUT = 2.0
CANCEL_BY_CLOSING = (
    "cancel: closing the response stream (the stateless protocol posts no notifications/cancelled)"
)
GET_REFUSALS = {  # the standing GET stream refused: a note, not a failure
    405: (
        "the server offers no GET stream (405); server messages arrive on response streams only",
        "info",
    ),
    409: (
        "the server refused the GET stream (409 Conflict: another one is open for this session)",
        "warning",
    ),
}


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
        self.era: HttpEra = SESSION_ERA  # the stateless era's rules once its version is set
        self.tool_headers: ToolHeaders = {}  # x-mcp-header, from the engine
        self._expired = False
        # Set by AutoHttpTransport: sees the first POST's status (None: no status) and
        # returns True to take over (fall back); the transport then reports nothing more.
        self.on_first_response: Callable[[int | None], bool] | None = None
        self._first_pending = True
        self._request_scopes: dict[Any, anyio.CancelScope] = {}
        self._get_started = False

    @property
    def stateless(self) -> bool:
        """The 2026-07-28 era: no session, routing headers."""
        return self.era.stateless

    @property
    def session_expired(self) -> bool:
        return self._expired

    def set_protocol_version(self, version: str, *, stateless: bool) -> None:
        self.protocol_version = version
        self.era = http_era(stateless)

    def reset_protocol_version(self) -> None:
        self.protocol_version = None
        self.era = SESSION_ERA
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

    async def send_raw(
        self, raw: bytes, message: Any = None, *, meta: FrameMeta | None = None
    ) -> None:
        if self._host is None or self._client is None or self._tg is None or self._workers is None:
            raise TransportError("the HTTP transport is not started")
        out = Outgoing.parse(raw, message, exchange_emit(self._emit, meta), meta)
        if self._closed:
            note = f"not sent ({out.method or 'message'}): the transport is closed"
            out.emit(system_note(note, "warning"))
            return
        if out.method == "initialize":  # a new session: forget the old one
            self.session_id = None
            self._expired = False
        if out.method == "notifications/cancelled" and not self.era.posts_cancel:
            # 2026-07-28 HTTP has no client notifications: a client cancels by closing
            # the response stream
            out.emit(system_note(CANCEL_BY_CLOSING))
            self._stop_cancelled(out)
            return
        out.headers = await self._post_headers(out)
        self._emit_out(out)
        out.first, self._first_pending = self._first_pending, False
        if out.is_request:
            scope = anyio.CancelScope()
            self._request_scopes[out.rid] = scope
            exchange = functools.partial(self._post_request, out)
            self._workers.run_soon(functools.partial(self._run, exchange, scope, out))
            return
        if out.method == "notifications/cancelled":
            # the request is given up on: stop reading its response now, and post the
            # cancel in the background (a server that answers nothing must not hold the
            # caller for another timeout)
            self._stop_cancelled(out)
            self._tg.start_soon(self._post_cancel, out)
            return
        await self._run(functools.partial(self._post_other, out), anyio.CancelScope(), out)

    async def _run(
        self,
        exchange: Callable[[], Awaitable[None]],
        scope: anyio.CancelScope,
        out: Outgoing | None = None,
    ) -> None:
        """Run one exchange (of ``out``, or the GET stream's) in its own cancel scope;
        nothing but cancellation escapes."""
        if self._closed:
            return
        self._scopes.add(scope)
        rid = out.rid if out is not None else None
        emit = out.emit if out is not None else self._emit
        try:
            with scope:
                await exchange()
        except Exception as exc:  # a bug must not take the session's task group down
            emit(system_note(f"HTTP transport error: {type(exc).__name__}: {exc}", "error"))
            if rid is not None:
                emit(failed_request_event(rid, None, f"HTTP transport error: {exc}"))
        finally:
            self._scopes.discard(scope)
            if rid is not None and self._request_scopes.get(rid) is scope:
                del self._request_scopes[rid]

    async def _post_cancel(self, out: Outgoing) -> None:
        async def post(sent: anyio.Event) -> None:
            exchange = functools.partial(self._post_other, out, sent)
            await self._run(exchange, anyio.CancelScope(), out)

        await self._post_in_background(post)

    async def _post_other(self, out: Outgoing, sent: anyio.Event | None = None) -> None:
        """POST a notification or response; the answer should be 202 with no body.
        ``sent`` is set once the body is written. A 401/403 goes to the auth hook, and the
        message is sent again when it says so."""
        answer = await self._send_handling_auth(functools.partial(self._post_other_once, out, sent))
        if isinstance(answer, Denied):
            text = f"{out.what} not accepted: {answer.failure()}"
            out.emit(system_note(text, "error", http_error=answer.status))

    async def _post_other_once(
        self, out: Outgoing, sent: anyio.Event | None, attempt: int
    ) -> Denied | None:
        """One POST of a notification or response; a 401/403 for the auth hook returned."""
        assert self._client is not None
        if attempt:
            await self._resend(out, attempt)
        try:
            async with self._client.stream(
                "POST",
                self._url,
                content=out.raw,
                headers=out.headers,
                timeout=httpx.Timeout(self.timeout),
                extensions=sent_trace(sent) if sent is not None else None,
            ) as response:
                self._emit_status(out.emit, response, None)
                failed = response.status_code >= 300
                body = await self._emit_body(out.emit, response, None) if failed else b""
                if out.first and self._take_over(response.status_code):
                    return None
                if response.status_code == 404 and "MCP-Session-Id" in out.headers:
                    self._expire(out.emit)
                    return None
                if failed:
                    text = describe_response(
                        response,
                        first=out.first,
                        excerpt=body_excerpt(body, content_type(response)),
                    )
                    if response.status_code in AUTH_STATUSES and self.auth is not None:
                        return Denied.of(response, out.headers, body, text)
                    text = f"{out.what} not accepted: {text}"
                    out.emit(system_note(text, "error", http_error=response.status_code))
                    return None
                body = await read_capped(response)
                if body.strip():  # 202 should have no body; show what came
                    status, ctype = response.status_code, content_type(response)
                    out.emit(body_event(body, status, ctype, parse=self.parse))
        except httpx.HTTPError as exc:
            self._network_failure(out.emit, exc, None, out.first)
            return None
        if out.method == "notifications/initialized":
            self._open_get_stream(out.emit)
        return None

    async def _post_request(self, out: Outgoing) -> None:
        answer = await self._send_handling_auth(functools.partial(self._post_request_once, out))
        if isinstance(answer, Denied):
            out.emit(failed_request_event(out.rid, answer.status, answer.failure(), answer.body))

    async def _post_request_once(self, out: Outgoing, attempt: int) -> Denied | None:
        if attempt:
            await self._resend(out, attempt)
        try:
            response = await self._open_post(self._url, out.raw, out.headers)
            try:
                return await self._request_response(response, out)
            finally:
                await response.aclose()
        except httpx.HTTPError as exc:
            self._network_failure(out.emit, exc, out.rid, out.first)
            return None

    async def _request_response(self, response: httpx.Response, out: Outgoing) -> Denied | None:
        """Report one response to a request; a 401/403 for the auth hook is returned."""
        rid = out.rid
        status = response.status_code
        ctype = content_type(response)
        self._emit_status(out.emit, response, rid)
        body = await self._emit_body(out.emit, response, rid) if status >= 300 else b""
        # a redirect that made the POST a GET says nothing about Streamable HTTP support
        if out.first and self._take_over(status if response.request.method == "POST" else None):
            return None
        if out.method == "initialize" and status < 300 and self.era.keeps_session:
            self.session_id = response.headers.get("mcp-session-id") or self.session_id
        if not self.era.keeps_session and "mcp-session-id" in response.headers:
            out.emit(
                system_note(
                    "the server sent Mcp-Session-Id to a stateless (2026-07-28) request; ignored",
                    "warning",
                    request_id=rid,
                )
            )
        if status == 404 and "MCP-Session-Id" in out.headers:
            self._expire(out.emit)
            return None
        if status >= 300:
            routed, _ = decode(body)
            if not has_response(routed, rid):
                excerpt = body_excerpt(body, ctype)
                text = describe_response(response, first=out.first, excerpt=excerpt)
                if status in AUTH_STATUSES and self.auth is not None:
                    return Denied.of(response, out.headers, body, text)
                out.emit(failed_request_event(rid, status, text, body))
            return None
        if ctype == "text/event-stream":
            await self._request_stream(out.emit, response, rid)
            return None
        body = await read_body(response)
        parsed = None
        if body or status != 202:
            event = body_event(body, status, ctype, parse=self.parse, request_id=rid)
            parsed = event.message
            out.emit(event)
        unanswered = unanswered_event(body, status, ctype, rid, parsed)
        if unanswered is not None:
            out.emit(unanswered)
        return None

    # ------------------------------------------------------------ SSE streams (httpstreams)

    async def _request_stream(self, emit: Emit, response: httpx.Response, rid: Any) -> None:
        """Read a request's SSE stream; resume with GET + Last-Event-ID until the response."""
        stream = Stream(f"post:{rid}", self.parse)
        if await read_stream(response, stream, rid, self._url, emit):
            return
        if not self.era.resumes_streams:  # 2026-07-28 streams: the request is lost
            emit(
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
            emit,
            functools.partial(self._open_stream, emit),
            max_attempts=self.max_resume_attempts,
        )

    def _open_get_stream(self, emit: Emit) -> None:
        """Open the standing GET stream (its events go to ``emit``: the exchange that
        opened it, notifications/initialized's)."""
        if not self.era.opens_get_stream:
            return  # no standing stream in 2026-07-28: subscriptions/listen instead
        if self.open_get_stream and not self._get_started and self._tg and not self._closed:
            self._get_started = True
            get_loop = functools.partial(self._get_loop, emit)
            self._tg.start_soon(self._run, get_loop, anyio.CancelScope())

    async def _get_loop(self, emit: Emit) -> None:
        """The optional GET stream for server-initiated messages (``httpstreams``)."""
        await keep_get_stream(
            emit,
            functools.partial(self._open_stream, emit),
            max_attempts=self.max_resume_attempts,
            closed=lambda: self._closed,
        )

    async def _open_stream(self, emit: Emit, stream: Stream, rid: Any) -> bool:
        """GET the endpoint (resuming ``stream`` when it has a last event id) and read it;
        a 401/403 goes to the auth hook, and the GET is sent again when it says so.

        Returns True when the response to ``rid`` arrived; raises ``Terminal`` when the
        stream cannot be (re)opened, after reporting why."""

        async def once(_attempt: int) -> bool | Denied:
            headers = self._headers("GET", stream.last_id)
            headers.update(await self._auth_headers("GET"))
            return await self._open_stream_once(emit, stream, rid, headers)

        answer = await self._send_handling_auth(once)
        if not isinstance(answer, Denied):
            return answer
        text = answer.failure()
        if rid is not None:
            emit(failed_request_event(rid, answer.status, text, answer.body))
        else:
            emit(system_note(text, "warning", http_error=answer.status))
        raise Terminal

    async def _open_stream_once(
        self, emit: Emit, stream: Stream, rid: Any, headers: dict[str, str]
    ) -> bool | Denied:
        assert self._client is not None
        resume = stream.last_id is not None
        emit(
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
                self._emit_status(emit, r, rid, stream=stream.name)
                status = r.status_code
                if status == 200 and content_type(r) == "text/event-stream":
                    return await read_stream(r, stream, rid, self._url, emit)
                body = await self._emit_body(emit, r, rid)
                if status == 404 and "MCP-Session-Id" in headers:
                    self._expire(emit)
                elif rid is None and status in GET_REFUSALS:
                    emit(system_note(*GET_REFUSALS[status]))
                else:
                    what = "resume the response stream" if resume else "open the GET stream"
                    text = f"could not {what}: " + (
                        describe_response(r, excerpt=body_excerpt(body, content_type(r)))
                        if status != 200
                        else f"expected text/event-stream, got "
                        f"{content_type(r) or 'no Content-Type'}"
                    )
                    if status in AUTH_STATUSES and self.auth is not None:
                        return Denied.of(r, headers, body, text)
                    if rid is not None:
                        emit(failed_request_event(rid, status, text, body))
                    else:
                        emit(system_note(text, "warning", http_error=status))
                raise Terminal
        except httpx.HTTPError as exc:
            text = describe_network_error(exc, self._url, self.timeout)
            if isinstance(exc, RedirectRefused):
                emit(refused_event(exc, request_id=rid))
                if rid is not None:
                    emit(failed_request_event(rid, exc.response.status_code, text))
                else:
                    emit(system_note(text, "error", stream=stream.name))
                raise Terminal from exc
            if isinstance(exc, FATAL_ERRORS):
                emit(system_note(text, "error", stream=stream.name))
                self._lose(ConnectionLost(text))
                raise Terminal from exc
            emit(system_note(f"{stream.name} stream: {text}", "warning", stream=stream.name))
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

    async def _post_headers(self, out: Outgoing) -> dict[str, str]:
        headers = self._headers("POST")
        headers.update(await self._auth_headers())
        headers.update(self.era.headers(out, self.tool_headers))
        return headers

    async def _resend(self, out: Outgoing, attempt: int) -> None:
        """The same POST again after an authorization: its events, its new headers."""
        out.first = False
        out.headers = await self._post_headers(out)
        self._emit_out(out, auth_retry=attempt)

    def _emit_out(self, out: Outgoing, **retry: Any) -> None:
        """The POST of ``out`` (its request line and body) as its own events."""
        self._emit_post(
            self._url, self.url, out.headers, out.raw, out.message, out.rid, meta=out.meta, **retry
        )

    def _take_over(self, status: int | None) -> bool:
        hook, self.on_first_response = self.on_first_response, None
        return bool(hook and hook(status))

    def _network_failure(self, emit: Emit, exc: httpx.HTTPError, rid: Any, first: bool) -> None:
        if first and self._take_over(None):
            return
        text = describe_network_error(exc, self._url, self.read_timeout or self.timeout)
        if isinstance(exc, RedirectRefused):
            emit(refused_event(exc, request_id=rid))
            emit(system_note(text, "error", request_id=rid, http_error=exc.response.status_code))
            if rid is not None:
                emit(failed_request_event(rid, exc.response.status_code, text))
            return
        emit(system_note(text, "error", request_id=rid, error=type(exc).__name__))
        if isinstance(exc, FATAL_ERRORS):
            self._lose(ConnectionLost(text))
        elif rid is not None:
            emit(failed_request_event(rid, None, text))

    def _expire(self, emit: Emit) -> None:
        if self._expired:
            return
        self._expired = True
        emit(
            system_note(
                f"the server answered 404 to a request carrying session id "
                f"{self.session_id}: the session is gone",
                "error",
                http_error=404,
            )
        )
        self._lose(ConnectionLost(SESSION_EXPIRED, http_status=404))

    def _stop_cancelled(self, out: Outgoing) -> None:
        """After ``notifications/cancelled`` the response no longer matters: stop reading."""
        rid = out.cancels
        scope = self._request_scopes.pop(rid, None)
        if scope is not None:
            scope.cancel()
            out.emit(
                system_note(
                    f"stopped reading the response to request {rid!r} (cancelled)", request_id=rid
                )
            )

    async def _closing(self) -> None:
        live = self.session_id and not self.session_expired and self.era.keeps_session
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
                self._emit_status(self._emit, response, None)
            except httpx.HTTPError as exc:
                self._emit(system_note(f"DELETE failed: {describe_network_error(exc, self._url)}"))
        if scope.cancelled_caught:
            self._emit(system_note(f"DELETE got no answer within {CLOSE_TIMEOUT:g} s"))
