"""The live server's requests during a replay, answered from the recording."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from inspector.engine.responders import Responders
from inspector.replay.diff import IgnoreRule, diff
from inspector.replay.plan import ServerExchange
from inspector.wire import jsonrpc
from inspector.wire.jsonrpc import RpcError


class RecordedResponders(Responders):
    """Answers server requests with the recorded answers: exact params first, then the
    next unused answer to the same method. Declares no capability of its own (the
    recorded capabilities are sent as they were)."""

    def __init__(self, exchanges: Sequence[ServerExchange], rules: Sequence[IgnoreRule]) -> None:
        super().__init__()
        self.exchanges = [e for e in exchanges if e.answer is not None]
        self.rules = rules
        self.used: set[int] = set()
        self.live: list[tuple[str, Any]] = []

    def capabilities(self) -> dict[str, Any]:
        return {}

    def for_method(self, method: str) -> Any:
        async def respond(params: dict[str, Any]) -> dict[str, Any]:
            return self.answer(method, params)

        return respond

    def answer(self, method: str, params: Any) -> dict[str, Any]:
        self.live.append((method, params))
        same = [i for i, e in enumerate(self.exchanges) if e.method == method]
        if not same:
            raise RpcError(
                jsonrpc.METHOD_NOT_FOUND, f"replay: the recording has no answer to {method}"
            )
        exact = [
            i
            for i in same
            if i not in self.used and diff(self.exchanges[i].params, params, self.rules).same
        ]
        unused = [i for i in same if i not in self.used]
        pick = (exact or unused or same[-1:])[0]
        self.used.add(pick)
        answer = self.exchanges[pick].answer or {}
        if "error" in answer:
            raise RpcError.from_error(answer["error"])
        result = answer.get("result")
        return result if isinstance(result, dict) else {}
