"""A test OTLP/HTTP receiver (takes every POST, keeps its protobuf body), and spans as
comparable facts: those received, those ``export`` makes of a recording."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, HTTPServer
from pathlib import Path
from typing import Any, ClassVar

from inspector.export.spans import session_spans
from inspector.record.reader import iter_events, open_header


class _Receiver(BaseHTTPRequestHandler):
    bodies: ClassVar[list[bytes]] = []
    delay: ClassVar[float] = 0.0
    posting: ClassVar[threading.Event]

    def do_POST(self) -> None:
        type(self).posting.set()
        time.sleep(self.delay)  # a slow collector
        body = self.rfile.read(int(self.headers["Content-Length"]))
        type(self).bodies.append(body)
        self.send_response(200)
        self.send_header("Content-Type", "application/x-protobuf")
        self.send_header("Content-Length", "0")
        self.end_headers()

    def log_message(self, *args: Any) -> None:
        pass


@contextmanager
def otlp_receiver(
    delay: float = 0.0, posting: threading.Event | None = None
) -> Iterator[tuple[str, list[bytes]]]:
    """``(base URL, bodies received)`` on an ephemeral loopback port; each POST takes
    ``delay`` seconds, and sets ``posting`` when it starts."""
    bodies: list[bytes] = []
    attrs = {"bodies": bodies, "delay": delay, "posting": posting or threading.Event()}
    handler = type("Receiver", (_Receiver,), attrs)
    server = HTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}", bodies
    finally:
        server.shutdown()
        server.server_close()


def received_spans(bodies: list[bytes]) -> list[Any]:
    """Every span of the ExportTraceServiceRequests received (protobuf ``Span`` s)."""
    from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import (
        ExportTraceServiceRequest,
    )

    spans = []
    for body in bodies:
        request = ExportTraceServiceRequest.FromString(body)
        for resource in request.resource_spans:
            for scope in resource.scope_spans:
                spans.extend(scope.spans)
    return spans


def export_facts(path: Path) -> dict[str, dict[str, Any]]:
    """``export --format otlp``'s spans of a recording, by span id, as comparable facts."""
    spans = session_spans(open_header(path), iter_events(path, []))
    return {
        s.span_id: {
            "trace": s.trace_id,
            "parent": s.parent_id or "",
            "name": s.name,
            "kind": int(s.kind),
            "times": (s.start_ns, s.end_ns),
            "attributes": s.attributes,
            "events": [(e.name, e.time_ns) for e in s.events],
        }
        for s in spans
    }


def live_facts(bodies: list[bytes]) -> dict[str, dict[str, Any]]:
    """The received spans, by span id, as the same facts."""
    out: dict[str, dict[str, Any]] = {}
    for s in received_spans(bodies):
        attrs: dict[str, Any] = {}
        for kv in s.attributes:
            value = kv.value
            attrs[kv.key] = getattr(value, value.WhichOneof("value"))
        out[s.span_id.hex()] = {
            "trace": s.trace_id.hex(),
            "parent": s.parent_span_id.hex(),
            "name": s.name,
            "kind": int(s.kind) + 0,  # protobuf's kind is OTLP's numbering, as ours
            "times": (s.start_time_unix_nano, s.end_time_unix_nano),
            "attributes": attrs,
            "events": [(e.name, e.time_unix_nano) for e in s.events],
        }
    return out
