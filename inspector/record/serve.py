"""``replay FILE --serve``: a stdio MCP server that answers from a recording.

``initialize`` gets the recorded initialize result; any other request gets the
recorded response to the same method with the same params (volatile fields and
``_meta`` aside), repeated answers served in recorded order. Notifications and
responses are ignored. A request the recording cannot answer gets a JSON-RPC
error naming what was not recorded: -32601 for an unknown method, -32602 for
known method with params that were never sent.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, BinaryIO

from inspector.engine import jsonrpc
from inspector.record.diff import DEFAULT_IGNORES, IgnoreRule, diff
from inspector.record.replay import Plan

# Params are compared without the message-level "$.id" rule and without _meta
# (progress tokens, client-side request metadata).
PARAM_IGNORES = (*(r for r in DEFAULT_IGNORES if r != "$.id"), "$._meta")


@dataclass
class _Answers:
    params: Any
    responses: list[dict[str, Any]] = field(default_factory=list)
    served: int = 0


class RecordedServer:
    """The answer table built from a replay plan; :meth:`handle` answers one message."""

    def __init__(self, plan: Plan, source: str = "the recording",
                 rules: Sequence[IgnoreRule] | None = None) -> None:
        self.source = source
        self.rules = list(rules) if rules is not None else [
            IgnoreRule.parse(r) for r in PARAM_IGNORES]
        self.initialize: dict[str, Any] | None = None
        if plan.initialize is not None and plan.initialize.response is not None:
            self.initialize = plan.initialize.response
        self.table: dict[str, list[_Answers]] = {}
        for step in plan.requests:
            if step.response is None:
                continue
            for entry in self.table.setdefault(step.method, []):
                if diff(entry.params, _norm(step.params), self.rules).same:
                    entry.responses.append(step.response)
                    break
            else:
                self.table[step.method].append(_Answers(_norm(step.params), [step.response]))

    def handle(self, message: Any) -> Any:
        """The reply to one parsed message (a list for a batch), or None."""
        if isinstance(message, list):
            replies = [r for r in (self.handle(m) for m in message) if r is not None]
            return replies or None
        if not jsonrpc.is_request(message):
            return None  # notifications and responses need no answer
        id_ = message.get("id")
        method = str(message.get("method"))
        params = _norm(message.get("params"))
        if method == "initialize":
            if self.initialize is None:
                return jsonrpc.error_response(id_, jsonrpc.INTERNAL_ERROR,
                                              f"replay: {self.source} has no initialize "
                                              "response to serve")
            return _with_id(self.initialize, id_)
        entries = self.table.get(method)
        if not entries:
            if method == "ping":
                return jsonrpc.response(id_, {})
            recorded = ", ".join(sorted(self.table)) or "none"
            return jsonrpc.error_response(
                id_, jsonrpc.METHOD_NOT_FOUND,
                f"replay: {method} was not recorded in {self.source} "
                f"(recorded methods: {recorded})")
        for entry in entries:
            if diff(entry.params, params, self.rules).same:
                response = entry.responses[min(entry.served, len(entry.responses) - 1)]
                entry.served += 1
                return _with_id(response, id_)
        shown = json.dumps(params, ensure_ascii=False, default=str)
        return jsonrpc.error_response(
            id_, jsonrpc.INVALID_PARAMS,
            f"replay: {method} was recorded in {self.source}, but not with these params: "
            f"{shown[:300]} ({len(entries)} recorded param set(s))",
            {"recordedParams": [e.params for e in entries[:20]]})


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


def serve(server: RecordedServer, stdin: BinaryIO | None = None,
          stdout: BinaryIO | None = None) -> int:
    """Answer line-delimited JSON-RPC on stdin until it closes."""
    inp = stdin or sys.stdin.buffer
    out = stdout or sys.stdout.buffer
    for line in inp:
        if not line.strip():
            continue
        message, error = jsonrpc.decode(line)
        if error is not None:
            reply: Any = jsonrpc.error_response(None, jsonrpc.PARSE_ERROR,
                                                f"replay server: {error}")
        else:
            reply = server.handle(message)
        if reply is not None:
            out.write(jsonrpc.encode(reply) + b"\n")
            out.flush()
    return 0
