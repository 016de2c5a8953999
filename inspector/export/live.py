"""Spans sent while a session runs (``--otlp-endpoint`` on the TUI, ``--cli``, ``proxy``,
``load``), and W3C trace context in our requests (``--propagate``).

A :class:`SessionTrace` feeds each event, as the session file stores it (``as_stored``:
redacted, times to the microsecond), to the same :class:`SpanBuilder` that
``export --format otlp`` runs over the file, so the live spans are the export's spans;
each span goes to the SDK as it ends (``SpanSender``: a bounded queue, exported on the
SDK's own thread, so nothing on the event path waits on the network). A collector that
is down loses spans and says so once (``warn``, on the session's event loop).

``--propagate`` puts ``traceparent`` (W3C trace context, the conventions' unprefixed
key) in each request's ``params._meta``, naming the span the request will be: the
builder reads it back from the request frame, live and from the file alike.
"""

from __future__ import annotations

import asyncio
import os
import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol

from inspector.export.otlp_sdk import SpanSender, otlp_http_exporter
from inspector.export.spans import TRACEPARENT, SpanBuilder, traceparent
from inspector.record.format import Redactor, SessionHeader, as_stored
from inspector.wire.events import WireEvent

LIVE_TIMEOUT = 5.0  # one batch's export, retries included: a local collector answers fast
Warn = Callable[[str], None]


def context_from_env(environ: dict[str, str] | None = None) -> dict[str, str]:
    """W3C trace context this process was started in (``TRACEPARENT``/``TRACESTATE``,
    OpenTelemetry's environment carriers): for the session file's header."""
    env = os.environ if environ is None else environ
    parent = env.get("TRACEPARENT", "").strip().lower()
    if TRACEPARENT.fullmatch(parent) is None:
        return {}
    context = {"traceparent": parent}
    state = env.get("TRACESTATE", "").strip()
    if state:
        context["tracestate"] = state
    return context


@dataclass(frozen=True, slots=True)
class TraceOptions:
    """``--otlp-endpoint URL`` and ``--propagate``."""

    endpoint: str | None = None
    propagate: bool = False

    @property
    def wanted(self) -> bool:
        return self.endpoint is not None or self.propagate


class TracedSession(Protocol):
    """What a session offers a trace (the engine's ``Session``)."""

    request_hook: Callable[[str, dict[str, Any] | None], dict[str, Any] | None] | None

    def add_observer(self, observer: Callable[[WireEvent], None]) -> None: ...


class LiveExport:
    """One front's export: the SDK sender (one queue, one warning) its sessions share.

    ``warn`` hears, once, that spans were lost; it is called on the event loop of the
    first session attached (the SDK fails on a thread of its own), or, with none (the
    proxy's watcher), on the SDK's thread."""

    def __init__(self, options: TraceOptions, warn: Warn, *, sender: SpanSender | None = None):
        """Raises ``OtelMissing`` when an endpoint is given without the ``otel`` extra."""
        self.options = options
        self.warn = warn
        self.warned = False
        self.sender = sender
        if sender is None and options.endpoint is not None:
            exporter = otlp_http_exporter(options.endpoint, timeout=LIVE_TIMEOUT)
            self.sender = SpanSender(exporter, on_failure=self._refused)
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread = threading.get_ident()
        self._open: list[SessionTrace] = []

    @property
    def where(self) -> str:
        return self.options.endpoint or "the collector"

    def session(self, header: SessionHeader, redactor: Redactor | None = None) -> SessionTrace:
        """The trace of one session (one recording): ``header`` as the file has it."""
        trace = SessionTrace(self, header, redactor)
        self._open.append(trace)
        return trace

    def bind_loop(self) -> None:
        """The warning is said on the running event loop (the first session's)."""
        if self._loop is None:
            try:
                self._loop = asyncio.get_running_loop()
                self._thread = threading.get_ident()
            except RuntimeError:
                pass

    def close(self) -> None:
        """End every session's trace, flush the queue, and say once if spans were lost."""
        for trace in list(self._open):
            trace.finish()
        if self.sender is None:
            return
        self.sender.close()
        lost = self.sender.lost
        if lost:
            self._say(
                f"{lost} of {self.sender.handed} spans were not sent to {self.where}: "
                "is an OTLP/HTTP collector listening there?"
            )

    def _refused(self, result: str) -> None:
        """On the SDK's thread: the first batch the collector did not take."""
        text = (
            f"the OTLP collector at {self.where} did not take spans ({result}); spans are "
            "lost until it answers (the session goes on)"
        )
        loop = self._loop
        if loop is None or threading.get_ident() == self._thread:
            self._say(text)
            return
        try:
            loop.call_soon_threadsafe(self._say, text)
        except RuntimeError:  # the loop has closed: the session is over
            self._say(text)

    def _say(self, text: str) -> None:
        if not self.warned:
            self.warned = True
            self.warn(text)


class SessionTrace:
    """One session's spans (observer) and trace context (request hook)."""

    def __init__(
        self, export: LiveExport, header: SessionHeader, redactor: Redactor | None
    ) -> None:
        self.export = export
        self.builder = SpanBuilder(header)
        self.redactor = redactor
        self._done = False

    def attach(self, session: TracedSession) -> None:
        """Watch ``session``'s events and, with ``--propagate``, stamp its requests
        (on the session's event loop)."""
        self.export.bind_loop()
        if self.export.sender is not None:
            session.add_observer(self.observe)
        if self.export.options.propagate:
            session.request_hook = self.stamp

    def observe(self, event: WireEvent, *_: Any) -> None:
        sender = self.export.sender
        if sender is None or self._done:
            return
        for span in self.builder.feed(as_stored(event, self.redactor)):
            sender.send(span)

    def stamp(self, method: str, params: dict[str, Any] | None) -> dict[str, Any] | None:
        """``params._meta.traceparent`` naming a new span id in this trace (the request's
        span takes it), and the trace's ``tracestate`` when it has one; a
        ``traceparent`` the caller set is kept."""
        params = dict(params or {})
        meta = params.get("_meta")
        meta = dict(meta) if isinstance(meta, dict) else {}
        if "traceparent" not in meta:
            meta["traceparent"] = traceparent(self.builder.trace_id, os.urandom(8).hex())
            if self.builder.tracestate is not None:
                meta["tracestate"] = self.builder.tracestate
        params["_meta"] = meta
        return params

    def finish(self) -> None:
        """The session ended: its open operations and its root span go out."""
        if self._done:
            return
        self._done = True
        if self in self.export._open:
            self.export._open.remove(self)
        sender = self.export.sender
        if sender is None:
            return
        for span in self.builder.finish():
            sender.send(span)
