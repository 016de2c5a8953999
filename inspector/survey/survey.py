"""One survey from a sequence of wire events: a live session's or a session file's.

Both roads read the same events the same way (:func:`from_source`): a live survey opens
a session, lists every kind the server offers into an in-memory event store, then reads
that store as it would read a recording.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from inspector.compare.catalog import Catalog
from inspector.engine.client import McpClient
from inspector.engine.kinds import CATALOG_KINDS
from inspector.engine.responders import Responders
from inspector.engine.session import EventRecorder, RequestTimeoutError, Session
from inspector.logstore.store import EventSource, EventStore
from inspector.record.era_memory import FileEraMemory
from inspector.record.indexed import IndexedSessionFile
from inspector.replay.recorded_catalog import rebuild_catalog
from inspector.wire.events import Direction, Finding, Kind, WireEvent
from inspector.wire.jsonrpc import RpcError
from inspector.wire.transport import Transport


@dataclass(frozen=True)
class Located:
    """A protocol finding and the frame it was made on (``in tools/list response #5``)."""

    where: str
    finding: Finding


@dataclass(frozen=True)
class ToolResult:
    """A ``tools/call`` result seen in the events (lint checks it against the tool)."""

    tool: str
    result: dict[str, Any]
    where: str


@dataclass
class Survey:
    source: str  # what was surveyed: a target's description or a file's path
    catalog: Catalog = field(default_factory=Catalog)
    findings: list[Located] = field(default_factory=list)
    results: list[ToolResult] = field(default_factory=list)
    stateless: bool = False

    def to_json(self) -> dict[str, Any]:
        """What was surveyed, as the reports name it."""
        info = self.catalog.server_info
        return {
            "source": self.source,
            "server": {k: info[k] for k in ("name", "version", "title") if k in info},
            "protocolVersion": self.catalog.protocol_version,
        }


def from_source(source: EventSource, describe: str) -> Survey:
    """The catalog, findings and tool results the events of ``source`` hold."""
    recorded = rebuild_catalog(source)
    catalog = Catalog.from_initialize(recorded.initialize)
    catalog.lists = dict(recorded.lists)
    catalog.errors = dict(recorded.errors)
    catalog.unlisted = {
        kind.name
        for kind in CATALOG_KINDS
        if kind.capability in catalog.capabilities and not recorded.recorded(kind.name)
    }
    survey = Survey(describe, catalog, stateless=recorded.stateless)
    for i in range(len(source)):
        if source.has_findings(i):
            event = source.event(i)
            if event.message is not None or event.error is not None:
                where = _where(source, i)
                survey.findings.extend(Located(where, f) for f in event.findings)
        if source.kind(i) is Kind.RESPONSE and source.method(i) == "tools/call":
            _tool_result(source, i, survey)
    return survey


def _where(source: EventSource, i: int) -> str:
    kind = source.kind(i).value
    method = source.method(i)
    side = "from the server" if source.direction(i) is Direction.IN else "sent"
    return f"{method + ' ' if method else ''}{kind} #{source.seq(i)} ({side})"


def _tool_result(source: EventSource, i: int, survey: Survey) -> None:
    request_at = source.find_request(i)
    if request_at is None:
        return
    request = source.event(request_at).message
    params = request.get("params") if isinstance(request, dict) else None
    name = params.get("name") if isinstance(params, dict) else None
    message = source.event(i).message
    result = message.get("result") if isinstance(message, dict) else None
    complete = isinstance(result, dict) and result.get("resultType") in (None, "complete")
    if isinstance(name, str) and isinstance(result, dict) and complete:  # not input_required
        survey.results.append(ToolResult(name, result, _where(source, i)))


def survey_file(path: Path) -> Survey:
    """A session file's survey (its latest complete listing of each kind)."""
    with IndexedSessionFile(path) as source:
        source.index_all()
        return from_source(source, str(path))


async def survey_live(
    transport: Transport,
    describe: str,
    *,
    timeout: float = 30.0,
    max_timeout: float | None = None,
    recorder: EventRecorder | None = None,
    responders: Responders | None = None,
) -> Survey:
    """Open a session, list every kind the server declares (all pages), close.

    ``responders``: the client capabilities to declare (and how their requests are
    answered); a server may offer some tools only to clients with them.

    A list the server refuses is kept as its error (the survey says so); a connection
    failure or a timeout raises, as for ``--cli``."""
    store = EventStore()
    session = Session(
        transport,
        timeout=timeout,
        max_timeout=max_timeout,
        recorder=recorder,
        responders=responders,
        protocol_version=None,  # the newest era the server speaks, as --cli finds it
        era_memory=FileEraMemory(),
    )

    def keep(event: WireEvent) -> None:
        store.append(event)

    session.add_observer(keep)
    async with session:
        await session.initialize()
        client = McpClient(session)
        for kind in CATALOG_KINDS:
            if kind.capability in session.server_capabilities:
                try:
                    await client.list_all(kind.name)
                except RequestTimeoutError:
                    raise
                except RpcError:
                    continue  # the error response is in the store: the survey keeps it
    return from_source(store, describe)
