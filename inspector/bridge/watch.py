"""A person watches the bridge's connections: each one serves an attach socket, as a proxy
does, so ``mcp-inspect attach NAME`` (``mcp-inspect proxies`` lists them) opens the TUI on
it: the wire so far, then every frame live.

Watch only: the agent drives the session. An attached TUI's ``initialize`` is answered
with the connection's own handshake; anything else it sends is refused with a message
saying so (the TUI shows it as that request's error), never sent to the server, whose
session ids and state are the agent's.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import AsyncIterator
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any, cast

import anyio

from inspector.engine.session import Session
from inspector.proxy.control import ControlServer
from inspector.proxy.router import Outbound
from inspector.proxy.runtime import SOCKET_SUFFIX, RuntimeDirError, runtime_dir
from inspector.proxy.wire import ProxyWire
from inspector.target import Target
from inspector.wire import jsonrpc
from inspector.wire.events import Channel, Direction, WireEvent

if TYPE_CHECKING:
    from inspector.proxy.relay import Relay

WATCH_ONLY = (
    "this is an mcp-inspect mcp connection: an agent drives it and a person watches; "
    "nothing an attached inspector sends goes to the server"
)


class SessionWire(ProxyWire):
    """The connection's events as the session numbered and linted them (a proxy's wire
    would number and lint again); the attach socket's notes go into the session's wire."""

    def __init__(self) -> None:
        super().__init__(recorder=None)
        self.session: Session | None = None

    def show(self, event: WireEvent) -> None:
        self.count += 1
        self._remember(event)
        for watcher in list(self._watchers):
            watcher(event, None)

    def note(self, text: str, severity: str = "info", **meta: Any) -> WireEvent:
        if self.session is not None:
            self.session.note(text, severity, **meta)  # numbered, recorded, shown
        return WireEvent(Direction.LOCAL, Channel.SYSTEM, text.encode("utf-8"), meta=meta)


class WatchOnly:
    """What an attached inspector's frames become (the relay's part a proxy plays)."""

    def __init__(self, session: Session, stdio: bool) -> None:
        self.session = session
        self.out_channel = Channel.STDIN if stdio else Channel.BODY
        self.in_channel = Channel.STDOUT if stdio else Channel.BODY
        self.done = anyio.Event()

    async def from_inspector(self, attach: int, raw: bytes) -> Outbound:
        message = jsonrpc.decode(raw)[0]
        if jsonrpc.is_request(message) and message.get("method") == "initialize":
            opened = self.session.initialize_result or {}
            return Outbound(reply=jsonrpc.response(message.get("id"), opened))
        if not jsonrpc.is_request(message):
            return Outbound(dropped=f"not sent: {WATCH_ONLY}")
        return Outbound(refused=WATCH_ONLY)

    async def detach(self, attach: int) -> None:
        return None


@contextlib.asynccontextmanager
async def watch_socket(
    wire: SessionWire,
    session: Session,
    connection_id: str,
    target: Target,
    record: str | None,
) -> AsyncIterator[str | None]:
    """Serve the connection's attach socket while inside; yields the name ``attach``
    takes (None: no socket could be made, which the log says; the connection works on)."""
    name = f"bridge-{os.getpid()}-{connection_id}"
    wire.session = session
    relay = WatchOnly(session, stdio=target.url is None)
    info = {
        "name": name,
        "pid": os.getpid(),
        "uid": os.getuid(),
        "target": target.describe(),
        "front": "mcp-inspect mcp (watch only)",
        "started": datetime.now(UTC).isoformat(timespec="seconds"),
        "record": record,
    }
    try:
        path = runtime_dir() / f"{os.getpid()}-{connection_id}{SOCKET_SUFFIX}"
        # WatchOnly plays the part of the Relay the control server uses (from_inspector,
        # detach, done, the channels): a proxy's relay would send to the server
        control = ControlServer(wire, info, lambda: cast("Relay", relay), path)
        await control.listen()
    except (RuntimeDirError, OSError) as exc:
        session.note(f"no attach socket ({exc}): a person cannot watch live", "warning")
        yield None
        return
    async with control:
        try:
            yield name
        finally:
            relay.done.set()
