"""``LiveState``: the one owner of a session's live state, fed by a session or a file.

    state = LiveState()                  # or LiveState(source): a replay's recording
    session.add_observer(state.observe)  # every wire event (batched, not stored yet)
    state.attach(session, client)        # after the handshake: requests, tasks, log
    changes = state.take_changes()       # what changed since the last take (the TUI's
                                         # feed calls this every 50 ms and posts messages)
    changes = state.take_changes(limit=500)   # at most 500 events stored; the rest wait
    task = await state.run_task("slow_count", {})   # a tool called as a task, followed

Writers: the controller (a live session) or replay mode (a recording). Readers: the
widgets, which render from it. Headless: no Textual.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from inspector.engine.client import McpClient
from inspector.engine.session import Session
from inspector.engine.tasks import TaskManager, TaskState
from inspector.live.history import CallHistory
from inspector.live.requests import Requests
from inspector.live.server_log import LogEntry, ServerLog
from inspector.logstore.store import EventSource, EventStore
from inspector.wire.events import WireEvent

RESOURCE_UPDATED = "notifications/resources/updated"


@dataclass
class Changes:
    """What changed since the last ``take_changes``: one batch for the UI."""

    first: int = 0  # index of the first new event
    events: list[WireEvent] = field(default_factory=list)  # new events at hand (live)
    attached: bool = False  # the state follows a new session
    grew: bool = False  # the event source has more events than at the last take
    requests: bool = False  # a request finished (or the session changed)
    tasks: bool = False  # a task changed
    finished_tasks: list[TaskState] = field(default_factory=list)  # outcomes now known
    log: list[LogEntry] = field(default_factory=list)  # new server log entries
    updated: list[str] = field(default_factory=list)  # resources the server says changed

    def then(self, later: Changes) -> Changes:
        """These changes and the ``later`` ones (the next take's) as one batch."""
        return Changes(
            first=self.first,  # the takes follow each other: the first new event is ours
            events=self.events + later.events,
            attached=self.attached or later.attached,
            grew=self.grew or later.grew,
            requests=self.requests or later.requests,
            tasks=self.tasks or later.tasks,
            finished_tasks=self.finished_tasks + later.finished_tasks,
            log=self.log + later.log,
            updated=self.updated + later.updated,
        )

    @property
    def empty(self) -> bool:
        return not (
            self.attached
            or self.grew
            or self.requests
            or self.tasks
            or self.finished_tasks
            or self.log
            or self.updated
        )


class LiveState:
    """Events, requests, the calls' history, tasks, the server log, updated resources
    and the catalog."""

    def __init__(self, source: EventSource | None = None) -> None:
        """``source``: a recording to show (replay); None keeps a live session's events."""
        self.events: EventSource = source if source is not None else EventStore()
        self.requests = Requests()
        self.history = CallHistory(self.events)  # the calls sent, read off the events
        self.server_log = ServerLog()
        self.tasks: TaskManager | None = None
        self.updated: set[str] = set()  # resources updated since they were last read
        self.catalog: dict[str, list[dict[str, Any]]] = {}
        self.session: Session | None = None
        self.client: McpClient | None = None
        self._batch: list[WireEvent] = []
        self._shown = 0  # events in the source at the last take
        self._tasks_changed = False
        self._attached = False
        self._finished_tasks: list[TaskState] = []
        self._announced: set[str] = set()
        self._updated_new: list[str] = []

    # -- feeding -----------------------------------------------------------------------

    def observe(self, event: WireEvent) -> None:
        """A session observer: the event joins the next batch (stored at the next take)."""
        self._batch.append(event)

    def attach(self, session: Session, client: McpClient | None = None) -> None:
        """A session finished its opening: follow its requests, tasks, log and updates."""
        if self.session is not None:
            self.session.off_notification(self._resource_updated)
        if self.tasks is not None:
            self.tasks.remove_listener(self._task_changed)
        self.session = session
        self.client = client or McpClient(session)
        self.requests.attach(session)
        self.server_log.attach(session)
        self.tasks = TaskManager(session)
        self.tasks.add_listener(self._task_changed)
        self._announced.clear()
        self._tasks_changed = True
        self._attached = True
        session.on_notification(RESOURCE_UPDATED, self._resource_updated)

    async def run_task(
        self, name: str, arguments: dict[str, Any] | None = None, *, ttl: int | None = None
    ) -> TaskState:
        """Call tool ``name`` as a task (raises ``RpcError``) and follow it in the session's
        background: its progress and outcome reach the state (``take_changes``)."""
        if self.tasks is None:
            raise RuntimeError("no session attached: tasks need one")
        return await self.tasks.run(name, arguments, ttl=ttl)

    def _task_changed(self, state: TaskState) -> None:
        self._tasks_changed = True
        if state.fetched and state.task_id not in self._announced:
            self._announced.add(state.task_id)
            self._finished_tasks.append(state)

    def _resource_updated(self, params: dict[str, Any]) -> None:
        uri = str(params.get("uri", ""))
        self.updated.add(uri)
        self._updated_new.append(uri)

    def read(self, uri: str) -> None:
        """The user read ``uri``: its update is no longer news."""
        self.updated.discard(uri)

    # -- taking --------------------------------------------------------------------------

    @property
    def offline(self) -> bool:
        """A recording is shown (replay): there is no session to send anything to."""
        return not isinstance(self.events, EventStore)

    @property
    def store(self) -> EventStore:
        """The in-memory store of a live session (a replay reads its file instead)."""
        if not isinstance(self.events, EventStore):
            raise TypeError("this state shows a recording")
        return self.events

    def take_changes(self, limit: int | None = None) -> Changes:
        """Store the batched events and hand over everything new since the last take.

        ``limit``: store at most this many of the batched events, the oldest first; the
        rest stay batched, in order, for the next take (``pending_events``)."""
        changes = Changes(first=self._shown)
        changes.attached, self._attached = self._attached, False
        if self._batch:
            if limit is not None and len(self._batch) > limit:
                batch, self._batch = self._batch[:limit], self._batch[limit:]
            else:
                batch, self._batch = self._batch, []
            self.store.extend(batch)
            changes.events = batch
        total = len(self.events)
        changes.grew = total > self._shown
        self._shown = total
        changes.requests = self.requests.take_changed()
        changes.tasks, self._tasks_changed = self._tasks_changed, False
        changes.finished_tasks, self._finished_tasks = self._finished_tasks, []
        changes.log = self.server_log.take_new()
        changes.updated, self._updated_new = self._updated_new, []
        return changes

    def store_pending(self) -> None:
        """Store the batched events now, for a reader of the whole store (a workspace's
        comparison of a server not shown yet, whose feed has not started); the next take
        still reports them as new (its ``first`` is unchanged, its ``events`` empty)."""
        if self._batch and not self.offline:
            batch, self._batch = self._batch, []
            self.store.extend(batch)

    def unstored(self) -> list[WireEvent]:
        """The events observed and not stored yet (the next take stores them)."""
        return list(self._batch)

    @property
    def pending_events(self) -> int:
        """Events observed and not stored yet."""
        return len(self._batch)
