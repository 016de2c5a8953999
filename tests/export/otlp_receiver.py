"""A test OTLP/HTTP receiver: takes every POST (``/v1/traces``), keeps its protobuf body."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, HTTPServer
from typing import Any, ClassVar


class _Receiver(BaseHTTPRequestHandler):
    bodies: ClassVar[list[bytes]] = []

    def do_POST(self) -> None:
        body = self.rfile.read(int(self.headers["Content-Length"]))
        type(self).bodies.append(body)
        self.send_response(200)
        self.send_header("Content-Type", "application/x-protobuf")
        self.send_header("Content-Length", "0")
        self.end_headers()

    def log_message(self, *args: Any) -> None:
        pass


@contextmanager
def otlp_receiver() -> Iterator[tuple[str, list[bytes]]]:
    """``(base URL, bodies received)`` on an ephemeral loopback port."""
    bodies: list[bytes] = []
    handler = type("Receiver", (_Receiver,), {"bodies": bodies})
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
