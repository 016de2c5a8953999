"""Who a frame on a proxy's wire belongs to: the host, an attached inspector, or the server.

Events carry it in ``meta["side"]`` (``host``, ``inspector``, ``server``) and, for an
inspector, ``meta["attach"]`` (its number). A client-to-server frame (``out``) was sent
by that side; a server-to-client frame (``in``) went to it; ``server`` marks what is the
server's own (its stderr).

``SENDER`` says, while a frame is handed to the back transport, whose frame it is: the
transport emits the frame's event inside that call, and tasks it starts there (an HTTP
request's response stream) inherit the value, so a server request that arrives on the
response stream of an inspector's request is known to be the inspector's.
"""

from __future__ import annotations

from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any

from inspector.wire.events import ATTACH_KEY, SIDE_KEY

HOST = "host"
INSPECTOR = "inspector"
SERVER = "server"


@dataclass(frozen=True, slots=True)
class Origin:
    side: str
    attach: int | None = None  # the inspector's number, for INSPECTOR

    def meta(self) -> dict[str, Any]:
        if self.attach is None:
            return {SIDE_KEY: self.side}
        return {SIDE_KEY: self.side, ATTACH_KEY: self.attach}


HOST_ORIGIN = Origin(HOST)
SERVER_ORIGIN = Origin(SERVER)

SENDER: ContextVar[Origin | None] = ContextVar("mcp_inspect_proxy_sender", default=None)
