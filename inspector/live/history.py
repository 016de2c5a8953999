"""The calls sent in a session (tool calls, resource reads, prompt gets), read off its wire.

    history = CallHistory(state.events)   # a live session's store, or a recording
    history.update()                      # take in the events added since (cheap)
    history.calls()                       # newest first
    history.calls("tools", "add")         # the calls of one tool
    history.answer(call)                  # its response, once it came: result or error

The history is not kept apart: it is derived from the request frames themselves, so the
session file holds it by construction and a replay shows the same list. A load run's
frames (``side: user``) are its own traffic, not calls the user made, and stay out.
No Textual here.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from inspector.logstore.store import EventSource, LogFilter
from inspector.wire.events import Kind, party

# the catalog kind each call's method belongs to
METHOD_KIND = {"tools/call": "tools", "resources/read": "resources", "prompts/get": "prompts"}
# one filter per method: the method's name as a text term too, so that a recording is
# searched in its bytes (fast) instead of decoding every line
_FILTERS = tuple(LogFilter.parse(f'kind:request dir:out method:{m} "{m}"') for m in METHOD_KIND)
LOAD_SIDE = "user"  # a load run's virtual users (``load/sampling.py``)


@dataclass(frozen=True, slots=True)
class Call:
    """One call as it went out: what a re-send sends again."""

    index: int  # the request frame's index in the event source
    kind: str  # "tools", "resources" or "prompts" (the catalog's kind)
    name: str  # the tool's or prompt's name, or the resource's URI
    arguments: dict[str, Any] | None  # as sent (None: a resource read has none)
    time: float  # wall clock of the request, epoch seconds
    task: bool = False  # a tool called as a task (``params.task``)
    party: str | None = None  # whose frame on a proxy's wire (host, inspector 2)

    @property
    def label(self) -> str:
        """``tool add``, ``read demo://readme``, ``prompt greet``."""
        verb = {"tools": "tool", "resources": "read", "prompts": "prompt"}[self.kind]
        return f"{verb} {self.name}"

    def arguments_text(self) -> str:
        """The arguments as compact JSON (``{}`` for none; empty for a read)."""
        if self.arguments is None:
            return ""
        return json.dumps(self.arguments, ensure_ascii=False, separators=(", ", ": "))


@dataclass(frozen=True, slots=True)
class Answer:
    """What came back for a call: a result or a JSON-RPC error."""

    index: int  # the response frame's index
    result: Any = None
    error: dict[str, Any] | None = None
    latency_ms: float | None = None

    @property
    def failed(self) -> bool:
        """An error, or a tool result that says it failed (``isError``)."""
        return self.error is not None or (
            isinstance(self.result, dict) and self.result.get("isError") is True
        )


@dataclass(frozen=True, slots=True)
class Status:
    """How a call ended, known without parsing its result (a row of the list)."""

    index: int  # the response frame's index
    failed: bool  # an error, or a result with ``isError``
    error: str | None = None  # the JSON-RPC error's message
    latency_ms: float | None = None


def call_of(index: int, message: Any, time: float, meta: dict[str, Any]) -> Call | None:
    """The call a request frame makes (None: not one of ours, or malformed)."""
    if not isinstance(message, dict):
        return None
    kind = METHOD_KIND.get(str(message.get("method")))
    params = message.get("params")
    if kind is None or not isinstance(params, dict):
        return None
    who = party(meta) if meta else None
    if who is not None and who.split(" ")[0] == LOAD_SIDE:
        return None
    key = "uri" if kind == "resources" else "name"
    name = params.get(key)
    if not isinstance(name, str):
        return None
    arguments: dict[str, Any] | None = None
    if kind != "resources":
        given = params.get("arguments")
        arguments = dict(given) if isinstance(given, dict) else {}
    task = kind == "tools" and isinstance(params.get("task"), dict)
    return Call(index, kind, name, arguments, time, task, who)


class CallHistory:
    """The calls of one event source, in the order they went out."""

    def __init__(self, source: EventSource) -> None:
        self.source = source
        self._calls: list[Call] = []
        self._scanned = 0  # events looked at so far
        self._status: dict[int, Status] = {}  # request index -> its answer's status

    def update(self) -> bool:
        """Take in the events added since the last update; True when calls were found."""
        source = self.source
        stop = len(source)
        start, self._scanned = self._scanned, stop
        if start >= stop:
            return False
        found = sorted({i for flt in _FILTERS for i in source.matching(flt, start, stop)})
        before = len(self._calls)
        for i in found:
            event = source.event(i)
            call = call_of(i, event.message, event.time, event.meta)
            if call is not None:
                self._calls.append(call)
        return len(self._calls) > before

    def __len__(self) -> int:
        return len(self._calls)

    def calls(self, kind: str | None = None, name: str | None = None) -> list[Call]:
        """The calls (of ``kind``, of the item ``name``), newest first."""
        return [
            c
            for c in reversed(self._calls)
            if (kind is None or c.kind == kind) and (name is None or c.name == name)
        ]

    def answer(self, call: Call) -> Answer | None:
        """The response to ``call`` (None while none came, or none was recorded)."""
        source = self.source
        j = source.find_response(call.index)
        if j is None:
            return None
        message = source.event(j).message
        if not isinstance(message, dict):
            return None
        latency = source.latency_ms(j)
        error = message.get("error")
        if isinstance(error, dict):
            return Answer(j, error=error, latency_ms=latency)
        return Answer(j, result=message.get("result"), latency_ms=latency)

    def status(self, call: Call) -> Status | None:
        """How ``call`` ended (None: no answer yet), from the frame's facts: a result is
        not parsed (it may be megabytes), an error is (for its message)."""
        known = self._status.get(call.index)
        if known is not None:
            return known
        source = self.source
        j = source.find_response(call.index)
        if j is None:
            return None
        message = None
        if source.kind(j) is Kind.ERROR:
            frame = source.event(j).message
            error = frame.get("error") if isinstance(frame, dict) else None
            message = str(error.get("message", "")) if isinstance(error, dict) else ""
        known = Status(j, source.failed(j), message, source.latency_ms(j))
        self._status[call.index] = known
        return known
