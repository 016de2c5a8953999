"""Completions for prompt arguments and resource-template variables, debounced.

    completer = Completer(client, prompt_ref("greet"))
    found = await completer.complete("name", "Al", {"language": "fr"})
    found.values          # ["Alice", "Alan"]; None when a newer keystroke superseded it

Typing fires one call per keystroke; ``complete`` waits ``debounce`` seconds and
returns ``None`` when a newer call came in meanwhile, so only the last value
reaches the server. Answers are cached per (argument, value, context). A server
without the ``completions`` capability is never asked. Headless: no Textual.
"""

from __future__ import annotations

from collections import OrderedDict
from dataclasses import dataclass, field
from typing import Any

import anyio

from inspector.engine.client import McpClient
from inspector.wire.jsonrpc import METHOD_NOT_FOUND, RpcError

MAX_VALUES = 100  # the spec caps a completion answer at 100 values
CACHE_SIZE = 256
DEFAULT_DEBOUNCE = 0.25


def prompt_ref(name: str) -> dict[str, Any]:
    return {"type": "ref/prompt", "name": name}


def resource_ref(uri_template: str) -> dict[str, Any]:
    return {"type": "ref/resource", "uri": uri_template}


@dataclass(frozen=True)
class Completion:
    """One ``completion/complete`` answer, made safe to use (strings only, at most 100)."""

    values: list[str] = field(default_factory=list)
    total: int | None = None
    has_more: bool = False
    error: str | None = None

    @classmethod
    def from_result(cls, result: Any) -> Completion:
        found = result.get("completion") if isinstance(result, dict) else None
        if not isinstance(found, dict):
            return cls(error=f"malformed completion result: {result!r}"[:300])
        raw = found.get("values")
        values = (
            [v for v in raw if isinstance(v, str)][:MAX_VALUES] if isinstance(raw, list) else []
        )
        total = found.get("total")
        return cls(
            values,
            total if isinstance(total, int) and not isinstance(total, bool) else None,
            found.get("hasMore") is True,
        )

    def first_with_prefix(self, prefix: str) -> str | None:
        """The first value that extends ``prefix`` (exact case first, then any case)."""
        for value in self.values:
            if value.startswith(prefix) and value != prefix:
                return value
        folded = prefix.casefold()
        for value in self.values:
            if value.casefold().startswith(folded) and len(value) > len(prefix):
                return prefix + value[len(prefix) :]
        return None


class Completer:
    """Debounced, cached ``completion/complete`` for one prompt or resource template."""

    def __init__(
        self,
        client: McpClient,
        ref: dict[str, Any],
        *,
        debounce: float = DEFAULT_DEBOUNCE,
        timeout: float = 10.0,
    ) -> None:
        self.client = client
        self.ref = ref
        self.debounce = debounce
        self.timeout = timeout
        self.calls = 0  # requests actually sent (tests and the status line read it)
        self.last: Completion | None = None
        self._generation = 0
        self._cache: OrderedDict[tuple[Any, ...], Completion] = OrderedDict()
        self._unsupported = False

    @property
    def supported(self) -> bool:
        caps = self.client.session.server_capabilities
        return not self._unsupported and isinstance(caps.get("completions"), dict)

    async def complete(
        self, argument: str, value: str, context: dict[str, str] | None = None
    ) -> Completion | None:
        """Values for ``argument`` given what is typed; ``None`` if superseded meanwhile."""
        if not self.supported:
            return Completion()
        context = {k: v for k, v in (context or {}).items() if k != argument and v != ""}
        key = (argument, value, tuple(sorted(context.items())))
        cached = self._cache.get(key)
        if cached is not None:
            self._cache.move_to_end(key)
            self.last = cached
            return cached
        self._generation += 1
        mine = self._generation
        if self.debounce > 0:
            await anyio.sleep(self.debounce)
        if mine != self._generation:
            return None  # a newer keystroke will ask instead
        found = await self._ask(argument, value, context)
        if mine != self._generation:
            return None
        self.last = found
        return found

    async def _ask(self, argument: str, value: str, context: dict[str, str]) -> Completion:
        self.calls += 1
        key = (argument, value, tuple(sorted(context.items())))
        try:
            with anyio.fail_after(self.timeout):
                result = await self.client.complete(self.ref, argument, value, context or None)
        except RpcError as exc:
            if exc.code == METHOD_NOT_FOUND:
                self._unsupported = True
            return Completion(error=exc.message)
        except TimeoutError:
            return Completion(error=f"no completion within {self.timeout:g} s")
        found = Completion.from_result(result)
        if found.error is None:
            self._cache[key] = found
            while len(self._cache) > CACHE_SIZE:
                self._cache.popitem(last=False)
        return found

    def clear(self) -> None:
        """Forget cached answers (e.g. after list_changed)."""
        self._cache.clear()
