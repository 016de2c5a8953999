"""The Streamable HTTP transport's SSE streams: read them, and keep them going.

A request's response stream is read until its response arrives (then briefly on, to its
end); when it ends first, it is resumed with a GET carrying ``Last-Event-ID`` while that
brings something new. The standing GET stream is reopened while it makes progress (the
2025-11-25 polling pattern) and given up after idle reopens. Waits between tries follow
the server's ``retry``. Opening a GET is an HTTP exchange of the transport's (headers,
auth, the session): it comes in as ``reopen``, and reads what it opened with
``read_stream``. Whether a stream may be resumed at all (2026-07-28 streams may not) is
the transport's call too. Event vocabulary: ``inspector.transports.http``.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass
from typing import Any

import anyio
import httpx

from inspector.errors import InspectorError
from inspector.transports.httpwire import (
    describe_network_error,
    failed_request_event,
    has_response,
    sse_wire_event,
    system_note,
)
from inspector.transports.sse_parser import SseError, SseEvent, SseParser
from inspector.wire.events import WireEvent
from inspector.wire.jsonrpc import decode
from inspector.wire.transport import Decode

DEFAULT_RETRY_MS = 1000
MIN_RETRY_MS = 50  # a floor against busy loops; never shortens a server's ``retry``
DRAIN_TIMEOUT = 0.5  # how long to read a response stream on after its response arrived

Emit = Callable[[WireEvent], None]


@dataclass(slots=True)
class Stream:
    """Resumption state of one SSE stream (2025-11-25 polling)."""

    name: str
    parse: Decode = decode  # how its messages are parsed (the transport's ``parse``)
    last_id: str | None = None
    retry_ms: int | None = None
    events: int = 0

    def delay(self, attempts: int) -> float:
        """Seconds to wait before reconnecting: the server's ``retry`` when given (never
        less), else a default that grows with idle attempts."""
        if self.retry_ms is not None:
            return max(self.retry_ms, MIN_RETRY_MS) / 1000
        return DEFAULT_RETRY_MS * max(attempts, 1) / 1000


class Terminal(InspectorError):
    """A stream cannot continue; the reason was already reported."""


# ``reopen(stream, rid)``: GET the stream again (resuming from its last event id) and read
# it; True once the response to ``rid`` arrived; raises ``Terminal`` when it cannot.
Reopen = Callable[[Stream, Any], Awaitable[bool]]


async def resume_response(
    stream: Stream, rid: Any, status: int, emit: Emit, reopen: Reopen, *, max_attempts: int
) -> None:
    """A request's stream ended before its response (``status``: the POST's): resume it
    with GET + Last-Event-ID until the response, while resuming brings something new."""
    attempts = 0
    while True:
        if stream.last_id is None:
            emit(
                failed_request_event(
                    rid,
                    status,
                    "the server closed the response stream before "
                    "sending the response (no event id to resume from)",
                )
            )
            return
        if attempts >= max_attempts:
            emit(
                failed_request_event(
                    rid,
                    status,
                    f"the response stream closed before the response "
                    f"and {attempts} attempts to resume it brought nothing new; giving up",
                )
            )
            return
        attempts += 1
        await anyio.sleep(stream.delay(attempts))
        before = stream.events
        try:
            if await reopen(stream, rid):
                return
        except Terminal:
            return
        if stream.events > before:
            attempts = 0


async def keep_get_stream(
    emit: Emit, reopen: Reopen, *, max_attempts: int, closed: Callable[[], bool]
) -> None:
    """The optional GET stream for server-initiated messages; reopened while it makes
    progress, given up after idle reconnects or when ``closed()``."""
    stream = Stream("get")
    attempts = 0
    while not closed():
        before = stream.events
        try:
            await reopen(stream, None)
        except Terminal:
            return
        attempts = 0 if stream.events > before else attempts + 1
        if attempts >= max_attempts:
            emit(
                system_note(
                    f"the GET stream closed {attempts} times without sending anything; not "
                    "reopening it (server messages can still arrive on response streams)"
                )
            )
            return
        await anyio.sleep(stream.delay(attempts))


async def read_stream(
    response: httpx.Response, stream: Stream, rid: Any, url: httpx.URL, emit: Emit
) -> bool:
    """Emit every event of an SSE body; True once the response to ``rid`` arrived."""
    parser = SseParser()
    chunks = response.aiter_bytes()
    try:
        async for chunk in chunks:
            done = False
            for ev in parser.feed(chunk):
                done = _on_event(ev, stream, rid, emit) or done
            if done:
                await _drain(chunks, parser, stream, emit)
                return True
    except (httpx.HTTPError, SseError) as exc:
        emit(
            system_note(
                f"{stream.name} stream broke: {describe_network_error(exc, url)}",
                "warning",
                stream=stream.name,
            )
        )
    tail = parser.close()
    if tail is not None:
        return _on_event(tail, stream, rid, emit)
    return False


async def _drain(
    chunks: AsyncIterator[bytes], parser: SseParser, stream: Stream, emit: Emit
) -> None:
    """After the response the server SHOULD end the stream: reading on to its end
    (briefly) shows anything that follows and lets the connection be reused."""
    with anyio.move_on_after(DRAIN_TIMEOUT):
        try:
            async for chunk in chunks:
                for ev in parser.feed(chunk):
                    _on_event(ev, stream, None, emit)
        except (httpx.HTTPError, SseError):
            pass  # the response is in; a broken tail changes nothing


def _on_event(ev: SseEvent, stream: Stream, rid: Any, emit: Emit) -> bool:
    """Emit one SSE block and note its cursor; True when it holds the response to ``rid``."""
    stream.events += 1
    if ev.retry is not None:
        stream.retry_ms = ev.retry
    if ev.id is not None and ev.complete:
        stream.last_id = ev.id or None
    event = sse_wire_event(ev, stream.name, stream.parse)
    emit(event)
    return rid is not None and event.error is None and has_response(event.message, rid)
