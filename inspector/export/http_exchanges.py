"""HTTP exchanges from a stream of wire events: a request with its response, whole.

The HTTP transports put one exchange on the wire as several frames (see
``inspector.transports.http``): the request line (``Channel.HTTP`` OUT, meta ``method``,
``url``, ``headers``, ``request_id``), the posted body (``Channel.BODY`` OUT), the status
line (``Channel.HTTP`` IN, meta ``status``, ``headers``, ``request_id``), then a JSON body
(``Channel.BODY`` IN) or server-sent events (``Channel.SSE`` IN, meta ``stream`` =
``post:<id>`` or ``get``). OAuth's exchanges (``Channel.AUTH``) go one at a time: request
line, body, status, body. Several exchanges are in flight at once; the ``request_id`` (the
JSON-RPC id a POST carried) and the stream names tell them apart, and an exchange without
one (a posted notification, a GET stream) is the oldest still waiting.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

from inspector.wire.events import Channel, Direction, WireEvent


@dataclass(slots=True)
class SseBlock:
    """One server-sent event as it came: its data (a message, or a priming/comment
    block's text), id and type."""

    time: float
    data: str
    event_id: str | None = None
    event_type: str | None = None


@dataclass(slots=True)
class HttpExchange:
    """One HTTP request and what answered it. ``response`` is the status line's event
    (None when none came: refused, timed out, the recording ended)."""

    request: WireEvent
    body: WireEvent | None = None
    response: WireEvent | None = None
    response_body: WireEvent | None = None
    sse: list[SseBlock] = field(default_factory=list)
    last_time: float = 0.0
    auth: bool = False  # an OAuth exchange (Channel.AUTH)

    @property
    def method(self) -> str:
        return str(self.request.meta.get("method") or self.request.text().split(" ", 1)[0])

    @property
    def url(self) -> str:
        url = self.request.meta.get("url")
        if isinstance(url, str):
            return url
        parts = self.request.text().split(" ", 1)
        return parts[1] if len(parts) == 2 else ""

    @property
    def request_headers(self) -> dict[str, str]:
        return _headers(self.request.meta.get("headers"))

    @property
    def response_headers(self) -> dict[str, str]:
        return _headers(self.response.meta.get("headers")) if self.response else {}

    @property
    def status(self) -> int | None:
        if self.response is None:
            return None
        status = self.response.meta.get("status")
        return status if isinstance(status, int) else None

    @property
    def reason(self) -> str:
        return str(self.response.meta.get("reason") or "") if self.response else ""

    @property
    def request_id(self) -> Any:
        return self.request.meta.get("request_id")

    @property
    def content_type(self) -> str:
        return self.response_headers.get("content-type", "")

    @property
    def is_stream(self) -> bool:
        return self.content_type.startswith("text/event-stream")

    def touch(self, event: WireEvent) -> None:
        self.last_time = max(self.last_time, event.time)


def _headers(value: Any) -> dict[str, str]:
    if not isinstance(value, dict):
        return {}
    return {str(k): str(v) for k, v in value.items()}


def _stream_key(exchange: HttpExchange) -> str:
    stream = exchange.request.meta.get("stream")
    if isinstance(stream, str):
        return stream
    rid = exchange.request_id
    return f"post:{rid}" if rid is not None else ("get" if exchange.method == "GET" else "")


class ExchangeGrouper:
    """Feed events in order; whole exchanges come out of :meth:`feed` once nothing more
    can join them, and the rest from :meth:`finish`."""

    def __init__(self) -> None:
        self._waiting: list[HttpExchange] = []  # sent, no status line yet (oldest first)
        self._bodies: list[HttpExchange] = []  # status line seen, a JSON body to come
        self._streams: dict[str, HttpExchange] = {}  # open SSE streams by stream name
        self._auth: HttpExchange | None = None

    def feed(self, event: WireEvent) -> list[HttpExchange]:
        if event.channel is Channel.AUTH:
            return self._feed_auth(event)
        if event.channel is Channel.HTTP:
            if event.direction is Direction.OUT:
                return self._request(event)
            if event.direction is Direction.IN:
                return self._status(event)
        elif event.channel is Channel.BODY:
            return self._body(event)
        elif event.channel is Channel.SSE and event.direction is Direction.IN:
            return self._sse(event)
        return []

    def finish(self) -> list[HttpExchange]:
        rest = [*self._waiting, *self._bodies, *self._streams.values()]
        if self._auth is not None:
            rest.append(self._auth)
        self._waiting, self._bodies, self._streams, self._auth = [], [], {}, None
        return sorted(rest, key=lambda x: x.request.seq)

    def _request(self, event: WireEvent) -> list[HttpExchange]:
        done: list[HttpExchange] = []
        exchange = HttpExchange(event, last_time=event.time)
        key = _stream_key(exchange)
        # a stream reopened under the same name (resumption, a new GET) ends the old one
        old = self._streams.pop(key, None) if key else None
        if old is not None:
            done.append(old)
        self._waiting.append(exchange)
        return done

    def _status(self, event: WireEvent) -> list[HttpExchange]:
        if "sse" in event.meta:  # a priming/comment/empty block on an open stream
            stream = event.meta.get("stream")
            target = self._streams.get(stream) if isinstance(stream, str) else None
            if target is None and self._streams:
                target = next(reversed(self._streams.values()))
            if target is not None:
                target.sse.append(SseBlock(event.time, event.text(), event_type="(no data)"))
                target.touch(event)
            return []
        found = self._match(self._waiting, event.meta.get("request_id"), event.meta)
        if found is None:
            return []
        exchange = found
        self._waiting.remove(exchange)
        exchange.response = event
        exchange.touch(event)
        if exchange.is_stream:
            self._streams[_stream_key(exchange)] = exchange
            return []
        length = exchange.response_headers.get("content-length")
        if length == "0" or exchange.status in (202, 204, 304):
            return [exchange]
        self._bodies.append(exchange)
        return []

    def _body(self, event: WireEvent) -> list[HttpExchange]:
        if event.direction is Direction.OUT:
            # the posted bytes follow their request line at once
            for sent in reversed(self._waiting):
                if sent.body is None:
                    sent.body = event
                    sent.touch(event)
                    break
            return []
        exchange = self._match(self._bodies, event.meta.get("request_id"), event.meta)
        if exchange is None:
            return []
        self._bodies.remove(exchange)
        exchange.response_body = event
        exchange.touch(event)
        return [exchange]

    def _sse(self, event: WireEvent) -> list[HttpExchange]:
        stream = event.meta.get("stream")
        if not isinstance(stream, str) or stream not in self._streams:
            return []
        exchange = self._streams[stream]
        event_id = event.meta.get("event_id")
        event_type = event.meta.get("event_type")
        exchange.sse.append(
            SseBlock(
                event.time,
                event.text(),
                str(event_id) if event_id is not None else None,
                str(event_type) if event_type is not None else None,
            )
        )
        exchange.touch(event)
        # a POST's stream ends with the answer to its request (the server closes it then)
        msg = event.message
        rid = exchange.request_id
        if (
            rid is not None
            and isinstance(msg, dict)
            and msg.get("id") == rid
            and ("result" in msg or "error" in msg)
        ):
            del self._streams[stream]
            return [exchange]
        return []

    @staticmethod
    def _match(
        candidates: list[HttpExchange], rid: Any, meta: dict[str, Any]
    ) -> HttpExchange | None:
        """The exchange a status line or body answers: by request id, else the oldest
        without one (for the same URL when the frame names it)."""
        if rid is not None:
            for exchange in candidates:
                if exchange.request_id == rid:
                    return exchange
        url = meta.get("url")
        for exchange in candidates:
            if exchange.request_id is None and (not url or exchange.url == url):
                return exchange
        return candidates[0] if candidates and rid is None else None

    def _feed_auth(self, event: WireEvent) -> list[HttpExchange]:
        done: list[HttpExchange] = []
        current = self._auth
        if event.direction is Direction.OUT and "method" in event.meta:
            if current is not None:
                done.append(current)
            self._auth = HttpExchange(event, last_time=event.time, auth=True)
        elif current is None or event.direction is Direction.LOCAL:
            return done
        elif event.direction is Direction.OUT:
            current.body = event
            current.touch(event)
        elif "status" in event.meta:
            current.response = event
            current.touch(event)
        else:
            current.response_body = event
            current.touch(event)
            done.append(current)
            self._auth = None
        return done


def group_exchanges(events: Iterable[WireEvent]) -> Iterator[HttpExchange]:
    """Every HTTP exchange of ``events``, each once it is whole, the open ones last."""
    grouper = ExchangeGrouper()
    for event in events:
        yield from grouper.feed(event)
    yield from grouper.finish()
