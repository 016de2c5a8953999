"""The server's requests during a step, answered as the step's ``answers`` say.

The session declares a capability (sampling, elicitation, roots) when any step of the
file answers it, since declaring one obliges the client to answer. While a step runs its
answers are current; a request no step answers is refused (and the step says so).
The answers themselves are the engine's (:mod:`inspector.engine.responders`), as
``--on-sample``/``--on-elicit``/``--root`` give them to ``--cli``.
"""

from __future__ import annotations

from typing import Any

from inspector.collection.model import Answers, Collection
from inspector.engine.responders import (
    Responder,
    Responders,
    RootsList,
    elicitation_policy,
    fixed_sampling,
)
from inspector.wire.jsonrpc import USER_REJECTED, RpcError

KEYS = {"sampling/createMessage": "sample", "elicitation/create": "elicit", "roots/list": "roots"}


class StepAnswers:
    """The responders of one collection's session; ``current`` is the running step's."""

    def __init__(self, collection: Collection | None = None) -> None:
        self.current = Answers()
        self.unanswered: list[str] = []  # methods the current step had no answer for
        steps = collection.steps if collection is not None else []
        self.used = {
            key for s in steps for key in KEYS.values() if getattr(s.answers, key) is not None
        }

    def start(self, answers: Answers) -> None:
        self.current = answers
        self.unanswered = []

    def responders(self) -> Responders:
        responders = Responders()
        if "sample" in self.used:
            responders.sampling = self._answer("sampling/createMessage")
        if "elicit" in self.used:
            responders.elicitation = self._answer("elicitation/create")
            responders.elicitation_modes = ("form", "url")
        if "roots" in self.used:
            responders.roots = self._answer("roots/list")
        return responders

    def _answer(self, method: str) -> Responder:
        async def respond(params: dict[str, Any]) -> dict[str, Any]:
            answer = getattr(self.current, KEYS[method])
            if answer is None:
                self.unanswered.append(method)
                raise RpcError(
                    USER_REJECTED, f"this step of the collection has no answers.{KEYS[method]}"
                )
            return await responder_for(method, answer)(params)

        return respond


def responder_for(method: str, answer: Any) -> Responder:
    """The engine's responder for one answer value."""
    if method == "sampling/createMessage":
        return fixed_sampling(str(answer))
    if method == "roots/list":
        return RootsList(answer)
    if isinstance(answer, dict):  # the content to accept

        async def accept(params: dict[str, Any]) -> dict[str, Any]:
            return {"action": "accept", "content": answer}

        return accept
    return elicitation_policy(str(answer))
