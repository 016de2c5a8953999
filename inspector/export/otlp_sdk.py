"""Spans sent through the official OpenTelemetry SDK (the ``otel`` extra).

The recording's spans keep their ids, times and parents: each is started with its
recorded start time under a context naming its parent, and ended at its recorded end;
an id generator hands the SDK the recording's ids. Any span exporter fits
(``OTLPSpanExporter`` for ``--otlp-endpoint``, the in-memory one in tests). The SDK is
imported when spans are sent, never at start-up.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING

from inspector.errors import InspectorError
from inspector.export.spans import RESOURCE_ATTRIBUTES, Span, SpanKind, StatusCode

if TYPE_CHECKING:
    from opentelemetry.sdk.trace import ReadableSpan
    from opentelemetry.sdk.trace.export import SpanExporter, SpanExportResult

EXTRA_HINT = (
    "sending spans needs the OpenTelemetry SDK: pip install 'mcp-inspect[otel]' "
    "(or write them to a file with --output FILE.json, which needs nothing more)"
)


class OtelMissing(InspectorError):
    """The ``otel`` extra is not installed."""


class ExportFailed(InspectorError):
    """The exporter did not take the spans (a collector down or refusing)."""


def otlp_http_exporter(endpoint: str, timeout: float = 10.0) -> SpanExporter:
    """The SDK's OTLP/HTTP exporter for ``endpoint`` (a collector's base URL, or its
    full ``/v1/traces`` URL)."""
    try:
        from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
    except ImportError as exc:
        raise OtelMissing(EXTRA_HINT) from exc
    base = endpoint.rstrip("/")
    url = base if base.endswith("/v1/traces") else base + "/v1/traces"
    return OTLPSpanExporter(endpoint=url, timeout=int(timeout))


def send_spans(spans: Iterable[Span], exporter: SpanExporter) -> int:
    """Hand every span to ``exporter`` through the SDK; returns how many. Flushes and
    shuts the provider down before returning; raises :class:`ExportFailed` when the
    exporter refused a batch."""
    try:
        from opentelemetry import trace
        from opentelemetry.sdk.resources import Resource
        from opentelemetry.sdk.trace import TracerProvider
        from opentelemetry.sdk.trace.export import BatchSpanProcessor
        from opentelemetry.sdk.trace.export import SpanExporter as BaseExporter
        from opentelemetry.sdk.trace.export import SpanExportResult as Result
        from opentelemetry.sdk.trace.id_generator import IdGenerator
    except ImportError as exc:
        raise OtelMissing(EXTRA_HINT) from exc

    class RecordedIds(IdGenerator):
        """Hands out the ids of the span being started."""

        span_id = 0
        trace_id = 0

        def generate_span_id(self) -> int:
            return self.span_id

        def generate_trace_id(self) -> int:
            return self.trace_id

    class Watched(BaseExporter):
        """The exporter, with what it refused kept."""

        def __init__(self) -> None:
            self.failures: list[str] = []

        def export(self, spans: Sequence[ReadableSpan]) -> SpanExportResult:
            result = exporter.export(spans)
            if result is not Result.SUCCESS:
                self.failures.append(result.name)
            return result

        def shutdown(self) -> None:
            exporter.shutdown()

        def force_flush(self, timeout_millis: int = 30000) -> bool:
            return exporter.force_flush(timeout_millis)

    ids = RecordedIds()
    watched = Watched()
    resource = Resource.create(dict(RESOURCE_ATTRIBUTES))
    provider = TracerProvider(resource=resource, id_generator=ids)
    provider.add_span_processor(BatchSpanProcessor(watched))
    tracer = provider.get_tracer("mcp-inspect")
    kinds = {
        SpanKind.INTERNAL: trace.SpanKind.INTERNAL,
        SpanKind.SERVER: trace.SpanKind.SERVER,
        SpanKind.CLIENT: trace.SpanKind.CLIENT,
    }
    count = 0
    for span in spans:
        ids.trace_id = int(span.trace_id, 16)
        ids.span_id = int(span.span_id, 16)
        context = None
        if span.parent_id:
            parent = trace.SpanContext(
                int(span.trace_id, 16),
                int(span.parent_id, 16),
                is_remote=False,
                trace_flags=trace.TraceFlags(trace.TraceFlags.SAMPLED),
            )
            context = trace.set_span_in_context(trace.NonRecordingSpan(parent))
        live = tracer.start_span(
            span.name,
            context=context,
            kind=kinds[span.kind],
            attributes=span.attributes,
            start_time=span.start_ns,
        )
        for event in span.events:
            live.add_event(event.name, dict(event.attributes), timestamp=event.time_ns)
        if span.status is StatusCode.ERROR:
            live.set_status(trace.Status(trace.StatusCode.ERROR, span.status_message or None))
        elif span.status is StatusCode.OK:
            live.set_status(trace.Status(trace.StatusCode.OK))
        live.end(end_time=span.end_ns)
        count += 1
    provider.force_flush()
    provider.shutdown()
    if watched.failures:
        raise ExportFailed(f"the exporter refused {len(watched.failures)} batch(es)")
    return count
