"""Legacy HTTP+SSE transport (MCP 2024-11-05).

GET the SSE URL and keep it open; the first event, ``endpoint``, names the URL to
POST messages to (resolved against the SSE URL; another origin is refused). POSTs
are answered 202; responses and server messages arrive on the GET stream as
``event: message``. Closing the GET ends the session.

Events follow ``inspector.transports.http`` (HTTP lines, BODY, SSE, SYSTEM); the
``endpoint`` event is a ``Channel.HTTP`` IN event, meta ``{sse: "endpoint",
endpoint}``, raw the SSE block. A failed POST of a request fails that request
with a synthesized JSON-RPC error (code ``HTTP_ERROR``), as the Streamable
transport does.
"""

from __future__ import annotations

import functools
from typing import Any, ClassVar

import anyio
import httpx
from anyio.abc import TaskGroup

from inspector.transports.authhook import AUTH_STATUSES, AuthHook, Denial, denied_text
from inspector.transports.httpbase import HttpClientTransport
from inspector.transports.httpwire import (
    FATAL_ERRORS,
    RedirectRefused,
    body_event,
    body_excerpt,
    content_type,
    describe_network_error,
    describe_response,
    failed_request_event,
    http_in_event,
    http_out_event,
    origin,
    read_capped,
    refused_event,
    sent_trace,
    sse_wire_event,
    system_note,
)
from inspector.transports.sse_parser import SseError, SseEvent, SseParser
from inspector.wire.events import Channel, Direction, WireEvent
from inspector.wire.jsonrpc import decode
from inspector.wire.transport import (
    ConnectionLost,
    Emit,
    FrameMeta,
    TransportError,
    TransportHost,
    exchange_emit,
)

STREAM = "sse"


class SseTransport(HttpClientTransport):
    """Client side of the 2024-11-05 HTTP+SSE transport."""

    kind: ClassVar[str] = "sse"

    def __init__(
        self,
        url: str,
        headers: dict[str, str] | None = None,
        timeout: float = 30.0,
        verify: bool | str = True,
        *,
        follow_redirects: bool = False,
        auth: AuthHook | None = None,
    ) -> None:
        """``timeout`` bounds connecting, waiting for the ``endpoint`` event, and each POST.
        ``follow_redirects``: follow redirects to another origin too (never with
        credentials); same-origin ones are always followed. ``auth`` supplies Authorization
        and answers 401/403 (``transports.authhook``)."""
        super().__init__(
            url, headers, timeout, verify, follow_redirects=follow_redirects, auth=auth
        )
        self.endpoint: httpx.URL | None = None
        # made in start(): anyio primitives need the running event loop
        self._ready: anyio.Event | None = None  # set: endpoint known, or the stream failed
        self._scope: anyio.CancelScope | None = None

    def _target_details(self) -> dict[str, Any]:
        return {"endpoint": str(self.endpoint) if self.endpoint else None}

    async def start(self, host: TransportHost, task_group: TaskGroup) -> None:
        self._start_client(host, task_group, httpx.Timeout(self.timeout))
        self._ready = anyio.Event()
        self._scope = anyio.CancelScope()
        task_group.start_soon(self._read_stream)

    # ------------------------------------------------------------ the GET stream

    async def _read_stream(self) -> None:
        assert self._client is not None and self._scope is not None and self._ready is not None
        reason: str | None = None
        status: int | None = None  # the GET's error status, when that is why it failed
        attempt = 0
        with self._scope:
            while True:  # again after an authorization the auth hook ran for a 401/403
                headers = {"Accept": "text/event-stream", **self.headers}
                headers.update(await self._auth_headers("GET"))
                self._emit(http_out_event("GET", self._url, self._shown(headers), stream=STREAM))
                denied: tuple[int, dict[str, str], str] | None = None
                try:
                    async with self._client.stream(
                        "GET",
                        self._url,
                        headers=headers,
                        timeout=httpx.Timeout(self.timeout, read=None),
                    ) as r:
                        self._emit_hops(self._emit, r, None)
                        self._emit(http_in_event(r, stream=STREAM))
                        reason = await self._check_stream(r)
                        if reason is not None and r.status_code >= 300:
                            status = r.status_code
                            if status in AUTH_STATUSES and self.auth is not None:
                                denied = (status, dict(r.headers), r.reason_phrase)
                        if reason is None:
                            reason = await self._consume(r)
                except httpx.HTTPError as exc:
                    reason = describe_network_error(exc, self._url, self.timeout)
                    if isinstance(exc, RedirectRefused):
                        self._emit(refused_event(exc))
                        status = exc.response.status_code
                if denied is None:
                    break
                decision = await self._ask_auth(denied[0], denied[1], headers, attempt)
                if not decision.retry:
                    reason = denied_text(reason or "", denied[0], denied[2], "", decision)
                    break
                attempt += 1
        if reason is None:  # cancelled by close()
            return
        self._emit(system_note(reason, "error", stream=STREAM))
        self._ready.set()
        self._lose(ConnectionLost(reason, http_status=status))

    async def _check_stream(self, response: httpx.Response) -> str | None:
        """None when the GET opened an SSE stream; else why not (after emitting the body)."""
        ctype = content_type(response)
        if response.status_code == 200 and ctype == "text/event-stream":
            return None
        body = await read_capped(response)
        if body:
            self._emit(body_event(body, response.status_code, ctype, parse=self.parse))
        if response.status_code != 200:
            return describe_response(response, legacy=True, excerpt=body_excerpt(body, ctype))
        return (
            f"GET {self._url} answered {ctype or 'no Content-Type'}, not an SSE stream "
            "(text/event-stream); is this a legacy HTTP+SSE endpoint?"
        )

    async def _consume(self, response: httpx.Response) -> str:
        """Emit every event until the stream ends; return why it ended."""
        parser = SseParser()
        try:
            async for chunk in response.aiter_bytes():
                for ev in parser.feed(chunk):
                    failure = self._on_event(ev)
                    if failure:
                        return failure
        except (httpx.HTTPError, SseError) as exc:
            tail = parser.close()
            if tail is not None:
                self._on_event(tail)
            return f"the SSE stream broke: {describe_network_error(exc, self._url)}"
        tail = parser.close()
        if tail is not None:
            self._on_event(tail)
        return "the server closed the SSE stream (the legacy transport cannot resume)"

    def _on_event(self, ev: SseEvent) -> str | None:
        if ev.event_type != "endpoint":
            self._emit(sse_wire_event(ev, STREAM, self.parse))
            return None
        meta: dict[str, Any] = {
            "stream": STREAM,
            "sse": "endpoint",
            "event_id": ev.id,
            "event_type": ev.event_type,
        }
        text = ev.data.decode("utf-8", "replace").strip()
        try:
            target = self._url.join(text)
        except httpx.InvalidURL as exc:
            self._emit(WireEvent(Direction.IN, Channel.HTTP, ev.raw, meta=meta))
            return f"the server's endpoint event is not a URL ({text!r}: {exc})"
        meta["endpoint"] = str(target)
        self._emit(WireEvent(Direction.IN, Channel.HTTP, ev.raw, meta=meta))
        if origin(target) != origin(self._url):
            return (
                f"the server's endpoint event points to another origin ({target}); "
                f"refusing to send messages outside {self._url.scheme}://{self._url.netloc.decode()}"
            )
        if self.endpoint is None:
            self.endpoint = target
            assert self._ready is not None
            self._ready.set()
        elif target != self.endpoint:
            self._emit(
                system_note(
                    f"the server sent a second endpoint ({target}); still posting "
                    f"to {self.endpoint}",
                    "warning",
                )
            )
        return None

    # ------------------------------------------------------------ sending

    async def send_raw(
        self, raw: bytes, message: Any = None, *, meta: FrameMeta | None = None
    ) -> None:
        if self._host is None or self._client is None or self._ready is None:
            raise TransportError("the SSE transport is not started")
        if message is None:
            message, _ = decode(raw)
        rid = message.get("id") if isinstance(message, dict) and "method" in message else None
        method = message.get("method") if isinstance(message, dict) else None
        if not self._ready.is_set() and method == "notifications/cancelled":
            # the request it cancels was never posted (no endpoint yet): nothing to cancel
            self._emit(system_note("not sent: no endpoint event yet, so nothing to cancel"))
            return
        if not self._ready.is_set():
            with anyio.move_on_after(self.timeout):
                await self._ready.wait()
            if not self._ready.is_set():
                text = f"the server sent no endpoint event within {self.timeout:g} s"
                self._emit(system_note(text, "error"))
                self._lose(ConnectionLost(text))
                self._ready.set()
        if self.endpoint is None or self._closed:
            self._emit(system_note("not sent: the SSE connection is not open", "warning"))
            return
        headers = {"Content-Type": "application/json", **self.headers}
        headers.update(await self._auth_headers("POST", self.endpoint))
        self._emit_post(self.endpoint, str(self.endpoint), headers, raw, message, rid, meta=meta)
        if method == "notifications/cancelled" and self._tg is not None:
            # a cancel is posted in the background: the request is already given up on
            self._tg.start_soon(self._post_cancel, self.endpoint, raw, headers, meta)
            return
        await self._post(self.endpoint, raw, headers, rid, meta)

    async def _post_cancel(
        self, endpoint: httpx.URL, raw: bytes, headers: dict[str, str], meta: FrameMeta | None
    ) -> None:
        await self._post_in_background(
            functools.partial(self._post_cancel_once, endpoint, raw, headers, meta)
        )

    async def _post_cancel_once(
        self,
        endpoint: httpx.URL,
        raw: bytes,
        headers: dict[str, str],
        meta: FrameMeta | None,
        sent: anyio.Event,
    ) -> None:
        scope = anyio.CancelScope()
        self._scopes.add(scope)
        try:
            with scope:
                await self._post(endpoint, raw, headers, None, meta, sent=sent)
        except Exception as exc:  # the client closing under it: a note, not a crash
            self._emit(system_note(f"cancel not posted: {type(exc).__name__}: {exc}", "warning"))
        finally:
            self._scopes.discard(scope)

    async def _post(
        self,
        endpoint: httpx.URL,
        raw: bytes,
        headers: dict[str, str],
        rid: Any,
        meta: FrameMeta | None,
        sent: anyio.Event | None = None,
    ) -> None:
        """POST one message (sent with ``meta``); ``sent`` is set once its body is written.
        A 401/403 goes to the auth hook, and the message is posted again when it says so."""
        assert self._client is not None
        emit = exchange_emit(self._emit, meta)
        attempt = 0
        while True:
            try:
                response = await self._client.post(
                    endpoint,
                    content=raw,
                    headers=headers,
                    extensions=sent_trace(sent) if sent is not None else None,
                )
            except httpx.HTTPError as exc:
                text = describe_network_error(exc, endpoint, self.timeout)
                status = None
                if isinstance(exc, RedirectRefused):
                    status = exc.response.status_code
                    emit(refused_event(exc, request_id=rid))
                emit(system_note(text, "error", request_id=rid))
                if isinstance(exc, FATAL_ERRORS):
                    self._lose(ConnectionLost(text))
                elif rid is not None:
                    emit(failed_request_event(rid, status, text))
                return
            decision: Denial | None = None
            if response.status_code in AUTH_STATUSES and self.auth is not None:
                decision = await self._ask_auth(
                    response.status_code, dict(response.headers), headers, attempt
                )
                if decision.retry:
                    emit(http_in_event(response, request_id=rid))
                    if response.content:
                        emit(
                            body_event(
                                response.content,
                                response.status_code,
                                content_type(response),
                                parse=self.parse,
                                request_id=rid,
                            )
                        )
                    attempt += 1
                    headers = {k: v for k, v in headers.items() if k.lower() != "authorization"}
                    headers.update(await self._auth_headers("POST", endpoint))
                    self._emit_post(
                        endpoint,
                        str(endpoint),
                        headers,
                        raw,
                        None,
                        rid,
                        meta=meta,
                        auth_retry=attempt,
                    )
                    continue
            self._answer(emit, response, rid, decision)
            return

    def _answer(
        self, emit: Emit, response: httpx.Response, rid: Any, denial: Denial | None = None
    ) -> None:
        ctype = content_type(response)
        body = response.content
        meta: dict[str, Any] = {"request_id": rid}
        if response.status_code < 300 and body and "json" not in ctype:
            meta["body"] = body_excerpt(body, ctype, 200)  # "Accepted": not worth an event
        self._emit_hops(emit, response, rid)
        emit(http_in_event(response, **meta))
        if response.status_code < 300:
            if body.strip() and "json" in ctype:  # some servers answer in the POST body
                emit(
                    body_event(body, response.status_code, ctype, parse=self.parse, request_id=rid)
                )
            return
        if body:
            emit(body_event(body, response.status_code, ctype, parse=self.parse, request_id=rid))
        excerpt = body_excerpt(body, ctype)
        text = describe_response(response, legacy=True, excerpt=excerpt)
        text = denied_text(text, response.status_code, response.reason_phrase, excerpt, denial)
        if rid is not None:
            emit(failed_request_event(rid, response.status_code, text, body))
        else:
            emit(
                system_note(
                    f"message not accepted: {text}", "error", http_error=response.status_code
                )
            )

    async def _closing(self) -> None:
        if self._scope is not None:
            self._scope.cancel()
        if self._ready is not None:
            self._ready.set()
