"""Intercept (mitmproxy's ``i``): hold the host's and the server's frames that match a
filter until an inspector forwards, edits or drops them.

The filter is the log's language (``method:tools/call``, ``dir:in kind:response``, text).
Only traffic between the host and the server is held (an inspector's own frames are
deliberate already). Frames behind a held one in the same direction wait for it, so the
order on the wire never changes.

Every change is an event in the recording, so the log says what the host sent and
what the server got:

- a held frame: a note ``held #N`` (for a frame of the host, with the bytes the host
  sent in ``meta.raw``: the frame itself is recorded when it goes to the server);
- forwarded: the frame as the server got it carries ``meta.intercept = "forwarded"``;
- edited: a note ``edited #N``, and the frame as the server got it carries
  ``meta.intercept = "edited"`` and ``meta.original``; for a frame of the server, the
  frame is recorded as the server sent it and the note carries what the host got
  (``meta.delivered``);
- dropped: a note ``dropped #N``.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import anyio

from inspector.engine.summary import summarize
from inspector.logstore.store import LogFilter
from inspector.proxy.wire import ProxyWire
from inspector.wire.events import Direction, WireEvent, party

FORWARD = "forward"
DROP = "drop"
ACTIONS = (FORWARD, DROP)


@dataclass
class Held:
    """One frame waiting for a decision."""

    number: int
    direction: Direction
    raw: bytes
    side: str | None
    summary: str
    decided: anyio.Event = field(default_factory=anyio.Event)
    action: str | None = None  # FORWARD or DROP, once decided
    replacement: bytes | None = None  # the edited frame, when it was edited
    callbacks: list[Callable[[], None]] = field(default_factory=list)  # run once decided

    @property
    def frame(self) -> bytes:
        return self.replacement if self.replacement is not None else self.raw

    def to_json(self) -> dict[str, Any]:
        return {
            "held": self.number,
            "dir": self.direction.value,
            "side": self.side,
            "summary": self.summary,
            "raw": self.raw.decode("utf-8", "replace"),
        }


Listener = Callable[[str, dict[str, Any]], None]  # (op, fields) for the attach socket


class Interceptor:
    """The proxy's one intercept filter and the frames it holds."""

    def __init__(self, wire: ProxyWire) -> None:
        self.wire = wire
        self.query = ""
        self._filter: LogFilter | None = None
        self.held: dict[int, Held] = {}
        self._numbers = itertools.count(1)
        self.listeners: list[Listener] = []

    def set_filter(self, query: str, who: str = "an inspector") -> list[str]:
        """Hold what matches ``query`` from now on ("" stops holding; what is held stays
        held until released). Returns the parts of the query that were not understood."""
        parsed = LogFilter.parse(query)
        if parsed.problems:
            return [str(p) for p in parsed.problems]
        self.query = query.strip()
        self._filter = None if parsed.is_empty else parsed
        text = f"intercept: {self.query}" if self._filter else "intercept off"
        self.wire.note(f"{text} (set by {who})", intercept="filter", filter=self.query)
        self._tell("intercept", {"filter": self.query})
        return []

    @property
    def active(self) -> bool:
        """A filter is set (else nothing is held, and a frame needs no probe event)."""
        return self._filter is not None

    def wants(self, event: WireEvent) -> bool:
        return self._filter is not None and self._filter.matches(event)

    def reserve(self) -> int:
        """The number the next held frame gets (so its event can carry it)."""
        return next(self._numbers)

    def hold(self, event: WireEvent, number: int | None = None) -> Held:
        """Hold the frame of ``event`` (the caller waits for ``decided``)."""
        summary = summarize(event)
        held = Held(
            number if number is not None else self.reserve(),
            event.direction,
            event.raw,
            party(event.meta),
            f"{summary.method or summary.kind.value} {summary.text}".strip(),
        )
        self.held[held.number] = held
        where = "host → server" if event.direction is Direction.OUT else "server → host"
        meta: dict[str, Any] = {"intercept": "held", "held": held.number}
        if event.direction is Direction.OUT:  # not recorded yet: say what the host sent
            meta["raw"] = event.text()
        self.wire.note(f"held #{held.number} ({where}): {held.summary}", **meta)
        self._tell("held", held.to_json())
        return held

    def release(
        self, number: int, action: str, raw: bytes | None = None, who: str = "an inspector"
    ) -> str | None:
        """Forward (``raw``: edited) or drop a held frame; an error text when it cannot."""
        held = self.held.get(number)
        if held is None:
            return f"nothing is held as #{number}"
        if action not in ACTIONS:
            return f"unknown action {action!r} (forward or drop)"
        if raw is not None and action == FORWARD and raw != held.raw:
            if b"\n" in raw.strip():
                return "an edited frame must be one line (a stdio peer reads a line a message)"
            held.replacement = raw.strip()
        del self.held[number]
        held.action = action
        if action == DROP:
            self.wire.note(f"dropped #{number} (by {who})", intercept="dropped", held=number)
        elif held.replacement is not None:
            meta: dict[str, Any] = {"intercept": "edited", "held": number}
            if held.direction is Direction.IN:
                meta["delivered"] = held.replacement.decode("utf-8", "replace")
            self.wire.note(f"edited #{number} (by {who})", **meta)
        else:
            self.wire.note(f"forwarded #{number} (by {who})", intercept="forwarded", held=number)
        self._tell("released", {"held": number, "action": action})
        held.decided.set()
        for callback in held.callbacks:
            callback()
        return None

    def release_all(self, who: str = "the proxy") -> None:
        """Forward everything held (the proxy is ending, or an inspector asked)."""
        for number in list(self.held):
            self.release(number, FORWARD, who=who)

    def _tell(self, op: str, fields: dict[str, Any]) -> None:
        for listener in list(self.listeners):
            listener(op, fields)
