"""The bridge's tools as an MCP server lists them: a name, a description, an input and an
output schema (plain object schemas: no ``$ref`` and no top-level ``anyOf``, so the
project's own ``lint`` passes them), and the coroutine that runs the tool.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

Handler = Callable[[dict[str, Any]], Awaitable[dict[str, Any]]]


@dataclass(frozen=True)
class Tool:
    name: str
    description: str
    input_schema: dict[str, Any]
    output_schema: dict[str, Any]
    handler: Handler

    def listed(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "description": self.description,
            "inputSchema": self.input_schema,
            "outputSchema": self.output_schema,
        }


def obj(required: tuple[str, ...] = (), **properties: dict[str, Any]) -> dict[str, Any]:
    """An object schema with these properties (``required``: the ones it must have)."""
    schema: dict[str, Any] = {"type": "object", "properties": properties}
    if required:
        schema["required"] = list(required)
    return schema


def string(description: str, **more: Any) -> dict[str, Any]:
    return {"type": "string", "description": description, **more}


def integer(description: str, **more: Any) -> dict[str, Any]:
    return {"type": "integer", "description": description, **more}


def anything(description: str) -> dict[str, Any]:
    return {"description": description}


def any_object(description: str) -> dict[str, Any]:
    return {"type": "object", "description": description}


CONNECTION = string("A connection id from connect (c1, c2...).")
MAX_CHARS = integer(
    "The most characters of JSON this result may hold (default 20000); a bigger one "
    "is shrunk and says where the whole is.",
    minimum=200,
)
FINDINGS = {
    "type": "array",
    "description": "Protocol findings the inspector made on the frames of this exchange.",
    "items": obj(
        code=string("The finding's code."),
        message=string("What is wrong."),
        severity=string("info, warning or error."),
        seq=integer("The frame's number in the connection's log."),
    ),
}
