"""Spans as OTLP JSON: one ``ExportTraceServiceRequest`` a line.

The OpenTelemetry protocol's JSON encoding (ids as hex, 64-bit integers as strings, enums
as numbers), batched a few hundred spans a line: the shape the OpenTelemetry Collector's
``otlpjsonfile`` receiver reads and its ``file`` exporter writes, and one a stream can be
written in without holding the session.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import IO, Any

from inspector import __version__
from inspector.export.spans import RESOURCE_ATTRIBUTES, Attr, Span

BATCH = 500
SCOPE = {"name": "mcp-inspect", "version": __version__}


def any_value(value: Attr) -> dict[str, Any]:
    if isinstance(value, bool):
        return {"boolValue": value}
    if isinstance(value, int):
        return {"intValue": str(value)}
    if isinstance(value, float):
        return {"doubleValue": value}
    return {"stringValue": str(value)}


def key_values(attrs: dict[str, Attr]) -> list[dict[str, Any]]:
    return [{"key": k, "value": any_value(v)} for k, v in attrs.items()]


def span_json(span: Span) -> dict[str, Any]:
    data: dict[str, Any] = {
        "traceId": span.trace_id,
        "spanId": span.span_id,
        "name": span.name,
        "kind": int(span.kind),
        "startTimeUnixNano": str(span.start_ns),
        "endTimeUnixNano": str(span.end_ns),
        "attributes": key_values(span.attributes),
    }
    if span.parent_id:
        data["parentSpanId"] = span.parent_id
    if span.events:
        data["events"] = [
            {"timeUnixNano": str(e.time_ns), "name": e.name, "attributes": key_values(e.attributes)}
            for e in span.events
        ]
    status: dict[str, Any] = {}
    if span.status:
        status["code"] = int(span.status)
    if span.status_message:
        status["message"] = span.status_message
    data["status"] = status
    return data


def request_json(spans: list[Span]) -> dict[str, Any]:
    """One ``ExportTraceServiceRequest`` holding ``spans``."""
    return {
        "resourceSpans": [
            {
                "resource": {"attributes": key_values(RESOURCE_ATTRIBUTES)},
                "scopeSpans": [{"scope": SCOPE, "spans": [span_json(s) for s in spans]}],
            }
        ]
    }


def write_otlp_json(spans: Iterable[Span], out: IO[str], batch: int = BATCH) -> int:
    """Write ``spans`` as OTLP JSON lines; returns how many were written."""
    pending: list[Span] = []
    count = 0
    for span in spans:
        pending.append(span)
        if len(pending) >= batch:
            out.write(json.dumps(request_json(pending), ensure_ascii=False) + "\n")
            count += len(pending)
            pending = []
    if pending:
        out.write(json.dumps(request_json(pending), ensure_ascii=False) + "\n")
        count += len(pending)
    return count
