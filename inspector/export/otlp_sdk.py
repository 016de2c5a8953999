"""Spans sent through the official OpenTelemetry SDK (the ``otel`` extra).

The recording's spans keep their ids, times and parents: each is started with its
recorded start time under a context naming its parent, and ended at its recorded end;
an id generator hands the SDK the recording's ids. Any span exporter fits
(``OTLPSpanExporter`` for ``--otlp-endpoint``, the in-memory one in tests). The SDK is
imported when spans are sent, never at start-up.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Iterable, Sequence
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


# the SDK logs each failed export (and each retry) itself: we say it once, in our words
SDK_LOGGERS = ("opentelemetry.exporter", "opentelemetry.sdk._shared_internal")


def _quiet_sdk_logs() -> None:
    for name in SDK_LOGGERS:
        logger = logging.getLogger(name)
        logger.propagate = False
        if not any(isinstance(h, logging.NullHandler) for h in logger.handlers):
            logger.addHandler(logging.NullHandler())


DOWN_PAUSE = 30.0  # after a refused batch, the next ones are dropped this long untried


class SpanSender:
    """Our spans into the SDK one at a time, as they end; its ``BatchSpanProcessor``
    exports them on its own thread from a bounded queue (a full queue drops), so
    :meth:`send` never waits on the network. ``on_failure`` hears the first refused
    batch (on the exporter's thread); :meth:`close` flushes, bounded."""

    def __init__(
        self,
        exporter: SpanExporter,
        *,
        max_queue_size: int = 2048,
        schedule_delay_millis: float = 1000,
        on_failure: Callable[[str], None] | None = None,
    ) -> None:
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
        _quiet_sdk_logs()
        self._trace = trace
        self.handed = 0  # spans given to the SDK
        self.exported = 0  # spans the exporter took
        self.failures: list[str] = []
        self.down_until = 0.0  # batches until then are dropped untried
        sender = self

        class RecordedIds(IdGenerator):
            """Hands out the ids of the span being started."""

            span_id = 0
            trace_id = 0

            def generate_span_id(self) -> int:
                return self.span_id

            def generate_trace_id(self) -> int:
                return self.trace_id

        class Watched(BaseExporter):
            """The exporter, with what it took and refused counted."""

            def export(self, spans: Sequence[ReadableSpan]) -> SpanExportResult:
                if time.monotonic() < sender.down_until:
                    return Result.FAILURE  # refused a moment ago: not each batch's retries
                result = exporter.export(spans)
                if result is Result.SUCCESS:
                    sender.exported += len(spans)
                else:
                    sender.down_until = time.monotonic() + DOWN_PAUSE
                    sender.failures.append(result.name)
                    if len(sender.failures) == 1 and on_failure is not None:
                        on_failure(result.name)
                return result

            def shutdown(self) -> None:
                exporter.shutdown()

            def force_flush(self, timeout_millis: int = 30000) -> bool:
                return exporter.force_flush(timeout_millis)

        self._exporter = exporter
        self._ids = RecordedIds()
        resource = Resource.create(dict(RESOURCE_ATTRIBUTES))
        # no atexit hook: close() is the one flush, bounded
        self._provider = TracerProvider(
            resource=resource, id_generator=self._ids, shutdown_on_exit=False
        )
        self._processor = BatchSpanProcessor(
            Watched(),
            max_queue_size=max_queue_size,
            schedule_delay_millis=schedule_delay_millis,
            max_export_batch_size=min(512, max_queue_size),  # the SDK's default, or less
        )
        self._provider.add_span_processor(self._processor)
        self._tracer = self._provider.get_tracer("mcp-inspect")
        self._kinds = {
            SpanKind.INTERNAL: trace.SpanKind.INTERNAL,
            SpanKind.SERVER: trace.SpanKind.SERVER,
            SpanKind.CLIENT: trace.SpanKind.CLIENT,
        }

    def send(self, span: Span) -> None:
        """Start and end ``span`` in the SDK with its recorded ids, parent and times."""
        trace = self._trace
        self._ids.trace_id = int(span.trace_id, 16)
        self._ids.span_id = int(span.span_id, 16)
        context = None
        if span.parent_id:
            parent = trace.SpanContext(
                int(span.trace_id, 16),
                int(span.parent_id, 16),
                is_remote=False,
                trace_flags=trace.TraceFlags(trace.TraceFlags.SAMPLED),
            )
            context = trace.set_span_in_context(trace.NonRecordingSpan(parent))
        live = self._tracer.start_span(
            span.name,
            context=context,
            kind=self._kinds[span.kind],
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
        self.handed += 1

    @property
    def lost(self) -> int:
        """Spans handed over that the exporter has not taken (yet, before close)."""
        return self.handed - self.exported

    def close(self) -> None:
        """Export what is queued (each batch bounded by the exporter's timeout; while
        the collector is known down, none is tried)."""
        self._processor.shutdown()  # type: ignore[no-untyped-call]


def send_spans(spans: Iterable[Span], exporter: SpanExporter) -> int:
    """Hand every span to ``exporter`` through the SDK; returns how many. Flushes and
    shuts the provider down before returning; raises :class:`ExportFailed` when the
    exporter refused a batch."""
    sender = SpanSender(exporter)
    count = 0
    for span in spans:
        sender.send(span)
        count += 1
    sender.close()
    if sender.failures:
        raise ExportFailed(f"the exporter refused {len(sender.failures)} batch(es)")
    return count
