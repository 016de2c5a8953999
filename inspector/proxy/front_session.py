"""One host session on the proxy's HTTP front: the host end of its relay, and the
response streams its server's messages are written to.

Where the server's own messages go: a response to the POST that asked; a message that
an HTTP server sent on a request's stream, or a progress notification with a request's
token, to that request's stream; anything else to the GET stream, or the oldest open
POST stream, or (none open) it waits for the next stream.
"""

from __future__ import annotations

import asyncio
import contextlib
import math
import sys
import time
from collections.abc import AsyncIterator, Callable
from typing import Any

import anyio

from inspector.proxy.httpserve import ChunkedResponse, FrontConnection, response_bytes, sse_event
from inspector.proxy.relay import Relay
from inspector.wire import jsonrpc
from inspector.wire.events import WireEvent

HEAD_WAIT = 0.05  # seconds a POST's SSE head waits to go out with the answer
BACKLOG_MAX = 16 << 20  # bytes of server messages a session keeps for a stream to come
UNREAD_MAX = 16 << 20  # bytes written to a host's stream that it has not read: it is gone


class OutStream:
    """One response stream to the host: a POST's (until its requests are answered) or the
    standing GET stream. Messages are written to the host's connection as they are put,
    from the task that puts them; until the handler attaches the connection (and says SSE
    or JSON), they wait here."""

    def __init__(
        self,
        waiting: set[str | int] | None,
        on_stuck: Callable[[int], None] | None = None,
        status_of: Callable[[bytes], int] | None = None,
        head_wait: float = HEAD_WAIT,
    ) -> None:
        """``status_of``: the HTTP status of an answer that comes before the head went out
        (a 2026-07-28 error is a 400 or 404 with the error as its JSON body, not an SSE
        stream); ``head_wait``: how long the SSE head waits for it."""
        self.waiting = waiting  # None: the GET stream, never done by itself
        self.on_stuck = on_stuck  # told the bytes, when the host stopped reading
        self.status_of = status_of
        self.head_wait = head_wait
        self.eof_ends = False  # the host ending its side ends the stream (2026-07-28)
        self._head_out = False  # the SSE head was written
        self._lone: bytes | None = None  # the one message put, while it is the only one
        self._puts = 0
        self.done = False
        self._conn: FrontConnection | None = None
        self._sse = True
        self._batch = False
        self._headers: dict[str, str] = {}
        self._items: list[bytes] = []  # before the connection is attached, or JSON answers
        self._out: list[bytes] = []  # SSE bytes not yet written
        self._ended: asyncio.Future[None] | None = None
        self._head_timer: asyncio.TimerHandle | None = None  # the SSE head, held a moment

    def put(self, raw: bytes, *, more: bool = False) -> None:
        """One message for the host; ``more``: another write follows at once (one write)."""
        if self.done:
            return
        self._puts += 1
        self._lone = raw if self._puts == 1 else None
        if self._conn is None or not self._sse:
            self._items.append(raw)
            return
        self._out.append(ChunkedResponse.chunk(sse_event(raw)))
        if not more:
            self._flush()

    def answered(self, key: str | int) -> None:
        if self.waiting is not None:
            self.waiting.discard(key)
            if not self.waiting:
                self.finish()
                return
        self._flush()

    def finish(self) -> None:
        if self.done:
            return
        self.done = True
        if self._conn is not None:
            if self._answer_alone():
                pass
            elif self._sse:
                self._out.append(ChunkedResponse.END)
                self._flush()
            else:
                self._conn.write_now(self._json_response())
        if self._ended is not None and not self._ended.done():
            self._ended.set_result(None)

    async def serve(
        self, conn: FrontConnection, headers: dict[str, str], *, sse: bool, batch: bool = False
    ) -> None:
        """Answer on ``conn`` (SSE, or one JSON body) until the stream is done or the host
        has gone; what was put before goes in the first write."""
        self._conn, self._sse, self._batch, self._headers = conn, sse, batch, headers
        self._ended = conn.loop.create_future()
        # the GET stream ends when the host ends its side; a POST's answer still goes to a
        # host that only half-closed after sending it
        # (a 2026-07-28 request's stream: its end is the request's cancellation, at once)
        gone = conn.on_lost if self.waiting is not None and not self.eof_ends else conn.on_eof
        gone.append(self.finish)
        if self.done and self._answer_alone():
            pass
        elif sse:
            self._out.append(
                ChunkedResponse.head(
                    200,
                    {**headers, "Content-Type": "text/event-stream", "Cache-Control": "no-cache"},
                )
            )
            pending, self._items = self._items, []
            self._out.extend(ChunkedResponse.chunk(sse_event(raw)) for raw in pending)
            if self.done:
                self._out.append(ChunkedResponse.END)
            if pending or self.done or self.waiting is None:
                self._flush()
            else:
                # the head waits a moment for the answer: a quick call is then one write
                # (head, event, end) and one read for the host, not two; a slow one gets
                # its head after HEAD_WAIT all the same (a host may time its wait for it)
                self._head_timer = conn.loop.call_later(self.head_wait, self._flush)
        elif self.done:
            conn.write_now(self._json_response())
        try:
            if not self.done:
                await self._ended
            await conn.drain(None)
        finally:
            with contextlib.suppress(ValueError):
                gone.remove(self.finish)

    def _answer_alone(self) -> bool:
        """The stream ended with one message and no head out yet: when ``status_of`` says
        it is an error status, it goes as one JSON response with that status (True)."""
        raw, conn = self._lone, self._conn
        if self._head_out or raw is None or self.status_of is None or conn is None:
            return False
        status = self.status_of(raw)
        if status == 200:
            return False
        if self._head_timer is not None:
            self._head_timer.cancel()
            self._head_timer = None
        self._out.clear()
        self._items.clear()
        self._head_out = True
        conn.write_now(response_bytes(status, raw.strip(), headers=self._headers))
        if self._ended is not None and not self._ended.done():
            self._ended.set_result(None)
        return True

    def _flush(self) -> None:
        if self._head_timer is not None:
            self._head_timer.cancel()
            self._head_timer = None
        if self._conn is not None and self._out:
            self._head_out = True
            data = b"".join(self._out)
            self._out.clear()
            self._conn.write_now(data)
            transport = self._conn.transport
            waiting = transport.get_write_buffer_size() if transport is not None else 0
            if waiting > UNREAD_MAX and transport is not None:
                # the host does not read: what it left unread is let go with its connection
                transport.abort()
                if self.on_stuck is not None:
                    self.on_stuck(waiting)

    def _json_response(self) -> bytes:
        answers, self._items = self._items, []
        if self._batch or len(answers) != 1:
            body = b"[" + b",".join(a.strip() for a in answers) + b"]"
        else:
            body = answers[0].strip()
        return response_bytes(200, body, headers=self._headers)


class FrontSession:
    """One host session on the HTTP front: the host end of its relay."""

    kind = "http"

    def __init__(self, sid: str, number: int) -> None:
        self.sid = sid
        self.number = number
        self.relay: Relay | None = None
        self.pending: dict[str | int, OutStream] = {}  # the host's request id -> its stream
        self.tokens: dict[str | int, OutStream] = {}  # progress token -> its request's stream
        self.get_stream: OutStream | None = None
        self.backlog: list[bytes] = []  # server messages waiting for a stream
        self._backlog_bytes = 0
        self._dropped = 0  # messages let go from a full backlog
        self.closed = False
        self.last_active = time.monotonic()
        self.streams = 0  # response streams open to the host (a POST's, the GET's)
        self.used = False  # the host sent a request after initialize (else it ends sooner)
        self.unsent = 0  # server lines not JSON, kept from the host
        self._frames, self._frames_out = anyio.create_memory_object_stream[bytes](math.inf)
        self._queued = 0  # frames pushed that the relay has not begun to pass on
        self._passing = False  # a frame is on its way (passed by the pump, or directly)
        self._idle: asyncio.Future[None] | None = None  # the pump waits for a direct pass

    def idle_for(self, now: float) -> float:
        """Seconds since the host last did anything (0 while a stream is open)."""
        return 0.0 if self.streams else now - self.last_active

    # -- the relay's side ----------------------------------------------------------------

    async def frames(self) -> AsyncIterator[tuple[bytes, bool]]:
        async for raw in self._frames_out:
            while self._passing:  # a frame passed on directly is still on its way
                self._idle = asyncio.get_running_loop().create_future()
                await self._idle
            self._queued -= 1
            self._passing = True
            try:
                yield raw, True
            finally:
                self._passing = False

    def send(self, raw: bytes, event: WireEvent) -> None:
        message = event.message if raw is event.raw else jsonrpc.decode(raw)[0]
        if not isinstance(message, dict | list):
            self._not_sent()
            return
        first = message[0] if isinstance(message, list) and message else message
        if isinstance(first, dict) and jsonrpc.is_response(first):
            key = jsonrpc.id_key(first.get("id"))
            stream = self.pending.pop(key, None) if key is not None else None
            if stream is not None and key is not None:
                stream.put(raw, more=True)  # the answer and the stream's end: one write
                stream.answered(key)
                for item in message if isinstance(message, list) else []:
                    other = jsonrpc.id_key(item.get("id")) if isinstance(item, dict) else None
                    if other is not None:
                        self.pending.pop(other, None)
                        stream.answered(other)
                self._forget_tokens()
                return
        stream = self._stream_for(event, message)
        if stream is None:
            self._wait(raw)
        else:
            stream.put(raw)

    def _wait(self, raw: bytes) -> None:
        """A message that waits for the host's next stream; past ``BACKLOG_MAX`` bytes the
        oldest are let go (each is recorded: a host that never opens a stream must not
        make the proxy hold a chatty server's every message)."""
        self.backlog.append(raw)
        self._backlog_bytes += len(raw)
        dropped = 0
        while self._backlog_bytes > BACKLOG_MAX and len(self.backlog) > 1:
            self._backlog_bytes -= len(self.backlog.pop(0))
            dropped += 1
        if dropped and not self._dropped and self.relay is not None:
            self.relay.wire.note(
                f"host session {self.number}: more than {BACKLOG_MAX >> 20} MB of server "
                "messages wait for a stream the host has not opened; the oldest are not "
                "sent (each is recorded)",
                severity="warning",
                link=self.number,
            )
        self._dropped += dropped

    def _stuck(self, waiting: int) -> None:
        if self.relay is not None:
            self.relay.wire.note(
                f"host session {self.number}: the host left {waiting} bytes of a response "
                f"stream unread (more than {UNREAD_MAX >> 20} MB); its connection is closed",
                severity="warning",
                link=self.number,
            )

    def _not_sent(self) -> None:
        """A server line that is not JSON (a banner, a debugging print, a blank line): on
        the wire, recorded and shown, but no message for an HTTP host, whose client could
        not parse it. Said once a session (a chatty server would flood the notes)."""
        if self.unsent == 0 and self.relay is not None:
            self.relay.wire.note(
                f"host session {self.number}: a server line that is not JSON is not sent "
                "to the HTTP host (nor any after it; each is recorded)",
                severity="warning",
                link=self.number,
            )
        self.unsent += 1

    def _stream_for(self, event: WireEvent, message: Any) -> OutStream | None:
        name = str(event.meta.get("stream", ""))
        if name.startswith("post:"):  # an HTTP server sent it on that request's stream
            for key, waiting in self.pending.items():
                if str(key) == name[5:]:
                    return waiting
        if isinstance(message, dict) and message.get("method") == "notifications/progress":
            params = message.get("params")
            token = params.get("progressToken") if isinstance(params, dict) else None
            token_key = jsonrpc.id_key(token)
            holder = self.tokens.get(token_key) if token_key is not None else None
            if holder is not None and not holder.done:
                return holder
        if self.get_stream is not None and not self.get_stream.done:
            return self.get_stream
        return next((s for s in self.pending.values() if not s.done), None)

    def _forget_tokens(self) -> None:
        self.tokens = {k: s for k, s in self.tokens.items() if not s.done}

    def stderr(self, line: bytes) -> None:
        with contextlib.suppress(OSError, ValueError):
            sys.stderr.buffer.write(line + b"\n")
            sys.stderr.buffer.flush()

    async def close(self) -> None:
        """The relay ended: every stream ends (a request still waiting gets no answer)."""
        self.closed = True
        for stream in {*self.pending.values(), *([self.get_stream] if self.get_stream else [])}:
            stream.finish()
        self.pending.clear()

    # -- the host's side -----------------------------------------------------------------

    def push(self, raw: bytes) -> None:
        self._queued += 1
        self._frames.send_nowait(raw)

    async def deliver(self, raw: bytes, message: Any = None) -> None:
        """A host frame to the relay: passed on from this task when nothing is queued or on
        its way (one task hop less a request), else queued behind the others, in order;
        ``message``: ``raw`` decoded, when the front has done it (not decoded again)."""
        relay = self.relay
        if (
            relay is None
            or not relay.pumping
            or relay.done.is_set()
            or self._passing
            or self._queued
        ):
            self.push(raw)
            return
        self._passing = True
        try:
            await relay.host_frame(raw, message)
        finally:
            self._passing = False
            idle = self._idle
            if idle is not None and not idle.done():
                idle.set_result(None)

    def host_left(self) -> None:
        """DELETE: the relay sees the end of the host's frames and shuts the server down."""
        self._frames.close()

    def open_post(self, items: list[Any]) -> OutStream | None:
        """The stream for a POST's requests (None when it holds none)."""
        ids = {
            k
            for m in items
            if jsonrpc.is_request(m) and (k := jsonrpc.id_key(m.get("id"))) is not None
        }
        if not ids:
            return None
        stream = OutStream(set(ids), self._stuck)
        for key in ids:
            self.pending[key] = stream
        for item in items:
            params = item.get("params") if isinstance(item, dict) else None
            meta = params.get("_meta") if isinstance(params, dict) else None
            token = jsonrpc.id_key(meta.get("progressToken")) if isinstance(meta, dict) else None
            if token is not None:
                self.tokens[token] = stream
        self._flush_backlog(stream)
        return stream

    def open_get(self) -> OutStream:
        self.get_stream = OutStream(None, self._stuck)
        self._flush_backlog(self.get_stream)
        return self.get_stream

    def _flush_backlog(self, stream: OutStream) -> None:
        for raw in self.backlog:
            stream.put(raw)
        self.backlog.clear()
        self._backlog_bytes = 0

    def fail_pending(self, text: str) -> None:
        """The server could not be reached: each waiting request gets an error answer."""
        for key, stream in list(self.pending.items()):
            stream.put(jsonrpc.encode(jsonrpc.error_response(key, jsonrpc.CONNECTION_CLOSED, text)))
            stream.answered(key)
        self.pending.clear()
