"""Who hears what a session reports: one registry, with one ``subscribe`` and one
``unsubscribe`` for every topic.

The topics: ``EVENTS`` (every wire event, once it is recorded), ``FINISHED`` (how each
request ended, a ``RequestFinished``), ``CONNECTION_LOST`` (the connection ended, a
``ConnectionLost``) and ``notification(method)`` (a server notification's params). A
subscriber's bug is logged, never raised: it must not take the session down.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Hashable
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from inspector.engine.outcomes import RequestFinished
from inspector.wire.events import WireEvent
from inspector.wire.transport import ConnectionLost

log = logging.getLogger(__name__)

T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class Topic(Generic[T]):
    """What a subscriber hears; its callbacks take a ``T``."""

    key: Hashable  # a notification's method; the session's own topics are tuples (no method)
    what: str  # who failed, for the log


EVENTS: Topic[WireEvent] = Topic(("events",), "observer")
FINISHED: Topic[RequestFinished] = Topic(("finished",), "finished callback")
CONNECTION_LOST: Topic[ConnectionLost] = Topic(("lost",), "on_lost callback")


def notification(method: str) -> Topic[dict[str, Any]]:
    """The server's notifications of ``method`` (their params)."""
    return Topic(method, f"notification callback for {method}")


class Subscribers:
    """Callbacks by topic, called in the order they subscribed."""

    def __init__(self) -> None:
        self._by_key: dict[Hashable, list[Callable[[Any], None]]] = {}

    def subscribe(self, topic: Topic[T], callback: Callable[[T], None]) -> None:
        self._by_key.setdefault(topic.key, []).append(callback)

    def unsubscribe(self, callback: Callable[[Any], None], topic: Topic[Any] | None = None) -> None:
        """Stop calling ``callback`` for ``topic`` (None: for every topic it is on)."""
        keys = list(self._by_key) if topic is None else [topic.key]
        for key in keys:
            callbacks = self._by_key.get(key, [])
            while callback in callbacks:
                callbacks.remove(callback)

    def publish(self, topic: Topic[T], value: T) -> None:
        for callback in self._by_key.get(topic.key, ()):
            try:
                callback(value)
            except Exception:  # a subscriber's bug must not take the session down
                log.exception("%s failed", topic.what)

    def publish_notification(self, method: str, params: dict[str, Any]) -> None:
        """``publish(notification(method), params)`` without making the topic (a flood's
        every notification comes here)."""
        for callback in self._by_key.get(method, ()):
            try:
                callback(params)
            except Exception:  # a subscriber's bug must not take the session down
                log.exception("%s failed", notification(method).what)

    def keys(self) -> set[Hashable]:
        """The topics someone subscribed to (a notification's is its method)."""
        return {key for key, callbacks in self._by_key.items() if callbacks}
