"""Who a frame on a proxy's wire belongs to: the host, an attached inspector, or the server.

Events carry it in ``meta["side"]`` (``host``, ``inspector``, ``server``) and, for an
inspector, ``meta["attach"]`` (its number). A client-to-server frame (``out``) was sent
by that side; a server-to-client frame (``in``) went to it; ``server`` marks what is the
server's own (its stderr).

The relay sends each frame with these keys as its ``meta`` (``Transport.send_raw``): the
transport puts them on the frame's event, and hands them back on the events of the
frame's exchange (``SENT_WITH``), so a server request that arrives on the response
stream of an inspector's request is known to be the inspector's (``Origin.of``).
"""

from __future__ import annotations

from collections.abc import Mapping
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

    @classmethod
    def of(cls, meta: Mapping[str, Any] | None) -> Origin | None:
        """The side ``meta`` names (a frame's, as the relay sent it), if any."""
        side = meta.get(SIDE_KEY) if meta else None
        if not isinstance(side, str):
            return None
        attach = meta.get(ATTACH_KEY) if meta else None
        return cls(side, attach if isinstance(attach, int) else None)


HOST_ORIGIN = Origin(HOST)
SERVER_ORIGIN = Origin(SERVER)
