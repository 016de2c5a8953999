"""``replay FILE --serve``: a stdio MCP server that answers from a recording.

``initialize`` gets the recorded initialize result; any other request gets the
recorded response to the same method with the same params (volatile fields and
``_meta`` aside), repeated answers served in recorded order. Notifications and
responses are ignored. A request the recording cannot answer gets a JSON-RPC
error naming what was not recorded: -32601 for an unknown method, -32602 for
known method with params that were never sent.

The notifications the server sent while a request was answered (progress, log messages)
go to the live client before that answer, in recorded order; progress carries the live
request's own token, and a request that asked for none gets none.

When the recording shows the server sent requests of its own (sampling, elicitation,
roots) while a client request was answered, they are sent to the live client at the
same point, before the recorded answer; its reply is awaited (bounded) and compared
with the recorded one, a difference noted on stderr.

A recording of the 2026-07-28 stateless era is served to a stateless client: its
``server/discover`` answer like any recorded request (``_meta`` envelopes aside, so the
client's own info does not matter), multi-round-trip retries matched by their
``inputResponses``.

Across eras, where the recording allows: a handshake client of a stateless recording
gets an ``initialize`` result made from the recorded discover answer (capabilities,
server info, instructions; its results served without the stateless-only ``resultType``,
``ttlMs`` and ``cacheScope``); a stateless client of a handshake recording gets a
``server/discover`` result made from the recorded initialize answer. A recording with
neither opening refuses both.
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

from inspector.engine.era import (
    HANDSHAKE_VERSIONS,
    LATEST_VERSION,
    META_PROTOCOL_VERSION,
    META_SERVER_INFO,
    STATELESS_VERSIONS,
)
from inspector.replay.diff import DEFAULT_IGNORES, Change, IgnoreRule, diff
from inspector.replay.plan import Plan, ServerExchange
from inspector.wire import jsonrpc
from inspector.wire.stateless import complete_result

# Params are compared without the message-level "$.id" rule and without _meta
# (progress tokens, client-side request metadata).
PARAM_IGNORES = (*(r for r in DEFAULT_IGNORES if r != "$.id"), "$._meta")


# What a server answers to these when it has nothing to say: a request the recording
# does not hold gets this (said on stderr); only a call, a read or a prompt it never saw
# is an error, since those have an answer only the server knew.
EMPTY_SUCCESS: dict[str, dict[str, Any]] = {
    "ping": {},
    "logging/setLevel": {},
    "resources/subscribe": {},
    "resources/unsubscribe": {},
    "completion/complete": {"completion": {"values": []}},
    "tools/list": {"tools": []},
    "resources/list": {"resources": []},
    "resources/templates/list": {"resourceTemplates": []},
    "prompts/list": {"prompts": []},
    "skills/list": {"skills": []},
    "tasks/list": {"tasks": []},
}

ANSWER_RULES = tuple(IgnoreRule.parse(r) for r in DEFAULT_IGNORES)
ANSWER_WAIT = 30.0  # default bound on the live client's answer to a replayed server request

# Sends a server request to the live client; returns its answer message, or None (no answer)
Ask = Callable[[str, Any], "dict[str, Any] | None"]
Notify = Callable[[dict[str, Any]], None]  # writes one notification to the live client


@dataclass
class _Answers:
    params: Any
    responses: list[dict[str, Any]] = field(default_factory=list)
    asks: list[list[ServerExchange]] = field(default_factory=list)  # per response
    notes: list[list[dict[str, Any]]] = field(default_factory=list)  # per response
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
        self.discover: dict[str, Any] | None = None  # the stateless opening, made or recorded
        self.stateless = plan.protocol_version if plan.stateless else None
        self.handshake_client = False  # an initialize came: serve handshake-era results
        opened = plan.initialize.response if plan.initialize is not None else None
        if isinstance(opened, dict) and isinstance(opened.get("result"), dict):
            if plan.stateless:
                self.initialize = {**opened, "result": initialize_from(opened["result"])}
            else:
                self.initialize = opened
                self.discover = {**opened, "result": discover_from(opened["result"])}
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
            entry.notes.append(step.notifications)

    def handle(self, message: Any, ask: Ask | None = None, notify: Notify | None = None) -> Any:
        """The reply to one parsed message (a list for a batch), or None. With ``ask``,
        the server requests recorded while the request was answered are sent first; with
        ``notify``, the notifications recorded while it was answered (progress, log
        messages) before them, in recorded order. A 2026-07-28 client gets that era's
        result fields whatever era was recorded."""
        if isinstance(message, list):
            replies = [r for r in (self.handle(m, ask, notify) for m in message) if r is not None]
            return replies or None
        if not jsonrpc.is_request(message):
            return None  # notifications and responses need no answer
        reply = self._answer(message, ask, notify)
        params = message.get("params")
        meta = params.get("_meta") if isinstance(params, dict) else None
        modern = isinstance(meta, dict) and META_PROTOCOL_VERSION in meta
        if modern and isinstance(reply, dict) and isinstance(reply.get("result"), dict):
            method = str(message.get("method"))
            reply = {**reply, "result": complete_result(method, reply["result"])}
        return reply

    def _empty(self, id_: Any, method: str, why: str) -> dict[str, Any]:
        self.warnings.append(
            f"{method} {why} in {self.source}: answered with the empty success a server gives"
        )
        return jsonrpc.response(id_, dict(EMPTY_SUCCESS[method]))

    def _answer(self, message: dict[str, Any], ask: Ask | None, notify: Notify | None) -> Any:
        id_ = message.get("id")
        method = str(message.get("method"))
        params = _norm(message.get("params"))
        if method == "initialize":
            if self.initialize is None and self.stateless:
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
            self.handshake_client = True
            return _with_id(_handshake_version(self.initialize, params), id_)
        if method == "server/discover" and self.discover is not None:
            return _with_id(self.discover, id_)  # a handshake recording, a stateless client
        entries = self.table.get(method)
        if not entries:
            if method in EMPTY_SUCCESS:
                return self._empty(id_, method, "was not recorded")
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
                if notify is not None:
                    for note in _for_client(entry.notes[n], message.get("params")):
                        notify(note)
                if ask is not None:
                    self._ask_client(ask, entry.asks[n], f"{method}{_named(params)}")
                reply = _with_id(entry.responses[n], id_)
                if self.stateless and self.handshake_client:
                    reply = _without_stateless_fields(reply)
                return reply
        if method in EMPTY_SUCCESS:
            return self._empty(id_, method, "was not recorded with these params")
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


STATELESS_ONLY = ("resultType", "ttlMs", "cacheScope")  # result fields 2026-07-28 added


def initialize_from(discover: dict[str, Any]) -> dict[str, Any]:
    """An initialize result telling what a recorded ``server/discover`` result told."""
    meta = discover.get("_meta")
    info = meta.get(META_SERVER_INFO) if isinstance(meta, dict) else None
    capabilities = discover.get("capabilities")
    result: dict[str, Any] = {
        "protocolVersion": LATEST_VERSION,
        "capabilities": capabilities if isinstance(capabilities, dict) else {},
        "serverInfo": info if isinstance(info, dict) else {"name": "replay", "version": ""},
    }
    if isinstance(discover.get("instructions"), str):
        result["instructions"] = discover["instructions"]
    return result


def discover_from(initialize: dict[str, Any]) -> dict[str, Any]:
    """A ``server/discover`` result telling what a recorded initialize result told."""
    capabilities = initialize.get("capabilities")
    result: dict[str, Any] = {
        "supportedVersions": list(STATELESS_VERSIONS),
        "capabilities": capabilities if isinstance(capabilities, dict) else {},
    }
    info = initialize.get("serverInfo")
    if isinstance(info, dict):
        result["_meta"] = {META_SERVER_INFO: info}
    if isinstance(initialize.get("instructions"), str):
        result["instructions"] = initialize["instructions"]
    return result


def _handshake_version(response: dict[str, Any], params: Any) -> dict[str, Any]:
    """The initialize answer at the client's version when it is one the handshake era
    has (as a server negotiates); the recorded one otherwise."""
    wanted = params.get("protocolVersion") if isinstance(params, dict) else None
    result = response.get("result")
    if wanted not in HANDSHAKE_VERSIONS or not isinstance(result, dict):
        return response
    if result.get("protocolVersion") not in HANDSHAKE_VERSIONS:  # made from a discover
        return {**response, "result": {**result, "protocolVersion": wanted}}
    return response


def _without_stateless_fields(reply: dict[str, Any]) -> dict[str, Any]:
    result = reply.get("result")
    if not isinstance(result, dict):
        return reply
    return {**reply, "result": {k: v for k, v in result.items() if k not in STATELESS_ONLY}}


def _for_client(notes: list[dict[str, Any]], params: Any) -> list[dict[str, Any]]:
    """The recorded notifications as this client gets them: progress carries the client's
    own progress token (none asked for: no progress), the rest as recorded."""
    meta = params.get("_meta") if isinstance(params, dict) else None
    token = meta.get("progressToken") if isinstance(meta, dict) else None
    out: list[dict[str, Any]] = []
    for note in notes:
        if note.get("method") == "notifications/progress":
            if token is None:
                continue
            note = {**note, "params": {**(note.get("params") or {}), "progressToken": token}}
        out.append(note)
    return out


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
            reply = server.handle(message, ask, write)
        for warning in server.warnings:
            err.write(f"mcp-inspect replay: {warning}\n")
            err.flush()
        server.warnings.clear()
        if reply is not None:
            write(reply)
    return 0
