"""The server's side of the handshake over the in-memory transport, for scripted peers.

from memory_peer import INIT_RESULT, handshake
"""

from __future__ import annotations

from typing import Any

from inspector.transports.memory import MemoryServerEnd
from inspector.wire import jsonrpc

INIT_RESULT: dict[str, Any] = {
    "protocolVersion": "2025-11-25",
    "capabilities": {"tools": {"listChanged": True}},
    "serverInfo": {"name": "fake", "version": "1.0"},
    "instructions": "be nice",
}


async def handshake(server: MemoryServerEnd, result: dict[str, Any] | None = None) -> Any:
    """Answer initialize with ``result`` (default ``INIT_RESULT``) and take the client's
    notifications/initialized; returns the client's initialize request."""
    init = await server.receive()
    await server.send(jsonrpc.response(init["id"], result or INIT_RESULT))
    initialized = await server.receive()
    assert initialized["method"] == "notifications/initialized"
    return init
