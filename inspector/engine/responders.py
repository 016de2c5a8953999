"""Answers to the server's own requests: roots, sampling, elicitation.

A responder is an async callable taking the request params and returning the
result dict (or raising ``RpcError``). The session declares a client
capability only when its responder is set, because declaring it obliges us
to answer. The TUI plugs in interactive responders; the CLI plugs in the
policies below.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from inspector.wire.jsonrpc import USER_REJECTED, RpcError

Responder = Callable[[dict[str, Any]], Awaitable[dict[str, Any]]]


@dataclass
class Responders:
    """The pluggable answers; ``None`` means "not supported, do not declare"."""

    roots: Responder | None = None
    sampling: Responder | None = None
    # sampling.tools: the sampling responder can answer with tool_use (the TUI dialog can;
    # ``--on-sample TEXT`` cannot), so servers may send ``tools``/``toolChoice``
    sampling_tools: bool = False
    elicitation: Responder | None = None
    elicitation_modes: tuple[str, ...] = ("form",)
    roots_list_changed: bool = True
    extra: dict[str, Responder] = field(default_factory=dict)  # e.g. tasks responders

    def capabilities(self) -> dict[str, Any]:
        caps: dict[str, Any] = {}
        if self.roots is not None:
            caps["roots"] = {"listChanged": self.roots_list_changed}
        if self.sampling is not None:
            caps["sampling"] = {"tools": {}} if self.sampling_tools else {}
        if self.elicitation is not None:
            caps["elicitation"] = {mode: {} for mode in self.elicitation_modes}
        return caps

    def for_method(self, method: str) -> Responder | None:
        if method == "roots/list":
            return self.roots
        if method == "sampling/createMessage":
            return self.sampling
        if method == "elicitation/create":
            return self.elicitation
        return self.extra.get(method)


def path_to_root(path: str | Path) -> dict[str, Any]:
    """A roots/list entry for a local path (made absolute, as a file:// URI)."""
    resolved = Path(path).expanduser().resolve()
    return {"uri": resolved.as_uri(), "name": resolved.name or str(resolved)}


class RootsList:
    """A mutable list of roots; the session sends list_changed when it changes."""

    def __init__(self, paths: Iterable[str | Path] = ()) -> None:
        self.roots: list[dict[str, Any]] = [path_to_root(p) for p in paths]

    async def __call__(self, params: dict[str, Any]) -> dict[str, Any]:
        return {"roots": list(self.roots)}


def fixed_sampling(text: str, model: str = "mcp-inspect") -> Responder:
    """Answer every sampling request with the same text (``--on-sample TEXT``)."""

    async def respond(params: dict[str, Any]) -> dict[str, Any]:
        return {
            "role": "assistant",
            "content": {"type": "text", "text": text},
            "model": model,
            "stopReason": "endTurn",
        }

    return respond


def reject_sampling(reason: str = "rejected by the user") -> Responder:
    async def respond(params: dict[str, Any]) -> dict[str, Any]:
        raise RpcError(USER_REJECTED, reason)

    return respond


ELICIT_POLICIES = ("accept-defaults", "decline", "cancel")


def elicitation_policy(policy: str) -> Responder:
    """A fixed answer to elicitation (``--on-elicit``)."""
    if policy not in ELICIT_POLICIES:
        raise ValueError(
            f"unknown elicitation policy {policy!r}; use one of {', '.join(ELICIT_POLICIES)}"
        )

    async def respond(params: dict[str, Any]) -> dict[str, Any]:
        if policy != "accept-defaults":
            return {"action": policy}
        if params.get("mode") == "url":
            return {"action": "accept"}
        return {"action": "accept", "content": defaults_for(params.get("requestedSchema"))}

    return respond


def defaults_for(schema: Any) -> dict[str, Any]:
    """Content for an elicitation schema: each default, else a neutral value for required."""
    if not isinstance(schema, dict):
        return {}
    props = schema.get("properties") or {}
    required = set(schema.get("required") or [])
    content: dict[str, Any] = {}
    for name, prop in props.items():
        if not isinstance(prop, dict):
            continue
        if "default" in prop:
            content[name] = prop["default"]
        elif name in required:
            content[name] = _neutral_value(prop)
    return content


def _neutral_value(prop: dict[str, Any]) -> Any:
    if prop.get("enum"):
        return prop["enum"][0]
    for option in prop.get("oneOf") or prop.get("anyOf") or []:
        if isinstance(option, dict) and "const" in option:
            return option["const"]
    kind = prop.get("type")
    if kind in ("number", "integer"):
        return prop.get("minimum", 0)
    if kind == "boolean":
        return False
    if kind == "array":
        items = prop.get("items") or {}
        choices = items.get("enum") or [o.get("const") for o in items.get("anyOf") or []]
        return choices[:1] if choices else []
    return ""
