"""Transports: stdio, Streamable HTTP, legacy SSE, in-memory; one interface
(``inspector.wire.transport``), which the engine speaks to without importing these."""
