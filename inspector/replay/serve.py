"""``replay FILE --serve``: a stdio MCP server that answers from a recording.

``initialize`` gets the recorded initialize result; any other request gets the
recorded response to the same method with the same params (volatile fields and
``_meta`` aside), repeated answers served in recorded order. Notifications and
responses are ignored. A request the recording cannot answer gets a JSON-RPC
error naming what was not recorded: -32601 for an unknown method, -32602 for
known method with params that were never sent.

When the recording shows the server sent requests of its own (sampling, elicitation,
roots) while a client request was answered, they are sent to the live client at the
same point, before the recorded answer; its reply is awaited (bounded) and compared
with the recorded one, a difference noted on stderr.

A recording of the 2026-07-28 stateless era is served to a stateless client: its
``server/discover`` answer like any recorded request (``_meta`` envelopes aside, so the
client's own info does not matter), multi-round-trip retries matched by their
``inputResponses``; an ``initialize`` is refused with a message saying which
``--protocol-version`` to connect with.
"""

from __future__ import annotations

import json
import queue
import sys
import threading
import time
from collections import deque
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, BinaryIO, TextIO

from inspector.replay.diff import DEFAULT_IGNORES, Change, IgnoreRule, diff
from inspector.replay.plan import Plan, ServerExchange
from inspector.wire import jsonrpc

# Params are compared without the message-level "$.id" rule and without _meta
# (progress tokens, client-side request metadata).
PARAM_IGNORES = (*(r for r in DEFAULT_IGNORES if r != "$.id"), "$._meta")


ANSWER_RULES = tuple(IgnoreRule.parse(r) for r in DEFAULT_IGNORES)
ANSWER_WAIT = 30.0  # default bound on the live client's answer to a replayed server request

# Sends a server request to the live client; returns its answer message, or None (no answer)
Ask = Callable[[str, Any], "dict[str, Any] | None"]


@dataclass
class _Answers:
    params: Any
    responses: list[dict[str, Any]] = field(default_factory=list)
    asks: list[list[ServerExchange]] = field(default_factory=list)  # per response
    served: int = 0


class RecordedServer:
    """The answer table built from a replay plan; :meth:`handle` answers one message."""

    def __init__(
        self, plan: Plan, source: str = "the recording", rules: Sequence[IgnoreRule] | None = None
    ) -> None:
        self.source = source
        self.rules = (
            list(rules) if rules is not None else [IgnoreRule.parse(r) for r in PARAM_IGNORES]
        )
        self.initialize: dict[str, Any] | None = None
        self.stateless = plan.protocol_version if plan.stateless else None
        if (
            plan.initialize is not None
            and plan.initialize.response is not None
            and not plan.stateless
        ):
            self.initialize = plan.initialize.response
        self.table: dict[str, list[_Answers]] = {}
        self.warnings: list[str] = []  # the live client answered otherwise than recorded
        opening = [plan.initialize] if plan.stateless and plan.initialize else []
        for step in opening + plan.requests:
            if step.response is None:
                continue
            for entry in self.table.setdefault(step.method, []):
                if diff(entry.params, _norm(step.params), self.rules).same:
                    break
            else:
                entry = _Answers(_norm(step.params))
                self.table[step.method].append(entry)
            entry.responses.append(step.response)
            entry.asks.append(step.server_requests)

    def handle(self, message: Any, ask: Ask | None = None) -> Any:
        """The reply to one parsed message (a list for a batch), or None. With ``ask``,
        the server requests recorded while the request was answered are sent first."""
        if isinstance(message, list):
            replies = [r for r in (self.handle(m, ask) for m in message) if r is not None]
            return replies or None
        if not jsonrpc.is_request(message):
            return None  # notifications and responses need no answer
        id_ = message.get("id")
        method = str(message.get("method"))
        params = _norm(message.get("params"))
        if method == "initialize":
            if self.stateless:
                return jsonrpc.error_response(
                    id_,
                    jsonrpc.INVALID_REQUEST,
                    f"replay: {self.source} was recorded in the stateless era (protocol "
                    f"{self.stateless}, no initialize): connect with --protocol-version "
                    f"{self.stateless}",
                    {"supported": [self.stateless]},
                )
            if self.initialize is None:
                return jsonrpc.error_response(
                    id_,
                    jsonrpc.INTERNAL_ERROR,
                    f"replay: {self.source} has no initialize response to serve",
                )
            return _with_id(self.initialize, id_)
        entries = self.table.get(method)
        if not entries:
            if method == "ping":
                return jsonrpc.response(id_, {})
            recorded = ", ".join(sorted(self.table)) or "none"
            return jsonrpc.error_response(
                id_,
                jsonrpc.METHOD_NOT_FOUND,
                f"replay: {method} was not recorded in {self.source} "
                f"(recorded methods: {recorded})",
            )
        for entry in entries:
            if diff(entry.params, params, self.rules).same:
                n = min(entry.served, len(entry.responses) - 1)
                entry.served += 1
                if ask is not None:
                    self._ask_client(ask, entry.asks[n], f"{method}{_named(params)}")
                return _with_id(entry.responses[n], id_)
        shown = json.dumps(params, ensure_ascii=False, default=str)
        return jsonrpc.error_response(
            id_,
            jsonrpc.INVALID_PARAMS,
            f"replay: {method} was recorded in {self.source}, but not with these params: "
            f"{shown[:300]} ({len(entries)} recorded param set(s))",
            {"recordedParams": [e.params for e in entries[:20]]},
        )

    def _ask_client(self, ask: Ask, exchanges: Iterable[ServerExchange], during: str) -> None:
        for exchange in exchanges:
            live = ask(exchange.method, exchange.params)
            where = f"the client's answer to {exchange.method} (during {during})"
            if live is None:
                self.warnings.append(f"{where}: none came")
            elif exchange.answer is None:
                self.warnings.append(f"{where}: the recording has none to compare with")
            else:
                found = diff(exchange.answer, live, ANSWER_RULES)
                if not found.same:
                    shown = "; ".join(_change(c) for c in found.changes[:5])
                    self.warnings.append(f"{where} differs from the recording: {shown}")


def _named(params: Any) -> str:
    name = params.get("name") or params.get("uri") if isinstance(params, dict) else None
    return f" {name}" if isinstance(name, str) else ""


def _change(change: Change) -> str:
    if change.kind == "added":
        return f"{change.path} added: {_short(change.new)}"
    if change.kind == "removed":
        return f"{change.path} removed (was {_short(change.old)})"
    return f"{change.path}: {_short(change.old)} -> {_short(change.new)}"


def _short(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, default=str)[:120]


def _norm(params: Any) -> Any:
    """Absent params and null-valued keys mean the same to a server (``cursor: null``)."""
    if params is None:
        return {}
    if isinstance(params, dict):
        return {k: v for k, v in params.items() if v is not None}
    return params


def _with_id(response: dict[str, Any], id_: Any) -> dict[str, Any]:
    out = dict(response)
    out["id"] = id_
    return out


class _Lines:
    """stdin read on a thread, so that waiting for the client's answer can be bounded;
    lines that arrive during such a wait are kept, in order, for the main loop."""

    def __init__(self, inp: BinaryIO) -> None:
        self.queue: queue.Queue[bytes | None] = queue.Queue()
        self.backlog: deque[bytes | None] = deque()
        threading.Thread(target=self._read, args=(inp,), daemon=True).start()

    def _read(self, inp: BinaryIO) -> None:
        try:
            for line in inp:
                self.queue.put(line)
        finally:
            self.queue.put(None)

    def next(self) -> bytes | None:
        """The next line; None at the end of input."""
        return self.backlog.popleft() if self.backlog else self.queue.get()

    def wait_for(self, id_: Any, timeout: float) -> dict[str, Any] | None:
        """The response to ``id_`` within ``timeout`` s; anything else goes to the backlog."""
        deadline = time.monotonic() + timeout
        while (remaining := deadline - time.monotonic()) > 0:
            try:
                line = self.queue.get(timeout=remaining)
            except queue.Empty:
                return None
            message = jsonrpc.decode(line)[0] if line is not None else None
            if isinstance(message, dict) and "method" not in message and message.get("id") == id_:
                return message
            self.backlog.append(line)
            if line is None:
                return None  # the client went away
        return None


def serve(
    server: RecordedServer,
    stdin: BinaryIO | None = None,
    stdout: BinaryIO | None = None,
    stderr: TextIO | None = None,
    answer_wait: float = ANSWER_WAIT,
) -> int:
    """Answer line-delimited JSON-RPC on stdin until it closes."""
    out = stdout or sys.stdout.buffer
    err = stderr or sys.stderr
    lines = _Lines(stdin or sys.stdin.buffer)
    asked = 0

    def write(message: Any) -> None:
        out.write(jsonrpc.encode(message) + b"\n")
        out.flush()

    def ask(method: str, params: Any) -> dict[str, Any] | None:
        nonlocal asked
        asked += 1
        id_ = f"replay-{asked}"  # never like a client's ids, so answers cannot be confused
        write(jsonrpc.request(id_, method, params))
        return lines.wait_for(id_, answer_wait)

    while (line := lines.next()) is not None:
        if not line.strip():
            continue
        message, error = jsonrpc.decode(line)
        if error is not None:
            reply: Any = jsonrpc.error_response(
                None, jsonrpc.PARSE_ERROR, f"replay server: {error}"
            )
        else:
            reply = server.handle(message, ask)
        for warning in server.warnings:
            err.write(f"mcp-inspect replay: {warning}\n")
            err.flush()
        server.warnings.clear()
        if reply is not None:
            write(reply)
    return 0
