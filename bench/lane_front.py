"""``mcp-inspect proxy`` with a minimal direct lane on its HTTP front: how low a lean path
could take the front's CPU a call, for ``bench/proxy_overhead.py --lane``.

    python bench/lane_front.py proxy --listen 127.0.0.1:0 ...   (the proxy's arguments)

Measurement only, not a product path. A host's single JSON-RPC request (after
``initialize``) goes from the front's own task to a kept-alive connection to the server
behind, and the answer goes back as one SSE event. It skips the worker task, httpx's
objects, the auth loop, the relay's routing and the front's response streams. It still
records the same five events a call through the proxy's wire: the host's POST, the back
POST and its body, the answer's status and its body. It takes only what the bench sends:
a Streamable HTTP server that answers 200 with a JSON body of known length. Anything else
(interception, OAuth, redirects, SSE answers, timeouts, a server gone) is the product
path's, so this file must never stand in for it.
"""

from __future__ import annotations

import asyncio
import sys
from typing import Any

from inspector.commands import main
from inspector.proxy.front_session import FrontSession
from inspector.proxy.host_http import HttpFront
from inspector.proxy.httpserve import ChunkedResponse, FrontConnection, Request, sse_event
from inspector.transports.aioconn import StreamProtocol
from inspector.transports.detect import AutoHttpTransport
from inspector.transports.httpwire import body_event, http_out_event
from inspector.wire.events import Channel, Direction, WireEvent

MAX_HEAD = 64 << 10
READ_TIMEOUT = 30.0
_POOLS: dict[str, list[StreamProtocol]] = {}  # host session id -> idle back connections
_general_pass_on = HttpFront._pass_on


async def _pass_on(
    self: HttpFront, request: Request, stream: FrontConnection, session: FrontSession, message: Any
) -> None:
    if not await _lane(self, request, stream, session, message):
        await _general_pass_on(self, request, stream, session, message)


async def _lane(
    front: HttpFront, request: Request, stream: FrontConnection, session: FrontSession, message: Any
) -> bool:
    """One request through the lane; False: not one it takes (the product path does)."""
    relay = session.relay
    if relay is None or not isinstance(message, dict) or "id" not in message:
        return False
    if message.get("method") in (None, "initialize"):
        return False
    auto = relay.back
    if not isinstance(auto, AutoHttpTransport) or auto.active is not auto.streamable:
        return False
    back = auto.streamable
    if not back.session_id:
        return False
    front._record(request, session, defer=True)  # the host's POST, as the product path
    relay.router.host_sent(message)
    meta = {"link": session.number, "side": "host"}
    url = back._url
    headers = back._headers("POST")
    raw = request.body.strip()
    out = http_out_event("POST", url, headers, request_id=message["id"])
    out.meta.update(meta)
    front.wire.emit(out, defer=True)
    body_out = WireEvent(Direction.OUT, Channel.BODY, raw, message, None, {"url": back.url})
    body_out.meta.update(meta)
    front.wire.emit(body_out, defer=True)
    front.wire.sync()  # write-ahead: on disk before the server gets it
    conn = await _connection(session.sid, url.host, url.port or 80)
    lines = "".join(f"{name}: {value}\r\n" for name, value in headers.items())
    head = f"POST {url.raw_path.decode()} HTTP/1.1\r\nHost: {url.netloc.decode()}\r\n{lines}"
    conn.write_now(f"{head}Content-Length: {len(raw)}\r\n\r\n".encode() + raw)
    status, reason, answer_headers = _parsed(await conn.read_until(b"\r\n\r\n", MAX_HEAD, 30))
    length = answer_headers.get("content-length")
    if status != 200 or length is None:
        conn.close()
        raise SystemExit(f"lane: the server answered {status} without a length: not a bench run")
    body = await conn.read_exactly(int(length), READ_TIMEOUT)
    _POOLS.setdefault(session.sid, []).append(conn)
    ctype = answer_headers.get("content-type", "")
    shown = {
        k: answer_headers[k] for k in ("content-type", "content-length") if k in answer_headers
    }
    status_event = WireEvent(
        Direction.IN,
        Channel.HTTP,
        f"HTTP {status} {reason} {ctype}".encode(),
        meta={"status": status, "reason": reason, "headers": shown, "url": back.url},
    )
    status_event.meta.update(request_id=message["id"], **meta)
    front.wire.emit(status_event, defer=True)
    answer = body_event(body, status, ctype, request_id=message["id"])
    answer.meta.update(meta)
    front.wire.emit(answer, relay.router.server_sent(answer.message, None))
    sse = {"Mcp-Session-Id": session.sid, "Content-Type": "text/event-stream"}
    stream.write_now(
        ChunkedResponse.head(200, sse)
        + ChunkedResponse.chunk(sse_event(body))
        + ChunkedResponse.END
    )
    front.budget.give(request.held)
    request.held, request.body = 0, b""
    return True


async def _connection(sid: str, host: str, port: int) -> StreamProtocol:
    idle = _POOLS.get(sid)
    while idle:
        conn = idle.pop()
        if not conn.closed:
            return conn
    loop = asyncio.get_running_loop()
    _transport, conn = await loop.create_connection(lambda: StreamProtocol(loop), host, port)
    return conn


def _parsed(head: bytes) -> tuple[int, str, dict[str, str]]:
    lines = head[:-4].decode("latin-1").split("\r\n")
    _version, status, reason = [*lines[0].split(" ", 2), ""][:3]
    headers: dict[str, str] = {}
    for line in lines[1:]:
        name, _, value = line.partition(":")
        headers[name.strip().lower()] = value.strip()
    return int(status), reason, headers


HttpFront._pass_on = _pass_on  # type: ignore[method-assign]  # the same signature, checked

if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
