"""Takes the ``LiveState``'s changes every 50 ms and posts them as messages.

    feed = LiveFeed(state)
    feed.subscribe(log_view, inflight_view, app)   # each gets its own copy of each message
    feed.start(app)                                # the timer runs on ``app``

One batch per tick however fast the wire is: a backlog bigger than ``TAKE_LIMIT``
events (a flood) is stored a slice per turn of the event loop, so a key waits for one
slice, not for the whole backlog, and posted once it is all stored (or a tick later at
the latest): one set of messages a tick, not one a slice. Nothing is dropped or
reordered. Nothing is posted when nothing changed.
Subscribers handle what they show with ``@on`` handlers (the messages do not bubble).
A writer with news of its own (replay mode's recorded catalog) ``broadcast``s it.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Callable
from functools import partial
from typing import TYPE_CHECKING

from textual.message import Message

from inspector.live.state import Changes, LiveState
from inspector.tui import messages

if TYPE_CHECKING:
    from textual.message_pump import MessagePump

FLUSH = 0.05  # seconds between batches
TAKE_LIMIT = 500  # events stored per turn (~2-5 ms with the subscribers' handling)


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

    def __init__(self, state: LiveState, interval: float = FLUSH, limit: int = TAKE_LIMIT) -> None:
        self.state = state
        self.interval = interval
        self.limit = limit
        self._subscribers: list[MessagePump] = []
        self._again = False  # the rest of a backlog is due at the loop's next turn
        self._held: Changes | None = None  # taken, posted with the backlog's last slice
        self._posted_at = 0.0

    def subscribe(self, *nodes: MessagePump) -> None:
        self._subscribers.extend(node for node in nodes if node not in self._subscribers)

    def start(self, owner: MessagePump) -> None:
        """Flush on ``owner``'s timer (the app: it lives as long as the widgets)."""
        owner.set_interval(self.interval, self.flush)

    def flush(self) -> None:
        """Take a slice of the changes; the rest at the loop's next turn (keys and the
        screen go first). What the slices took is posted once the backlog is stored, or
        after ``interval`` at the latest: one set of messages a tick, not one a slice."""
        changes = self.state.take_changes(limit=self.limit)
        held = changes if self._held is None else self._held.then(changes)
        if self.state.pending_events:
            if not self._again:
                with contextlib.suppress(RuntimeError):  # no loop: the next take has them
                    asyncio.get_running_loop().call_soon(self._flush_again)
                    self._again = True
            if time.monotonic() - self._posted_at < self.interval:
                self._held = held
                return
        self._held = None
        self._posted_at = time.monotonic()
        if held.empty:
            return
        for make in change_messages(held):
            self.broadcast(make)

    def _flush_again(self) -> None:
        self._again = False
        self.flush()

    def broadcast(self, make: Callable[[], Message]) -> None:
        """Post a message made by ``make`` to every subscriber (one each)."""
        for node in self._subscribers:
            node.post_message(make())
