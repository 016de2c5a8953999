"""The bridge's open connections: each a session opened as the command line opens one,
its wire kept in an event store (for ``log``, ``lint``, paging a big result) and
recorded to a session file in the state folder, as the TUI records.

A session's task group must be left by the task that entered it, so each connection
lives in a task of its own (:meth:`Connections.open` starts it, waits for the opening);
the tools only send requests over it, from any task.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import anyio
from anyio.abc import TaskGroup

from inspector.bridge.answers import Answers
from inspector.bridge.watch import SessionWire, watch_socket
from inspector.connection import Authorize, Connection
from inspector.engine.client import McpClient
from inspector.engine.request_errors import first_failure
from inspector.engine.session import Session
from inspector.errors import InspectorError
from inspector.logstore.store import EventStore
from inspector.record.format import Redactor, SessionHeader
from inspector.record.recorder import Recorder
from inspector.record.state import new_session_path
from inspector.target import Target, target_info
from inspector.wire.events import WireEvent


class BridgeError(InspectorError):
    """A tool failure an agent can act on: the message says what happened and what to do."""


@dataclass
class Live:
    """One open connection."""

    id: str
    target: Target
    store: EventStore = field(default_factory=EventStore)
    answers: Answers = field(default_factory=Answers)
    wire: SessionWire = field(default_factory=SessionWire)  # what attached TUIs see
    watch: str | None = None  # the name ``mcp-inspect attach`` takes
    # the tools as last listed (call checks arguments against them), until list_changed
    tools: list[dict[str, Any]] | None = None
    recorder: Recorder | None = None
    session: Session | None = None
    client: McpClient | None = None
    failure: BaseException | None = None
    _stop: anyio.Event = field(default_factory=anyio.Event)
    _done: anyio.Event = field(default_factory=anyio.Event)

    @property
    def recording(self) -> Path | None:
        return self.recorder.path if self.recorder is not None else None

    def keep(self, event: WireEvent) -> None:
        self.store.append(event)
        self.wire.show(event)

    def forget_tools(self, params: dict[str, Any]) -> None:
        self.tools = None

    def ready(self) -> tuple[Session, McpClient]:
        """The open session, or an error saying the connection is gone and why."""
        if self.session is None or self.client is None:
            raise BridgeError(f"connection {self.id} is not open")
        if self.session.closed or self.session.lost is not None:
            lost = self.session.lost
            why = f": {lost.describe()}" if lost is not None else ""
            raise BridgeError(
                f"connection {self.id} to {self.target.describe()} was lost{why}; its log "
                f"is still readable (log {{connection: {self.id!r}}}); disconnect it and "
                "connect again"
            )
        return self.session, self.client


class Connections:
    """Connections by id (``c1``, ``c2``...), each in its own task of ``group``."""

    def __init__(
        self,
        group: TaskGroup,
        authorize: Authorize,
        *,
        record: bool = True,
        timeout: float = 60.0,
    ) -> None:
        self.group = group
        self.authorize = authorize
        self.record = record
        self.timeout = timeout
        self.open_ones: dict[str, Live] = {}
        self._ids = itertools.count(1)

    def get(self, connection_id: Any) -> Live:
        live = self.open_ones.get(str(connection_id))
        if live is None:
            known = ", ".join(self.open_ones) or "none"
            raise BridgeError(
                f"no connection {connection_id!r} (open: {known}); connect {{target}} first "
                "and use the connection id it returns"
            )
        return live

    def _recorder(self, target: Target) -> Recorder | None:
        if not self.record:
            return None
        name = target.name or target.url or target.command or "server"
        path = new_session_path(name, is_url=bool(target.url))
        while path.exists():  # two connections in one second
            path = path.with_name(path.stem + "-1.jsonl")
        header = SessionHeader(target=target_info(target), extra={"bridge": True})
        return Recorder(path, header, Redactor(target.secrets()))

    async def open(self, target: Target) -> Live:
        """Connect and open; a failure raises (the connection is not kept)."""
        live = Live(f"c{next(self._ids)}", target)
        live.recorder = self._recorder(target)
        opened = anyio.Event()
        self.group.start_soon(self._run, live, opened)
        await opened.wait()
        if live.failure is not None:
            await live._done.wait()
            raise live.failure
        self.open_ones[live.id] = live
        return live

    async def _run(self, live: Live, opened: anyio.Event) -> None:
        connection = Connection(
            live.target,
            authorize=self.authorize,
            responders=live.answers.responders(),
            recorder=live.recorder,
            timeout=self.timeout,
            observers=[live.keep],
        )
        try:
            session = await self._enter(connection, live)
            if session is not None:
                live.session, live.client = session, McpClient(session)
                session.on_notification("notifications/tools/list_changed", live.forget_tools)
                record = str(live.recording) if live.recording is not None else None
                try:
                    async with watch_socket(
                        live.wire, session, live.id, live.target, record
                    ) as name:
                        live.watch = name
                        opened.set()
                        await live._stop.wait()
                finally:  # not shielded here: the session's task group is the inner scope
                    await connection.__aexit__(None, None, None)
        except Exception as exc:  # a close that fails still ends the connection
            live.failure = live.failure or exc
        finally:
            if live.recorder is not None:
                live.recorder.close()
            opened.set()
            live._done.set()

    async def _enter(self, connection: Connection, live: Live) -> Session | None:
        """The opened session, or None with ``live.failure`` set."""
        try:
            return await connection.__aenter__()
        except Exception as exc:
            live.failure = first_failure(exc)
            return None

    async def close(self, live: Live) -> None:
        """Stop the connection (a stdio server's process group too) and forget it."""
        self.open_ones.pop(live.id, None)
        live._stop.set()
        with anyio.move_on_after(15):
            await live._done.wait()

    async def close_all(self) -> None:
        for live in list(self.open_ones.values()):
            await self.close(live)
