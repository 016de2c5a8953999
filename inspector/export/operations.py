"""MCP operations from a stream of wire events: each request with its answer.

One pass, in recording order. An :class:`Operation` is a request (either side's), or a
notification, with what answered it and the notifications that were about it (progress
by ``progressToken``, ``notifications/cancelled`` by ``requestId``). Requests still
open hold memory; finished ones are handed out as they finish, so a long session
costs only what is in flight. Frames of an inspector's own (notes, stderr, HTTP
status lines) are not operations; the exporters read them beside.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

from inspector.replay.plan import scoped, side_scope
from inspector.wire.events import Direction, Kind, WireEvent


@dataclass(slots=True)
class Operation:
    """A request and its answer, or a notification (``response`` stays None).

    ``direction`` is the request's: OUT for the client's (``tools/call``), IN for the
    server's own (sampling, elicitation, roots). ``notes`` are the notifications that
    were about this request, in order; ``response`` is None when none came (the
    session ended first: ``unanswered``)."""

    request: WireEvent
    response: WireEvent | None = None
    notes: list[WireEvent] = field(default_factory=list)
    unanswered: bool = False

    @property
    def direction(self) -> Direction:
        return self.request.direction

    @property
    def method(self) -> str:
        return self.request.method or "?"

    @property
    def message(self) -> dict[str, Any]:
        msg = self.request.message
        return msg if isinstance(msg, dict) else {}

    @property
    def params(self) -> dict[str, Any]:
        params = self.message.get("params")
        return params if isinstance(params, dict) else {}

    @property
    def is_notification(self) -> bool:
        return "id" not in self.message

    @property
    def request_id(self) -> Any:
        return self.message.get("id")

    @property
    def end(self) -> WireEvent:
        """The last frame of the operation: its answer, else the request itself."""
        return self.response if self.response is not None else self.request

    @property
    def error(self) -> dict[str, Any] | None:
        """The JSON-RPC error object of the answer, when it was one."""
        msg = self.response.message if self.response is not None else None
        error = msg.get("error") if isinstance(msg, dict) else None
        return error if isinstance(error, dict) else None

    @property
    def result(self) -> Any:
        msg = self.response.message if self.response is not None else None
        return msg.get("result") if isinstance(msg, dict) else None


MESSAGE_KINDS = frozenset({Kind.REQUEST, Kind.RESPONSE, Kind.ERROR, Kind.NOTIFICATION, Kind.BATCH})


def _messages(event: WireEvent) -> list[dict[str, Any]]:
    """The JSON-RPC messages an event carries (a batch is several)."""
    msg = event.message
    if isinstance(msg, dict):
        return [msg]
    if isinstance(msg, list):
        return [m for m in msg if isinstance(m, dict)]
    return []


def _single(event: WireEvent, message: dict[str, Any]) -> WireEvent:
    """``event`` narrowed to one message of its batch (same frame, same time)."""
    if event.message is message:
        return event
    return WireEvent(
        direction=event.direction,
        channel=event.channel,
        raw=event.raw,
        message=message,
        meta=event.meta,
        findings=event.findings,
        seq=event.seq,
        time=event.time,
        mono=event.mono,
    )


def _key(direction: Direction, event: WireEvent, rid: Any) -> tuple[Any, ...]:
    # on a proxy's wire, host and inspectors number their requests alike: whose it is
    # is part of the key (the server's answer carries the asker's side in meta too);
    # the id keeps its type (1 and "1" are two requests)
    return (direction.value, scoped(side_scope(event), rid))


class OperationPairer:
    """Feed events in order; finished operations come out of :meth:`feed` and
    :meth:`finish` (the rest, unanswered)."""

    def __init__(self) -> None:
        self._open: dict[tuple[Any, ...], Operation] = {}
        self._by_token: dict[str, Operation] = {}

    @property
    def in_flight(self) -> int:
        return len(self._open)

    def feed(self, event: WireEvent) -> list[Operation]:
        if event.kind not in MESSAGE_KINDS:
            return []
        done: list[Operation] = []
        for message in _messages(event):
            frame = _single(event, message)
            if "method" in message:
                op = Operation(frame)
                if "id" in message:
                    self._open[_key(event.direction, event, message["id"])] = op
                    token = op.params.get("_meta", {})
                    if isinstance(token, dict) and "progressToken" in token:
                        self._by_token[repr(token["progressToken"])] = op
                elif self._attach_note(op):
                    continue
                else:
                    done.append(op)
            elif "id" in message:
                asker = Direction.IN if event.direction is Direction.OUT else Direction.OUT
                op_or_none = self._open.pop(_key(asker, event, message["id"]), None)
                if op_or_none is not None:
                    op_or_none.response = frame
                    self._forget_token(op_or_none)
                    done.append(op_or_none)
        return done

    def finish(self) -> list[Operation]:
        """Requests never answered (the session ended, or the answer was lost)."""
        rest = list(self._open.values())
        for op in rest:
            op.unanswered = True
        self._open.clear()
        self._by_token.clear()
        return rest

    def _attach_note(self, note: Operation) -> bool:
        """Progress and cancellation belong to the request they name."""
        params = note.params
        target: Operation | None = None
        if note.method == "notifications/progress" and "progressToken" in params:
            target = self._by_token.get(repr(params["progressToken"]))
        elif note.method == "notifications/cancelled" and "requestId" in params:
            # a cancellation names a request of the side that sends it
            target = self._open.get(_key(note.direction, note.request, params["requestId"]))
        if target is None:
            return False
        target.notes.append(note.request)
        return True

    def _forget_token(self, op: Operation) -> None:
        meta = op.params.get("_meta")
        if isinstance(meta, dict) and "progressToken" in meta:
            self._by_token.pop(repr(meta["progressToken"]), None)


def pair_operations(events: Iterable[WireEvent]) -> Iterator[Operation]:
    """Every operation of ``events`` as it finishes, the unanswered ones last."""
    pairer = OperationPairer()
    for event in events:
        yield from pairer.feed(event)
    yield from pairer.finish()
