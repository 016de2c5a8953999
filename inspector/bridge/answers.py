"""How the bridge answers a server's own requests (sampling, elicitation, roots) during a
call: by the policy the agent gives in that call (``answers``), declining by default.

The capabilities are declared at connect time (a server only asks a client that
declared them); what each answer is comes from the policy of the call in flight. Every
request asked and how it was answered is kept, so the call's result can list them.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from inspector.engine.responders import (
    Responders,
    defaults_for,
    fixed_sampling,
    path_to_root,
)
from inspector.wire.jsonrpc import USER_REJECTED, RpcError

ELICIT = ("decline", "cancel", "accept-defaults")

# the input schema of a call's ``answers`` (the tools' schemas share it)
ANSWERS_SCHEMA: dict[str, Any] = {
    "type": "object",
    "description": "How to answer the server's own requests during this call "
    "(each declined when not given).",
    "properties": {
        "sampling": {
            "type": "string",
            "description": "sampling/createMessage: the assistant text to answer with "
            "(omitted: the request is rejected).",
        },
        "elicitation": {
            "description": "elicitation/create: 'decline' (default), 'cancel', "
            "'accept-defaults' (the schema's defaults), or an object: the content to "
            "accept with.",
            "anyOf": [{"type": "string", "enum": list(ELICIT)}, {"type": "object"}],
        },
        "roots": {
            "type": "array",
            "items": {"type": "string"},
            "description": "roots/list: local paths to offer as roots (default: none).",
        },
    },
    "additionalProperties": False,
}


@dataclass
class Answers:
    """The policy of the call in flight, and the server requests it answered."""

    policy: dict[str, Any] = field(default_factory=dict)
    asked: list[dict[str, Any]] = field(default_factory=list)

    def start(self, policy: dict[str, Any] | None) -> None:
        self.policy = dict(policy or {})
        self.asked = []

    def responders(self) -> Responders:
        return Responders(
            roots=self._roots,
            sampling=self._sampling,
            elicitation=self._elicitation,
            elicitation_modes=("form", "url"),
        )

    def _note(self, method: str, answer: str) -> None:
        self.asked.append({"method": method, "answer": answer})

    async def _roots(self, params: dict[str, Any]) -> dict[str, Any]:
        paths = self.policy.get("roots") or []
        self._note("roots/list", f"{len(paths)} root(s)")
        return {"roots": [path_to_root(p) for p in paths]}

    async def _sampling(self, params: dict[str, Any]) -> dict[str, Any]:
        text = self.policy.get("sampling")
        if not isinstance(text, str):
            self._note("sampling/createMessage", "rejected")
            raise RpcError(USER_REJECTED, "declined by the agent's policy (mcp-inspect mcp)")
        self._note("sampling/createMessage", "answered with the given text")
        return await fixed_sampling(text)(params)

    async def _elicitation(self, params: dict[str, Any]) -> dict[str, Any]:
        policy = self.policy.get("elicitation", "decline")
        if isinstance(policy, dict):
            self._note("elicitation/create", "accepted with the given content")
            return {"action": "accept", "content": policy}
        if policy == "accept-defaults":
            self._note("elicitation/create", "accepted with the schema's defaults")
            if params.get("mode") == "url":
                return {"action": "accept"}
            return {"action": "accept", "content": defaults_for(params.get("requestedSchema"))}
        action = policy if policy in ("decline", "cancel") else "decline"
        self._note("elicitation/create", action)
        return {"action": action}
