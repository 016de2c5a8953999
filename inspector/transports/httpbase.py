"""What the two HTTP client transports (``http`` and ``sse``) share, beyond wire helpers.

One endpoint URL, its headers and client, the host they report to, the auth hook's
headers and answers, cancels posted in the background (a close lets them go out, briefly,
before it ends the client), and the closing itself. The protocols differ; this does not.
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass
from typing import Any, TypeVar

import anyio
import httpx
from anyio.abc import TaskGroup

from inspector.transports.authhook import AuthHook, Denial, denied_text
from inspector.transports.http11 import Http11Transport, lean_mounts
from inspector.transports.httpwire import (
    body_event,
    body_excerpt,
    check_url,
    content_type,
    flush_cancels,
    http_in_event,
    http_out_event,
    read_capped,
    redirect_hooks,
    redirect_target,
    tls_context,
)
from inspector.transports.workers import Workers
from inspector.wire.events import Channel, Direction, WireEvent
from inspector.wire.jsonrpc import make_event
from inspector.wire.transport import (
    ConnectionLost,
    Emit,
    FrameMeta,
    Transport,
    TransportHost,
    with_meta,
)

HEADER_SETS_KEPT = 256  # distinct request header sets (and body lengths) kept built

A = TypeVar("A")


@dataclass(slots=True)
class Denied:
    """A 401/403 that an auth hook may answer (the status and body are already events)."""

    status: int
    headers: dict[str, str]  # the response's
    sent: dict[str, str]  # the request's
    body: bytes
    text: str  # the failure's message if the hook does not retry
    reason: str = ""  # the status line's reason phrase
    excerpt: str = ""  # what the body said, in short
    decision: Denial | None = None  # the hook's answer, once asked

    @classmethod
    def of(cls, response: httpx.Response, sent: dict[str, str], body: bytes, text: str) -> Denied:
        return cls(
            response.status_code,
            dict(response.headers),
            sent,
            body,
            text,
            response.reason_phrase,
            body_excerpt(body, content_type(response)),
        )

    def failure(self) -> str:
        """The message of a denial the hook did not resolve (its reason, when it gave one)."""
        return denied_text(self.text, self.status, self.reason, self.excerpt, self.decision)


class HttpClientTransport(Transport):
    """An HTTP transport's client, host, auth hook, background cancels and close."""

    def __init__(
        self,
        url: str,
        headers: dict[str, str] | None,
        timeout: float,
        verify: bool | str,
        *,
        follow_redirects: bool,
        auth: AuthHook | None,
    ) -> None:
        self.url = url
        self.headers = dict(headers or {})
        self.timeout = timeout
        self.verify = verify
        self.follow_redirects = follow_redirects  # to another origin (same origin: always)
        self.auth = auth  # supplies Authorization, answers 401/403 (transports.authhook)
        self._url = httpx.URL("http://unstarted.invalid/")  # parsed and checked in start()
        self._host: TransportHost | None = None
        self._tg: TaskGroup | None = None
        self._workers: Workers | None = None  # the tasks requests' exchanges run on
        self._client: httpx.AsyncClient | None = None
        self._lean: Http11Transport | None = None  # the client's transport for http://
        self._timeouts: dict[str, float | None] = {}
        self._default_headers: list[tuple[str, str]] = []  # the client's own
        self._header_sets: dict[tuple[Any, ...], httpx.Headers] = {}
        self._scopes: set[anyio.CancelScope] = set()  # exchanges a close cancels
        self._cancels: set[anyio.Event] = set()  # cancels being posted in the background
        self._closed = False
        self._lost = False

    @property
    def target(self) -> str:
        return self.url

    def target_info(self) -> dict[str, Any]:
        return {
            "transport": self.kind,
            "target": self.url,
            "url": self.url,
            **self._target_details(),
            "header_names": sorted(self.headers),
        }

    def _target_details(self) -> dict[str, Any]:
        """What ``target_info`` adds for this transport (before the header names)."""
        return {}

    def _start_client(
        self, host: TransportHost, task_group: TaskGroup, timeout: httpx.Timeout
    ) -> None:
        """Check the URL, attach the host and the auth hook, make the client."""
        self._url = check_url(self.url)
        self._host = host
        self._tg = task_group
        self._workers = Workers(task_group)
        if self.auth is not None:
            self.auth.attach(self._emit)
        mounts = lean_mounts()
        lean = mounts.get("http://")
        self._lean = lean if isinstance(lean, Http11Transport) else None
        self._timeouts = timeout.as_dict()
        self._client = httpx.AsyncClient(
            timeout=timeout,
            verify=tls_context(self.verify),
            follow_redirects=True,
            event_hooks=redirect_hooks(self._url, self.follow_redirects),
            mounts=mounts,
        )
        self._default_headers = [
            (name.decode("latin-1"), value.decode("latin-1"))
            for name, value in self._client.headers.raw
        ]

    # ------------------------------------------------------------ posting

    @contextlib.asynccontextmanager
    async def _streamed_post(
        self, url: httpx.URL, content: bytes, headers: dict[str, str]
    ) -> AsyncIterator[httpx.Response]:
        """``client.stream("POST", ...)``, the way ``_open_post`` sends it."""
        response = await self._open_post(url, content, headers)
        try:
            yield response
        finally:
            await response.aclose()

    async def _open_post(
        self, url: httpx.URL, content: bytes, headers: dict[str, str]
    ) -> httpx.Response:
        """What ``client.stream("POST", ...)`` yields (the caller closes it): the same
        request bytes, the same response, the same hooks and redirects; over plain http
        with no cookie held, the request goes straight to the lean transport. The client's
        way (its request building, auth and redirect loops, a cookie jar parse of every
        response) was about a tenth of the proxy's CPU per relayed request; a context
        manager around it, another 2 %."""
        client = self._client
        assert client is not None
        lean = self._lean
        if lean is None or url.scheme != "http" or len(client.cookies.jar):
            request = client.build_request("POST", url, content=content, headers=headers)
            return await client.send(request, stream=True)
        return await self._direct_post(client, lean, url, content, headers)

    def _request_headers(
        self, url: httpx.URL, headers: dict[str, str], length: int
    ) -> httpx.Headers:
        """The headers httpx's client would send, in its order: Host, its defaults that
        ours do not replace, ours, Content-Length. Built once a set and body length (a
        session's requests repeat them; building httpx headers, or setting one, is most
        of the cost of a request object)."""
        key = (url.netloc, tuple(headers.items()), length)
        known = self._header_sets.get(key)
        if known is None:
            ours = {name.lower() for name in headers}
            merged = [item for item in self._default_headers if item[0].lower() not in ours]
            merged.extend(headers.items())
            if "host" not in ours:
                merged.insert(0, ("Host", url.netloc.decode("ascii")))
            if len(self._header_sets) >= HEADER_SETS_KEPT:
                self._header_sets.clear()
            known = httpx.Headers(merged)
            if "content-length" not in known:
                known["Content-Length"] = str(length)
            self._header_sets[key] = known
        sent = httpx.Headers(known)  # a copy: a request hook may change it
        sent.encoding = known.encoding  # found once a set (httpx decodes each header for it)
        return sent

    async def _direct_post(
        self,
        client: httpx.AsyncClient,
        lean: Http11Transport,
        url: httpx.URL,
        content: bytes,
        headers: dict[str, str],
    ) -> httpx.Response:
        request = httpx.Request(
            "POST", url, stream=httpx.ByteStream(content), extensions={"timeout": self._timeouts}
        )
        request.headers = self._request_headers(url, headers, len(content))  # made: not copied
        request.read()
        for hook in client.event_hooks["request"]:
            await hook(request)
        response = await lean.handle_async_request(request)
        response.request = request
        try:
            if "set-cookie" in response.headers:
                client.cookies.extract_cookies(response)
            for hook in client.event_hooks["response"]:
                await hook(response)  # a redirect to another origin is refused here
            if not response.has_redirect_location:
                return response
            await response.aread()  # a redirect: the client follows it from here, as it would
        except BaseException:
            await response.aclose()
            raise
        # 301/302 turn a POST into a GET (as browsers and httpx do), 303 always; 307/308 not
        keeps_method = response.status_code in (307, 308)
        follow = client.build_request(
            "POST" if keeps_method else "GET",
            redirect_target(response),
            content=content if keeps_method else None,
            headers=headers,
        )
        final = await client.send(follow, stream=True)
        final.history = [response, *final.history]
        return final

    # ------------------------------------------------------------ auth

    async def _auth_headers(
        self, method: str = "POST", url: httpx.URL | str | None = None
    ) -> dict[str, str]:
        if self.auth is None:
            return {}
        return await self.auth.headers(method=method, url=str(url or self._url))

    def _shown(self, headers: dict[str, str]) -> dict[str, str]:
        """Headers as an event shows them: credentials the auth hook added are masked."""
        return self.auth.shown(headers) if self.auth is not None else headers

    async def _ask_auth(
        self, status: int, headers: dict[str, str], sent: dict[str, str], attempt: int
    ) -> Denial:
        assert self.auth is not None
        try:
            return await self.auth.on_denied(status, headers, sent, attempt)
        except Exception as exc:  # a bug in the hook fails the request, not the session
            return Denial(False, f"authorization failed: {type(exc).__name__}: {exc}")

    async def _send_handling_auth(self, send: Callable[[int], Awaitable[A | Denied]]) -> A | Denied:
        """``send(attempt)`` until it is not denied, or the auth hook will not have it sent
        again (httpx's ``_send_handling_auth`` shape): a 401/403 ``send`` returns as
        ``Denied`` goes to the hook, and while it says retry, ``send`` runs again with the
        next attempt number (its request sent afresh, with new headers). Returns the last
        answer; a ``Denied`` carries the hook's ``decision``."""
        attempt = 0
        while True:
            answer = await send(attempt)
            if not isinstance(answer, Denied):
                return answer
            answer.decision = await self._ask_auth(
                answer.status, answer.headers, answer.sent, attempt
            )
            if not answer.decision.retry:
                return answer
            attempt += 1

    # ------------------------------------------------------------ events

    def _emit(self, event: WireEvent) -> None:
        if self._host is not None:
            self._host.emit(event)

    def _emit_post(
        self,
        url: httpx.URL,
        shown_url: str,
        headers: dict[str, str],
        raw: bytes,
        message: Any,
        rid: Any,
        *,
        meta: FrameMeta | None = None,
        **retry: Any,
    ) -> None:
        """A POST's request line and body as events (the frame's own: the sender's ``meta``
        on both); ``shown_url`` goes in the body's meta, ``retry`` (``auth_retry``) in
        both."""
        shown = self._shown(headers)
        self._emit(with_meta(http_out_event("POST", url, shown, request_id=rid, **retry), meta))
        body = make_event(
            Direction.OUT, Channel.BODY, raw, meta={"url": shown_url, **retry}, message=message
        )
        self._emit(with_meta(body, meta))

    def _emit_status(self, emit: Emit, response: httpx.Response, rid: Any, **meta: Any) -> None:
        """A response's status (after the redirects on its way) as events."""
        self._emit_hops(emit, response, rid, **meta)
        emit(http_in_event(response, request_id=rid, **meta))

    async def _emit_body(self, emit: Emit, response: httpx.Response, rid: Any) -> bytes:
        """A response's body, capped, as an event (none when empty); returns it."""
        body = await read_capped(response)
        if body:
            status, ctype = response.status_code, content_type(response)
            emit(body_event(body, status, ctype, parse=self.parse, request_id=rid))
        return body

    def _emit_hops(self, emit: Emit, response: httpx.Response, rid: Any, **meta: Any) -> None:
        """The redirects followed on the way to ``response``, one status event each."""
        for hop in response.history:
            emit(http_in_event(hop, request_id=rid, redirect=hop.headers.get("location"), **meta))

    def _lose(self, lost: ConnectionLost) -> None:
        if not self._lost and not self._closed:
            self._lost = True
            if self._host is not None:
                self._host.connection_lost(lost)

    # ------------------------------------------------------------ cancels and closing

    async def _post_in_background(self, post: Callable[[anyio.Event], Awaitable[None]]) -> None:
        """Run ``post(sent)`` for a cancel; until ``sent`` is set (its body written) or the
        post ends, a close waits for it, briefly (``flush_cancels``)."""
        sent = anyio.Event()
        self._cancels.add(sent)
        try:
            await post(sent)
        finally:
            sent.set()
            self._cancels.discard(sent)

    async def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        if self._workers is not None:
            self._workers.close()
        await flush_cancels(self._cancels)
        for scope in list(self._scopes):
            scope.cancel()
        await self._closing()
        if self._client is not None:
            await self._client.aclose()
        if not self._lost:
            self._lost = True
            if self._host is not None:
                self._host.connection_lost(ConnectionLost("closed", expected=True))

    async def _closing(self) -> None:
        """The transport's own part of a close: after its exchanges are cancelled, before
        the client closes."""
