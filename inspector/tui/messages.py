"""Messages to the app and its widgets: the session controller's (engine facts), the live
state's changes (``LiveFeed``) and replay mode's (UI thread)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from textual.message import Message

from inspector.engine.lists import ListChange
from inspector.engine.tasks import TaskState
from inspector.live.server_log import LogEntry
from inspector.replay.recorded_catalog import RecordedCatalog
from inspector.wire.events import WireEvent
from inspector.wire.transport import ConnectionLost


@dataclass
class Connecting(Message):
    """A connection starts; ``renewal``: it replaces a session the server expired."""

    target: str
    attempt: int
    renewal: bool = False


@dataclass
class Connected(Message):
    """The handshake finished; server facts are on the session."""

    renewal: bool = False


@dataclass
class ConnectFailed(Message):
    error: str
    ended: ConnectionLost | None = None  # a stdio server that exited: why, as it said
    needs_auth: bool = False  # a workspace's server whose OAuth waits to be chosen


@dataclass
class Disconnected(Message):
    lost: ConnectionLost


@dataclass
class CatalogLoaded(Message):
    """A catalog list arrived: at connect, or re-listed after list_changed (``change``
    then says how it differs from the list before; it may be empty)."""

    kind: str
    items: list[dict[str, Any]]
    change: ListChange | None = None
    error: str | None = None


# -- the live state's changes (``LiveFeed`` posts them to every subscriber; they do not
# bubble, so a widget and the app each see their own copy once) --------------------------


class LiveChange(Message, bubble=False):
    """A change of the ``LiveState`` the widgets render from (every subclass says
    ``bubble=False`` again: Textual resets it to True for a subclass that does not)."""


@dataclass
class EventsAdded(LiveChange, bubble=False):
    """The event source grew from index ``first``; ``events`` are the new ones when they
    are at hand (a live session's batch; empty when a recording's index grew)."""

    first: int
    events: Sequence[WireEvent]


class SessionAttached(LiveChange, bubble=False):
    """The state follows a new session (after its opening)."""


class RequestsChanged(LiveChange, bubble=False):
    """A request finished, or a late response came to one."""


@dataclass
class TasksChanged(LiveChange, bubble=False):
    """Tasks changed; ``outcomes``: whether some task's outcome became known (drawn at
    once; progress alone may be drawn at a calmer pace)."""

    outcomes: bool


@dataclass
class TaskFinished(LiveChange, bubble=False):
    """A task's outcome is known: ``state.result`` or ``state.error``."""

    state: TaskState


@dataclass
class ServerLogAdded(LiveChange, bubble=False):
    """New ``notifications/message`` entries."""

    entries: Sequence[LogEntry]


@dataclass
class ResourceUpdated(LiveChange, bubble=False):
    """The server said ``uri`` changed (``notifications/resources/updated``)."""

    uri: str


# -- replay mode ---------------------------------------------------------------------------


@dataclass
class Indexing(LiveChange, bubble=False):
    """A recording is being indexed: ``fraction`` done (None: finished)."""

    fraction: float | None


@dataclass
class ReplayCatalog(LiveChange, bubble=False):
    """The catalog and server facts as recorded (up to some event, or the whole file);
    ``unknown``: per kind, why it has no list (never listed in this recording);
    ``title``: the recording's."""

    catalog: RecordedCatalog
    unknown: dict[str, str | None]
    title: str | None
