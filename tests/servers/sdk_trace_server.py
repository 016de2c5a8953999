"""An official-SDK (mcp 2.x MCPServer) server over stdio, instrumented with OpenTelemetry
(the SDK wraps each request in a SERVER span whose parent is the ``traceparent`` of the
request's ``_meta``): the ``traced`` tool answers with the ``traceparent`` it received and
the ids of the span it runs in, so a test sees the server join the client's trace."""

from __future__ import annotations

import json
from typing import Any

from mcp.server.mcpserver import Context, MCPServer
from opentelemetry import trace
from opentelemetry.sdk.trace import TracerProvider

trace.set_tracer_provider(TracerProvider())  # a real provider: spans with ids and parents
mcp = MCPServer("sdk-trace-server")


@mcp.tool()
def traced(ctx: Context) -> str:  # type: ignore[type-arg]
    """The trace context this call arrived with, and the server span it runs in."""
    meta: Any = ctx.request_context.meta or {}
    span: Any = trace.get_current_span()
    context = span.get_span_context()
    parent = getattr(span, "parent", None)
    return json.dumps(
        {
            "traceparent": meta.get("traceparent"),
            "tracestate": meta.get("tracestate"),
            "span": {
                "name": getattr(span, "name", None),
                "trace_id": format(context.trace_id, "032x"),
                "parent_id": format(parent.span_id, "016x") if parent is not None else None,
            },
        }
    )


if __name__ == "__main__":
    mcp.run()
