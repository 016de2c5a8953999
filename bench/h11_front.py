"""``mcp-inspect proxy`` with its HTTP front parsing requests with h11 instead of its own
parser: the other side of the A/B in ``bench/proxy_overhead.py --h11``.

    python bench/h11_front.py proxy --listen 127.0.0.1:0 ...   (the proxy's arguments)

h11 (the sans-IO HTTP/1.1 state machine httpx uses, through httpcore) reads each request,
head and body, on a ``Connection`` of its own; the proxy writes its answers itself, as it
does (h11 would have to frame them too to keep a connection's state across requests).
Everything else is the proxy as it is.
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING

import h11

from inspector.commands import main
from inspector.proxy import host_http, httpserve
from inspector.proxy.httpserve import (
    BODY_TIMEOUT,
    IDLE_TIMEOUT,
    MAX_BODY,
    MAX_HEAD,
    Budget,
    FrontConnection,
    HttpError,
    Request,
)

_PARSERS: dict[int, h11.Connection] = {}  # id(request) -> the h11 connection reading it


async def _event(parser: h11.Connection, conn: FrontConnection, deadline: float | None) -> object:
    """h11's next event, fed from the connection's buffer as it needs."""
    while True:
        try:
            event = parser.next_event()
        except h11.RemoteProtocolError as exc:
            raise HttpError(exc.error_status_hint, str(exc)) from None
        if event is not h11.NEED_DATA:
            return event
        if conn.buffer:
            parser.receive_data(conn.take(len(conn.buffer)))
            continue
        timeout = BODY_TIMEOUT if deadline is None else deadline - conn.loop.time()
        if timeout <= 0:
            raise TimeoutError
        if not await conn.fill(timeout):
            parser.receive_data(b"")


async def read_head(
    conn: FrontConnection, head_timeout: float = httpserve.HEAD_TIMEOUT, first: bool = False
) -> Request | None:
    try:
        wait = head_timeout if first else IDLE_TIMEOUT  # as the front's own read_head
        if not conn.buffer and not await conn.fill(wait):
            return None
    except (EOFError, OSError):  # TimeoutError is an OSError: a new connection said nothing
        return None
    parser = h11.Connection(h11.SERVER, max_incomplete_event_size=MAX_HEAD)
    try:
        event = await _event(parser, conn, conn.loop.time() + head_timeout)
    except TimeoutError:
        raise HttpError(408, "the request head did not arrive in time") from None
    if not isinstance(event, h11.Request):
        return None
    headers: dict[str, str] = {}
    for name, value in event.headers:
        key, text = name.decode("latin-1"), value.decode("latin-1")
        headers[key] = f"{headers[key]}, {text}" if key in headers else text
    request = Request(
        event.method.decode("latin-1"),
        event.target.decode("latin-1"),
        "HTTP/" + event.http_version.decode("latin-1"),
        headers,
    )
    _PARSERS[id(request)] = parser
    return request


async def read_body(conn: FrontConnection, request: Request, budget: Budget | None = None) -> None:
    parser = _PARSERS.pop(id(request))
    if request.length > MAX_BODY:
        raise HttpError(413, "request body too large")
    if request.length and budget is not None:
        budget.take(request.length)
        request.held += request.length
    parts: list[bytes] = []
    try:
        while True:
            event = await _event(parser, conn, None)
            if isinstance(event, h11.Data):
                parts.append(bytes(event.data))
            elif isinstance(event, h11.EndOfMessage):
                break
            else:
                raise HttpError(400, "the request body ended early")
    except (EOFError, TimeoutError, OSError):
        raise HttpError(400, "the request body ended early") from None
    leftover, _closed = parser.trailing_data
    if leftover:  # the next request's bytes, pipelined: back where the next read looks
        conn.buffer[:0] = leftover
    request.body = b"".join(parts)


if TYPE_CHECKING:  # the replacements take what the front passes its own: checked here
    httpserve.read_head = read_head
    httpserve.read_body = read_body
vars(host_http).update(read_head=read_head, read_body=read_body)  # what the front calls

if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
