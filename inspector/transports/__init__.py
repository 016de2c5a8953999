"""Transports: stdio, Streamable HTTP, legacy SSE, in-memory; one interface."""

from inspector.transports.base import ConnectionLost, Transport, TransportError, TransportHost

__all__ = ["ConnectionLost", "Transport", "TransportError", "TransportHost"]
