"""Takes the ``LiveState``'s changes every 50 ms and posts them as messages.

    feed = LiveFeed(state)
    feed.subscribe(log_view, inflight_view, app)   # each gets its own copy of each message
    feed.start(app)                                # the timer runs on ``app``

One batch per tick however fast the wire is; nothing is posted when nothing changed.
Subscribers handle what they show with ``@on`` handlers (the messages do not bubble).
A writer with news of its own (replay mode's recorded catalog) ``broadcast``s it.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import TYPE_CHECKING

from textual.message import Message

from inspector.live.state import Changes, LiveState
from inspector.tui import messages

if TYPE_CHECKING:
    from textual.message_pump import MessagePump

FLUSH = 0.05  # seconds between batches


def change_messages(changes: Changes) -> list[Callable[[], Message]]:
    """What to post for ``changes`` (factories: every subscriber gets its own message)."""
    made: list[Callable[[], Message]] = []
    if changes.attached:
        made.append(messages.SessionAttached)
    if changes.grew:
        made.append(partial(messages.EventsAdded, changes.first, changes.events))
    if changes.requests:
        made.append(messages.RequestsChanged)
    if changes.tasks or changes.finished_tasks:
        made.append(partial(messages.TasksChanged, bool(changes.finished_tasks)))
    for state in changes.finished_tasks:
        made.append(partial(messages.TaskFinished, state))
    if changes.log:
        made.append(partial(messages.ServerLogAdded, changes.log))
    for uri in changes.updated:
        made.append(partial(messages.ResourceUpdated, uri))
    return made


class LiveFeed:
    """The bridge from the headless state to the widgets that render it."""

    def __init__(self, state: LiveState, interval: float = FLUSH) -> None:
        self.state = state
        self.interval = interval
        self._subscribers: list[MessagePump] = []

    def subscribe(self, *nodes: MessagePump) -> None:
        self._subscribers.extend(node for node in nodes if node not in self._subscribers)

    def start(self, owner: MessagePump) -> None:
        """Flush on ``owner``'s timer (the app: it lives as long as the widgets)."""
        owner.set_interval(self.interval, self.flush)

    def flush(self) -> None:
        changes = self.state.take_changes()
        if changes.empty:
            return
        for make in change_messages(changes):
            self.broadcast(make)

    def broadcast(self, make: Callable[[], Message]) -> None:
        """Post a message made by ``make`` to every subscriber (one each)."""
        for node in self._subscribers:
            node.post_message(make())
