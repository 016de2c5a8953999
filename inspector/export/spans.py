"""OpenTelemetry spans of a recorded session, after the MCP semantic conventions.

One trace per session: a root span for the session (``mcp.client.session``, INTERNAL,
from the first frame to the last), under it one span per operation:

- a request the client sent: CLIENT, named ``{mcp.method.name} {target}`` (the tool or
  prompt name; a resource URI never, it is high-cardinality), from the request frame to
  its answer; ``error.type`` and ERROR status for a JSON-RPC error (its code) or a tool
  result with ``isError`` (``tool_error``); progress and cancellation as span events;
- a request the server sent (sampling, elicitation, roots): SERVER, as the receiver
  reports it, from the request to our answer;
- a notification: CLIENT when we sent it, SERVER when we received it, zero length;
- beneath a client request sent over HTTP, the HTTP exchange that carried it: a CLIENT
  span ``POST`` with ``http.request.method``, ``url.full``,
  ``http.response.status_code``; exchanges that carried no request of ours (a GET
  stream, a posted answer, OAuth's) hang from the root.

Ids are derived from the recording (its header and each frame's ``seq``), so exporting a
file twice gives the same trace. A request of ours that carried W3C trace context
(``params._meta.traceparent``, sent with ``--propagate``) in this session's trace keeps
the span id it named, so the spans a server made under it hang from ours. A header with
a ``traceparent`` (the session started inside a trace) puts the session in that trace,
its root under that span.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from enum import IntEnum
from urllib.parse import urlsplit

from inspector import __version__
from inspector.export.http_exchanges import ExchangeGrouper, HttpExchange
from inspector.export.operations import Operation, OperationPairer
from inspector.record.format import SessionHeader
from inspector.wire.events import Channel, Direction, WireEvent

Attr = str | int | float | bool


TRACEPARENT = re.compile(r"00-([0-9a-f]{32})-([0-9a-f]{16})-[0-9a-f]{2}")


def traceparent(trace_id: str, span_id: str) -> str:
    """W3C trace context naming ``span_id`` as the parent (sampled)."""
    return f"00-{trace_id}-{span_id}-01"


class SpanKind(IntEnum):
    """OTLP's numbering."""

    INTERNAL = 1
    SERVER = 2
    CLIENT = 3


class StatusCode(IntEnum):
    UNSET = 0
    OK = 1
    ERROR = 2


@dataclass(slots=True)
class SpanEvent:
    name: str
    time_ns: int
    attributes: dict[str, Attr] = field(default_factory=dict)


@dataclass(slots=True)
class Span:
    """One span, ready for any sink (OTLP JSON, the SDK)."""

    trace_id: str  # 32 hex digits
    span_id: str  # 16 hex digits
    parent_id: str | None
    name: str
    kind: SpanKind
    start_ns: int
    end_ns: int
    attributes: dict[str, Attr] = field(default_factory=dict)
    events: list[SpanEvent] = field(default_factory=list)
    status: StatusCode = StatusCode.UNSET
    status_message: str = ""


def _ns(seconds: float) -> int:
    # via whole microseconds (what a session file keeps): epoch nanoseconds are past a
    # float's 53 bits, so seconds * 1e9 comes out as ...170000128 for ...17 s
    return round(seconds * 1_000_000) * 1_000


def _digest(*parts: object, size: int) -> str:
    text = "\x1f".join(str(p) for p in parts)
    return hashlib.blake2b(text.encode(), digest_size=size).hexdigest()


NAMED_BY = {"tools/call": "gen_ai.tool.name", "prompts/get": "gen_ai.prompt.name"}
RESOURCE_METHODS = frozenset(
    {
        "resources/read",
        "resources/subscribe",
        "resources/unsubscribe",
        "notifications/resources/updated",
    }
)


@dataclass(slots=True)
class SessionFacts:
    """What every span of the session shares, learnt as the frames go by."""

    transport: str = ""  # "pipe" (stdio) or "tcp" (HTTP)
    server_address: str | None = None
    server_port: int | None = None
    session_id: str | None = None
    protocol_version: str | None = None

    @classmethod
    def from_header(cls, header: SessionHeader) -> SessionFacts:
        target = header.target
        url = target.get("url")
        facts = cls(transport="tcp" if isinstance(url, str) else "pipe")
        if isinstance(url, str):
            parts = urlsplit(url)
            facts.server_address = parts.hostname
            default = 443 if parts.scheme == "https" else 80
            try:
                facts.server_port = parts.port or default
            except ValueError:
                facts.server_port = None
        return facts

    def learn(self, event: WireEvent) -> None:
        if event.channel is Channel.HTTP and event.direction is Direction.IN:
            headers = event.meta.get("headers")
            if isinstance(headers, dict):
                sid = headers.get("mcp-session-id")
                if isinstance(sid, str):
                    self.session_id = sid
        msg = event.message
        if isinstance(msg, dict):
            result = msg.get("result")
            if isinstance(result, dict) and isinstance(result.get("protocolVersion"), str):
                self.protocol_version = result["protocolVersion"]
            params = msg.get("params")
            if self.protocol_version is None and isinstance(params, dict):
                meta = params.get("_meta")
                version = (
                    meta.get("io.modelcontextprotocol/protocolVersion")
                    if isinstance(meta, dict)
                    else None
                )
                if isinstance(version, str):
                    self.protocol_version = version

    def common(self) -> dict[str, Attr]:
        attrs: dict[str, Attr] = {}
        if self.transport:
            attrs["network.transport"] = self.transport
        if self.transport == "tcp":
            attrs["network.protocol.name"] = "http"
        if self.server_address:
            attrs["server.address"] = self.server_address
        if self.server_port:
            attrs["server.port"] = self.server_port
        if self.session_id:
            attrs["mcp.session.id"] = self.session_id
        if self.protocol_version:
            attrs["mcp.protocol.version"] = self.protocol_version
        return attrs


class SpanBuilder:
    """Feed a session's events in order; spans come out as their operations end."""

    def __init__(self, header: SessionHeader) -> None:
        self._key = _digest(header.started, json.dumps(header.target, sort_keys=True), size=16)
        self.trace_id = self._key
        # a session started inside a trace (TRACEPARENT in the environment, kept in the
        # header): its root hangs from that span, in that trace
        self.parent_id: str | None = None
        self.tracestate: str | None = None
        given = header.extra.get("traceparent")
        match = TRACEPARENT.fullmatch(given) if isinstance(given, str) else None
        if match is not None:
            self.trace_id, self.parent_id = match[1], match[2]
            state = header.extra.get("tracestate")
            self.tracestate = state if isinstance(state, str) and state else None
        self.root_id = self.span_id("session")
        self.facts = SessionFacts.from_header(header)
        self.describe = str(header.target.get("describe") or header.target.get("url") or "")
        self._ops = OperationPairer()
        self._http = ExchangeGrouper()
        self._first: float | None = None
        # over HTTP an operation starts with its request line, a frame before its body
        self._line_time: float | None = None
        self._starts: dict[int, float] = {}
        self._last = 0.0
        self.count = 0

    def span_id(self, *parts: object) -> str:
        return _digest(self._key, *parts, size=8)

    def op_id(self, request: WireEvent) -> str:
        """The span id of the operation ``request`` opens: the one its traceparent named
        (ours, in this trace), else derived from its ``seq``."""
        msg = request.message
        params = msg.get("params") if isinstance(msg, dict) else None
        meta = params.get("_meta") if isinstance(params, dict) else None
        given = meta.get("traceparent") if isinstance(meta, dict) else None
        if request.direction is Direction.OUT and isinstance(given, str):
            match = TRACEPARENT.fullmatch(given)
            if match is not None and match[1] == self.trace_id:
                return match[2]
        return self.span_id("op", request.seq)

    def feed(self, event: WireEvent) -> Iterator[Span]:
        if self._first is None:
            self._first = event.time
        self._last = max(self._last, event.time)
        self.facts.learn(event)
        if event.channel is Channel.HTTP and event.direction is Direction.OUT:
            self._line_time = event.time
        elif event.channel is Channel.BODY and event.direction is Direction.OUT:
            if self._line_time is not None and isinstance(event.message, dict):
                self._starts[event.seq] = self._line_time
            self._line_time = None
        for op in self._ops.feed(event):
            yield self._op_span(op)
        for exchange in self._http.feed(event):
            yield self._http_span(exchange)

    def finish(self) -> Iterator[Span]:
        for op in self._ops.finish():
            yield self._op_span(op)
        for exchange in self._http.finish():
            yield self._http_span(exchange)
        start = self._first if self._first is not None else 0.0
        attrs: dict[str, Attr] = {**self.facts.common(), "mcp_inspect.target": self.describe}
        self.count += 1
        yield Span(
            self.trace_id,
            self.root_id,
            self.parent_id,
            "mcp.client.session",
            SpanKind.INTERNAL,
            _ns(start),
            _ns(self._last),
            attrs,
        )

    def _op_span(self, op: Operation) -> Span:
        self.count += 1
        method = op.method
        attrs: dict[str, Attr] = {"mcp.method.name": method, **self.facts.common()}
        params = op.params
        target = ""
        named = NAMED_BY.get(method)
        if named is not None and isinstance(params.get("name"), str):
            target = params["name"]
            attrs[named] = target
        if method == "tools/call":
            attrs["gen_ai.operation.name"] = "execute_tool"
        if method in RESOURCE_METHODS and isinstance(params.get("uri"), str):
            attrs["mcp.resource.uri"] = params["uri"]
        rid = op.request_id
        if not op.is_notification and rid is not None:
            attrs["jsonrpc.request.id"] = str(rid)
        attrs["mcp_inspect.seq"] = op.request.seq
        span = Span(
            self.trace_id,
            self.op_id(op.request),
            self.root_id,
            f"{method} {target}" if target else method,
            _kind(op),
            _ns(self._starts.pop(op.request.seq, op.request.time)),
            _ns(op.end.time),
            attrs,
        )
        error = op.error
        if error is not None:
            code = error.get("code")
            span.status = StatusCode.ERROR
            span.status_message = str(error.get("message", ""))
            attrs["error.type"] = str(code)
            attrs["rpc.response.status_code"] = str(code)
        elif isinstance(op.result, dict) and op.result.get("isError") is True:
            span.status = StatusCode.ERROR
            attrs["error.type"] = "tool_error"
        elif op.unanswered and not op.is_notification:
            span.status = StatusCode.ERROR
            span.status_message = "no answer in the recording"
            attrs["error.type"] = "unanswered"
        for note in op.notes:
            span.events.append(_note_event(note))
        return span

    def _http_span(self, exchange: HttpExchange) -> Span:
        self.count += 1
        body = exchange.body.message if exchange.body is not None else None
        parent = self.root_id
        if (
            not exchange.auth
            and exchange.body is not None
            and isinstance(body, dict)
            and "method" in body
        ):
            parent = self.op_id(exchange.body)
        attrs: dict[str, Attr] = {
            "http.request.method": exchange.method,
            "url.full": exchange.url,
        }
        parts = urlsplit(exchange.url)
        if parts.hostname:
            attrs["server.address"] = parts.hostname
        status = exchange.status
        if status is not None:
            attrs["http.response.status_code"] = status
        step = exchange.request.meta.get("step")
        if exchange.auth and isinstance(step, str):
            attrs["mcp_inspect.oauth.step"] = step
        span = Span(
            self.trace_id,
            self.span_id("http", exchange.request.seq),
            parent,
            exchange.method,
            SpanKind.CLIENT,
            _ns(exchange.request.time),
            _ns(max(exchange.last_time, exchange.request.time)),
            attrs,
        )
        if status is None:
            span.status = StatusCode.ERROR
            attrs["error.type"] = "no_response"
        elif status >= 400:
            span.status = StatusCode.ERROR
            attrs["error.type"] = str(status)
        for block in exchange.sse:
            event_attrs: dict[str, Attr] = {}
            if block.event_id is not None:
                event_attrs["sse.event.id"] = block.event_id
            if block.event_type is not None:
                event_attrs["sse.event.type"] = block.event_type
            span.events.append(SpanEvent("sse", _ns(block.time), event_attrs))
        return span


def _kind(op: Operation) -> SpanKind:
    return SpanKind.CLIENT if op.direction is Direction.OUT else SpanKind.SERVER


def _note_event(note: WireEvent) -> SpanEvent:
    """Progress and cancellation on their request's span."""
    msg = note.message if isinstance(note.message, dict) else {}
    params = msg.get("params") if isinstance(msg.get("params"), dict) else {}
    method = str(msg.get("method", ""))
    attrs: dict[str, Attr] = {"mcp.method.name": method}
    assert isinstance(params, dict)
    for key in ("progress", "total", "message", "reason"):
        value = params.get(key)
        if isinstance(value, str | int | float) and not isinstance(value, bool):
            attrs[f"mcp.{key}"] = value
    name = "progress" if method == "notifications/progress" else "cancelled"
    return SpanEvent(name, _ns(note.time), attrs)


def session_spans(header: SessionHeader, events: Iterable[WireEvent]) -> Iterator[Span]:
    """Every span of a session, each as soon as it ends, the root last."""
    builder = SpanBuilder(header)
    for event in events:
        yield from builder.feed(event)
    yield from builder.finish()


RESOURCE_ATTRIBUTES: dict[str, Attr] = {
    "service.name": "mcp-inspect",
    "service.version": __version__,
}
