"""``proxy --listen 127.0.0.1:PORT``: a Streamable HTTP front for hosts that connect by URL.

Loopback only, and every request's ``Host`` (and ``Origin``, when a browser sends one)
must name the loopback (see ``loopback``): a web page whose name an attacker points at
127.0.0.1 (DNS rebinding) is refused with 421/403 before anything else happens.

Each host session (an ``initialize`` POST without ``Mcp-Session-Id``) gets its own
connection to the server behind (a stdio server started for it, or a session of the HTTP
server) and its own relay, all on the proxy's one wire; the session id is the proxy's.
A POST with requests is answered with an SSE stream that carries their responses (or
JSON, for a host that accepts only JSON); a POST of notifications or responses gets 202;
GET opens the standing stream; DELETE ends the session and shuts its server down. A
session that sees no request for ``idle_timeout`` seconds, with no stream open, ends the
same way (a host that went away without a DELETE leaves no server running): its id then
gets 404, which tells a host that comes back to initialize again. A session's end and
where its server's messages go are ``front_session``'s. A POST without a session that
names 2026-07-28 is served statelessly, on a connection all such requests share
(``front_stateless``); ``replay --serve --listen`` is this front with a replay behind.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
import secrets
import time
from collections.abc import Callable
from typing import Any

import anyio
from anyio.abc import TaskGroup

from inspector.engine.request_errors import first_failure
from inspector.proxy.front_session import FrontSession
from inspector.proxy.front_stateless import (
    NO_SESSION,
    StatelessSession,
    handshake_text,
    new_sid,
    refusal_body,
    request_refusal,
    stateless_version,
)
from inspector.proxy.fronttoken import presented
from inspector.proxy.httpserve import (
    Budget,
    FrontConnection,
    FrontLimits,
    HttpError,
    Request,
    busy,
    read_body,
    read_head,
    respond,
    response_bytes,
)
from inspector.proxy.intercept import Interceptor
from inspector.proxy.loopback import host_allowed, origin_allowed
from inspector.proxy.origin import HOST_ORIGIN
from inspector.proxy.relay import Relay
from inspector.proxy.wire import ProxyWire
from inspector.transports.readsize import read_in_heap_sized_chunks
from inspector.wire import jsonrpc
from inspector.wire.events import Channel, Direction, WireEvent
from inspector.wire.transport import Transport, TransportError

ENDPOINT = "/mcp"
SESSION_HEADER = "Mcp-Session-Id"
HOST_HEADERS = ("content-type", "accept", "mcp-protocol-version", "origin", "user-agent")
IDLE_TIMEOUT = 1800.0  # seconds without a request before a host session is ended
BODY_SHOWN = 300  # characters of a refused POST's body in the note that says so
CLOSE = {"Connection": "close"}


class HttpFront:
    """The listening endpoint and its host sessions."""

    def __init__(
        self,
        wire: ProxyWire,
        listen: tuple[str, int],
        make_back: Callable[[], Transport],
        path: str = ENDPOINT,
        interceptor: Interceptor | None = None,
        idle_timeout: float | None = IDLE_TIMEOUT,
        token: str | None = None,
        limits: FrontLimits | None = None,
    ) -> None:
        """``idle_timeout``: seconds without a request after which a host session ends
        (None or 0: never); ``token``: what a host must present as ``Authorization:
        Bearer`` (None: anyone on the loopback may call)."""
        self.wire = wire
        self.idle_timeout = idle_timeout or None
        self.token = token
        self.limits = limits or FrontLimits()
        self.budget = Budget(self.limits.max_buffer)
        self.connections = 0  # open, served
        self._busy_noted = 0.0  # when a refusal at the connection cap was last noted
        self._busy_count = 0  # ... and how many since
        self.interceptor = interceptor
        self.host, self.port = listen
        self.make_back = make_back
        self.path = path
        self.sessions: dict[str, FrontSession] = {}
        self.latest: FrontSession | None = None
        self.lane: StatelessSession | None = None  # where 2026-07-28 requests go
        self.handshake_only: str | None = None  # why the server behind cannot serve them
        self._numbers = itertools.count(1)
        self._tg: TaskGroup | None = None
        self._server: asyncio.Server | None = None
        self.ready = anyio.Event()

    @property
    def url(self) -> str:
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"http://{host}:{self.port}{self.path}"

    def latest_relay(self) -> Relay | None:
        session = self.latest
        if session is None or session.closed:
            return None
        return session.relay

    async def listen(self) -> None:
        """Bind the port (raises OSError when it cannot be)."""
        loop = asyncio.get_running_loop()
        read_in_heap_sized_chunks()
        self._server = await loop.create_server(
            self._accept, self.host, self.port, start_serving=False
        )
        self.port = self._server.sockets[0].getsockname()[1]
        self.wire.note(f"listening on {self.url} (loopback only)", url=self.url)

    async def serve(self) -> None:
        """Serve until cancelled (after ``listen``)."""
        server = self._server
        assert server is not None
        try:
            async with anyio.create_task_group() as tg:
                self._tg = tg
                if self.idle_timeout is not None:
                    tg.start_soon(self._reap_idle, self.idle_timeout)
                await server.start_serving()
                self.ready.set()
                await anyio.sleep_forever()
        finally:
            self._tg = None
            server.close()

    def _accept(self) -> FrontConnection:
        """A new connection (the event loop asks): a task of its own serves it; past the
        connection cap it is answered 503 at once, its request unread."""
        conn = FrontConnection(asyncio.get_running_loop())
        if self._tg is None:  # not serving any more
            conn.refused = True
        elif self.connections >= self.limits.max_connections:
            conn.refused = True
            why = f"{self.connections} connections are open (--max-connections)"
            self._note_busy(why)
            error = busy(why)
            body = json.dumps({"error": error.message}).encode()
            conn.farewell = response_bytes(503, body, headers={**error.headers, **CLOSE})
        else:
            self.connections += 1
            self._tg.start_soon(self._connection, conn)
        return conn

    def _note_busy(self, why: str) -> None:
        """Say on the wire that connections are refused at the cap: once a second at most
        (a flood must not flood the recording too)."""
        self._busy_count += 1
        now = time.monotonic()
        if now - self._busy_noted >= 1.0:
            count, self._busy_count, self._busy_noted = self._busy_count, 0, now
            self._answered(503, f"{count} new connection(s)", why)

    async def stop(self) -> None:
        """Shut every session's server down (the proxy is ending)."""
        for session in list(self.sessions.values()):
            if session.relay is not None:
                session.relay.stop("the proxy is stopping")
        with anyio.move_on_after(10):
            while self.sessions:
                await anyio.sleep(0.02)

    async def _reap_idle(self, timeout: float) -> None:
        """End the host sessions idle for longer than ``timeout`` (their servers stop), or
        than the limits' ``fresh_timeout`` when they sent nothing after ``initialize``."""
        fresh = min(timeout, self.limits.fresh_timeout)
        while True:
            await anyio.sleep(min(max(fresh / 4, 0.05), 30.0))
            now = time.monotonic()
            for session in list(self.sessions.values()):
                limit = timeout if session.used else fresh
                if session.idle_for(now) > limit:
                    after = "" if session.used else " after initialize"
                    self._end(session, f"no request for {limit:g} s{after}", idle=limit)

    def _end(self, session: FrontSession, why: str, **meta: Any) -> None:
        """End a host session the host left (its server is shut down), saying why."""
        self.wire.note(
            f"host session {session.number}: {why}; ending it (its server is shut down)",
            link=session.number,
            **meta,
        )
        self.sessions.pop(session.sid, None)
        session.host_left()

    def _room_for_a_session(self) -> bool:
        """Below ``--max-sessions``, or made so by ending the session idle longest, when it
        has been idle ``fresh_timeout`` at least (a client that never ends its sessions,
        such as the official Inspector's CLI, must not lock others out for the idle
        timeout; a host that comes back to it gets 404 and initializes again)."""
        if len(self.sessions) < self.limits.max_sessions:
            return True
        now = time.monotonic()
        idlest = max(self.sessions.values(), key=lambda s: s.idle_for(now))
        idle = idlest.idle_for(now)
        if idle < self.limits.fresh_timeout:
            return False
        self._end(idlest, f"idle {idle:.0f} s, the oldest of {len(self.sessions)} (--max-sessions)")
        return True

    # -- one connection ------------------------------------------------------------------

    async def _connection(self, conn: FrontConnection) -> None:
        try:
            first = True
            while True:
                request: Request | None = None
                try:
                    request = await read_head(conn, self.limits.head_timeout, first)
                    first = False
                    if request is None or not await self._handle(request, conn):
                        return
                except HttpError as exc:
                    what = (
                        f"{request.method} {request.target}" if request else "an unreadable request"
                    )
                    self._answered(exc.status, what, exc.message)
                    with contextlib.suppress(Exception):
                        await _error(conn, exc.status, exc.message, {**exc.headers, **CLOSE})
                    return
                except OSError:
                    return  # the host hung up
                finally:
                    if request is not None:
                        self.budget.give(request.held)
                        request.held, request.body = 0, b""
                if not request.keep_alive:
                    return
        finally:
            self.connections -= 1
            conn.close()

    async def _handle(self, request: Request, stream: FrontConnection) -> bool:
        """Answer one request; False when the connection cannot go on (a body was left
        unread). Everything the head can say is checked before a body is read."""
        headers = request.headers
        # a stranger (no loopback Host or Origin, no token) keeps no connection open
        if not host_allowed(headers.get("host"), self.port):
            self._refused(request, "Host")
            await _error(stream, 421, f"Host {headers.get('host')!r} is not this server's", CLOSE)
            return False
        if not origin_allowed(headers.get("origin")):
            self._refused(request, "Origin")
            await _error(stream, 403, f"Origin {headers.get('origin')!r} is not allowed", CLOSE)
            return False
        refusal = self._head_refusal(request)
        if refusal is not None:
            close = request.has_body or refusal[0] == 401
            await self._refuse(request, stream, *refusal, close=close)
            return not close
        await read_body(stream, request, self.budget)
        if request.method == "POST":
            await self._post(request, stream)
        elif request.method == "GET":
            await self._get(request, stream)
        else:
            await self._delete(request, stream)
        return True

    def _head_refusal(self, request: Request) -> tuple[int, str, dict[str, str]] | None:
        """Why the request is refused on its head alone (None: read its body)."""
        headers = request.headers
        if self.token is not None and not presented(headers.get("authorization"), self.token):
            text = (
                "this proxy's HTTP front needs its token: send 'Authorization: Bearer TOKEN' "
                "(`mcp-inspect proxies --token NAME` prints it)"
            )
            return 401, text, {"WWW-Authenticate": 'Bearer realm="mcp-inspect proxy"'}
        if request.path != self.path:
            return 404, f"the MCP endpoint is {self.path}", {}
        if request.method not in ("POST", "GET", "DELETE"):
            return 405, "use POST, GET or DELETE", {"Allow": "POST, GET, DELETE"}
        if request.method == "POST" and "application/json" not in headers.get("content-type", ""):
            return 415, "Content-Type must be application/json", {}
        sid = headers.get(SESSION_HEADER.lower())
        if sid and sid not in self.sessions:
            return 404, "no such session (it ended): initialize again", {}
        if (
            request.method == "POST"
            and not sid
            and stateless_version(request, None) is None  # its own check, after the body
            and not self._room_for_a_session()
        ):
            error = busy(f"{len(self.sessions)} host sessions are open (--max-sessions)", 5)
            return error.status, error.message, error.headers
        return None

    async def _refuse(
        self,
        request: Request,
        stream: FrontConnection,
        status: int,
        text: str,
        headers: dict[str, str] | None = None,
        body: bytes | None = None,
        *,
        close: bool = False,
    ) -> None:
        """Answer ``status`` with ``text`` (or with ``body``, when given), and say so on the
        wire: the request line, a POST's body (what the host sent, though no server will
        see it) and why; ``close``: the connection ends after it (its body unread)."""
        sent_text = request.body.decode("utf-8", "replace")
        sent = (
            f" {sent_text[:BODY_SHOWN]}{'…' if len(sent_text) > BODY_SHOWN else ''}"
            if sent_text
            else ""
        )
        if close:
            headers = {**(headers or {}), **CLOSE}
        if close and request.has_body:
            size = "chunked" if request.chunked else f"{request.length} bytes"
            sent = f" (its body, {size}, not read)"
        self._answered(status, f"{request.method} {request.target}{sent}", text)
        if body is None:
            await _error(stream, status, text, headers)
        else:
            await respond(stream, status, body, headers=headers)

    def _answered(self, status: int, what: str, why: str) -> None:
        """The note that the front answered ``what`` itself, with ``status``."""
        self.wire.note(
            f"answered {status} to {what}: {why}",
            severity="warning",
            http_error=status,
            **HOST_ORIGIN.meta(),
        )

    def _refused(self, request: Request, which: str) -> None:
        self.wire.note(
            f"refused {request.method} {request.target}: {which} "
            f"{request.headers.get(which.lower())!r} is not the loopback (DNS rebinding?)",
            severity="warning",
            **HOST_ORIGIN.meta(),
        )

    def _session(self, request: Request) -> FrontSession | None:
        sid = request.headers.get(SESSION_HEADER.lower())
        session = self.sessions.get(sid) if sid else None
        if session is not None:
            session.last_active = time.monotonic()
        return session

    def _record(
        self, request: Request, session: FrontSession | None, *, defer: bool = False
    ) -> None:
        """The host's request line on the wire; ``defer``: its frame's event follows,
        flushed with it, before the frame goes on."""
        meta: dict[str, Any] = {
            "method": request.method,
            "url": request.target,
            "headers": {k: v for k, v in request.headers.items() if k in HOST_HEADERS},
            "front": True,
            **HOST_ORIGIN.meta(),
        }
        if session is not None:
            meta["link"] = session.number
        raw = f"{request.method} {request.target}".encode()
        self.wire.emit(WireEvent(Direction.OUT, Channel.HTTP, raw, meta=meta), defer=defer)

    async def _post(self, request: Request, stream: FrontConnection) -> None:
        message, error = jsonrpc.decode(request.body)
        if error is not None:
            parse_error = jsonrpc.encode(jsonrpc.error_response(None, jsonrpc.PARSE_ERROR, error))
            await self._refuse(request, stream, 400, f"not JSON: {error}", body=parse_error)
            return
        items = message if isinstance(message, list) else [message]
        opening = any(
            isinstance(m, dict) and jsonrpc.is_request(m) and m.get("method") == "initialize"
            for m in items
        )
        session = self._session(request)
        if request.headers.get(SESSION_HEADER.lower()):
            if session is None:  # it ended while the body came
                await self._refuse(
                    request, stream, 404, "no such session (it ended): initialize again"
                )
                return
            if any(isinstance(m, dict) and jsonrpc.is_request(m) for m in items):
                session.used = True
        elif stateless_version(request, message) is not None:
            # 2026-07-28 (its header or envelope), even an initialize: served statelessly
            await self._stateless(request, stream, message)
            return
        elif opening:
            session = self._open_session()
        else:
            text = f"no {SESSION_HEADER}: send initialize first"
            body = refusal_body(NO_SESSION, f"Bad Request: {text}")
            await self._refuse(request, stream, 400, text, body=body)
            return
        await self._pass_on(request, stream, session, message)

    async def _pass_on(
        self, request: Request, stream: FrontConnection, session: FrontSession, message: Any
    ) -> None:
        """A POST's messages to the session's server; its answer to the host."""
        self._record(request, session, defer=True)
        items = message if isinstance(message, list) else [message]
        answer = session.open_post([m for m in items if isinstance(m, dict)])
        batch = isinstance(message, list)
        frame = _one_line(request.body, message)
        # passed on: the body is the relay's now; its bytes leave the buffer budget while
        # the answer is awaited (a long call must not hold its arguments' share)
        del items
        self.budget.give(request.held)
        request.held, request.body = 0, b""
        await session.deliver(frame, message)  # decoded once: the relay takes it as it is
        del frame, message
        headers = {} if isinstance(session, StatelessSession) else {SESSION_HEADER: session.sid}
        if answer is None:
            await respond(stream, 202, headers=headers)
            return
        accept = request.headers.get("accept", "")
        session.streams += 1
        try:
            sse = "text/event-stream" in accept or "application/json" not in accept
            await answer.serve(stream, headers, sse=sse, batch=batch)
        finally:
            session.streams -= 1
            session.last_active = time.monotonic()
            if isinstance(session, StatelessSession):
                await session.abandoned(answer)

    async def _stateless(self, request: Request, stream: FrontConnection, message: Any) -> None:
        """A 2026-07-28 POST (no session): checked, then passed to the server behind on
        the connection all of them share (see ``front_stateless``)."""
        id_ = message.get("id") if isinstance(message, dict) else None
        if not isinstance(message, dict):
            text = "a 2026-07-28 POST carries one JSON-RPC message (not a batch)"
            body = refusal_body(jsonrpc.INVALID_REQUEST, text)
            await self._refuse(request, stream, 400, text, body=body)
            return
        refusal = request_refusal(request, message)
        if refusal is not None:
            code, text = refusal
            await self._refuse(request, stream, 400, text, body=refusal_body(code, text, id_))
            return
        if self.handshake_only is not None:  # the server behind cannot serve it
            text = handshake_text(self.handshake_only)
            await self._refuse(request, stream, 400, text, body=refusal_body(NO_SESSION, text, id_))
            return
        lane = self._lane(str(stateless_version(request, message)))
        if lane is None:
            error = busy(f"{len(self.sessions)} host sessions are open (--max-sessions)", 5)
            await self._refuse(request, stream, error.status, error.message, error.headers)
            return
        lane.last_active = time.monotonic()
        sent = lane.admit(message)
        if sent is not message:  # an id renamed: the frame is the message as it goes
            request.body = jsonrpc.encode(sent)
        await self._pass_on(request, stream, lane, sent)

    def _lane(self, version: str) -> StatelessSession | None:
        """The connection stateless requests share, started with the first of them (None:
        no room for it under --max-sessions)."""
        lane = self.lane
        if lane is not None and not lane.closed and lane.sid in self.sessions:
            return lane
        if not self._room_for_a_session():
            return None
        lane = StatelessSession(new_sid(), next(self._numbers), self._era_learnt)
        self._start(lane, "2026-07-28 requests without a session, one connection for all")
        assert lane.relay is not None
        lane.relay.back.set_protocol_version(version, stateless=True)
        self.lane = lane
        return lane

    def _era_learnt(self, era: str, why: str) -> None:
        lane = self.lane
        if era == "stateless" or lane is None:
            self.wire.note(f"the server behind speaks 2026-07-28 ({why})", era=era)
            return
        self.handshake_only = why
        self._end(
            lane,
            f"the server behind speaks the handshake era ({why}); 2026-07-28 requests "
            "are answered 400 from now on, so hosts fall back to initialize",
            era=era,
        )

    def _open_session(self) -> FrontSession:
        session = FrontSession(secrets.token_hex(16), next(self._numbers))
        self._start(session)
        self.latest = session
        return session

    def _start(self, session: FrontSession, what: str = "") -> None:
        """A host session's relay and server, started."""
        assert self._tg is not None
        relay = Relay(self.wire, self.make_back(), session, self.interceptor)
        relay.link = session.number
        session.relay = relay
        self.sessions[session.sid] = session
        said = f": {what}" if what else ""
        self.wire.note(f"host session {session.number} opened{said}", link=session.number)
        self._tg.start_soon(self._run_session, session)

    async def _run_session(self, session: FrontSession) -> None:
        assert session.relay is not None
        try:
            await session.relay.run()
        except Exception as exc:
            failure = first_failure(exc)
            if not isinstance(failure, TransportError):
                raise
            text = f"could not start the server: {failure}"
            self.wire.note(text, severity="error", link=session.number)
            session.fail_pending(text)
        finally:
            await session.close()
            self.sessions.pop(session.sid, None)
            self.wire.note(f"host session {session.number} ended", link=session.number)

    async def _get(self, request: Request, stream: FrontConnection) -> None:
        if "text/event-stream" not in request.headers.get("accept", ""):
            await self._refuse(
                request, stream, 406, "GET opens an event stream: Accept: text/event-stream"
            )
            return
        session = self._session(request)
        if session is None:
            status = 404 if request.headers.get("mcp-session-id") else 400
            text = "no session: GET opens a session's stream (initialize first)"
            await self._refuse(request, stream, status, text, body=refusal_body(NO_SESSION, text))
            return
        if session.get_stream is not None and not session.get_stream.done:
            await self._refuse(
                request, stream, 409, "a GET stream is open for this session already"
            )
            return
        self._record(request, session)
        standing = session.open_get()
        session.streams += 1
        try:
            await standing.serve(stream, {SESSION_HEADER: session.sid}, sse=True)
        finally:
            standing.finish()
            session.streams -= 1
            session.last_active = time.monotonic()

    async def _delete(self, request: Request, stream: FrontConnection) -> None:
        session = self._session(request)
        if session is None:
            await self._refuse(request, stream, 404, "no such session")
            return
        self._record(request, session)
        self.sessions.pop(session.sid, None)
        session.host_left()
        await respond(stream, 200, headers={SESSION_HEADER: session.sid})


def _one_line(body: bytes, message: Any) -> bytes:
    """The body as one frame: as it came, unless it spans lines (a stdio server reads a
    line a message), then compacted."""
    frame = body.strip()
    if b"\n" in frame or b"\r" in frame:
        return jsonrpc.encode(message)
    return frame


async def _error(
    stream: FrontConnection, status: int, text: str, headers: dict[str, str] | None = None
) -> None:
    body = json.dumps({"error": text}).encode()
    await respond(stream, status, body, headers=headers)
