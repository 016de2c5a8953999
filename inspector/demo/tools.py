"""The demo tool catalogue: definitions, argument checks and dispatch to handlers."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from inspector.demo import media
from inspector.demo import schemas as s
from inspector.demo import tools_basic as basic
from inspector.demo import tools_live as live
from inspector.demo.context import DemoState, ToolContext, at_least

Handler = Callable[[dict[str, Any], ToolContext], dict[str, Any]]

READ_ONLY = {
    "readOnlyHint": True,
    "destructiveHint": False,
    "idempotentHint": True,
    "openWorldHint": False,
}
WRITES = {
    "readOnlyHint": False,
    "destructiveHint": False,
    "idempotentHint": False,
    "openWorldHint": False,
}


@dataclass(frozen=True)
class ToolSpec:
    name: str
    title: str | None
    description: str
    input_schema: dict[str, Any]
    handler: Handler
    annotations: dict[str, Any] | None = None
    output_schema: dict[str, Any] | None = None
    task_support: str | None = None  # "optional" | "required"; absent means forbidden
    icon: bool = False

    def definition(self, version: str) -> dict[str, Any]:
        """The ``tools/list`` entry, with only the fields ``version`` knows."""
        out: dict[str, Any] = {"name": self.name}
        if self.title and at_least(version, "2025-06-18"):
            out["title"] = self.title
        out["description"] = self.description
        out["inputSchema"] = self.input_schema
        if self.output_schema and at_least(version, "2025-06-18"):
            out["outputSchema"] = self.output_schema
        if self.annotations and at_least(version, "2025-03-26"):
            out["annotations"] = self.annotations
        if at_least(version, "2025-11-25"):
            if self.task_support:
                out["execution"] = {"taskSupport": self.task_support}
            if self.icon:
                out["icons"] = [
                    {"src": media.png_data_uri(), "mimeType": "image/png", "sizes": ["32x32"]}
                ]
        return out


TOOLS: tuple[ToolSpec, ...] = (
    ToolSpec(
        "echo",
        "Echo",
        "Send a message back, optionally repeated or upper-cased.",
        s.ECHO,
        basic.echo,
        READ_ONLY,
        icon=True,
    ),
    ToolSpec(
        "add",
        "Add two numbers",
        "Add a and b and return the sum as text.",
        s.ADD,
        basic.add,
        READ_ONLY,
    ),
    ToolSpec(
        "divide",
        None,
        "Divide two numbers. Dividing by zero returns an isError result.",
        s.DIVIDE,
        basic.divide,
        {**READ_ONLY, "title": "Divide (annotation title)"},
    ),
    ToolSpec(
        "get_weather",
        "Current weather",
        "Made-up weather for a city, as structuredContent matching the outputSchema.",
        s.WEATHER_IN,
        basic.get_weather,
        {**READ_ONLY, "openWorldHint": True},
        output_schema=s.WEATHER_OUT,
        icon=True,
    ),
    ToolSpec(
        "create_user",
        "Create a user",
        "A form exercise: nested objects, arrays, enums, formats, nullable fields, maps.",
        s.CREATE_USER,
        basic.create_user,
        WRITES,
    ),
    ToolSpec(
        "schedule_event",
        "Schedule an event",
        "A form exercise: oneOf / anyOf alternatives, const discriminators, date-times.",
        s.SCHEDULE_EVENT,
        basic.schedule_event,
        WRITES,
    ),
    ToolSpec(
        "build_tree",
        "Build a tree",
        "A form exercise: $ref / $defs with a recursive TreeNode.",
        s.BUILD_TREE,
        basic.build_tree,
        READ_ONLY,
    ),
    ToolSpec(
        "legacy_search",
        "Search notes (draft-07)",
        "Search notes; the input schema declares JSON Schema draft-07.",
        s.LEGACY_SEARCH,
        basic.legacy_search,
        READ_ONLY,
    ),
    ToolSpec(
        "show_media",
        "Show every content type",
        "Return text, image (PNG), audio (WAV), resource_link and embedded resources.",
        s.SHOW_MEDIA,
        basic.show_media,
        READ_ONLY,
    ),
    ToolSpec(
        "add_note",
        "Add a note",
        "Create a note resource (sends notifications/resources/list_changed).",
        s.ADD_NOTE,
        live.add_note,
        WRITES,
    ),
    ToolSpec(
        "update_note",
        "Update a note",
        "Replace a note's body (sends notifications/resources/updated to subscribers).",
        s.UPDATE_NOTE,
        live.update_note,
        {**WRITES, "destructiveHint": True, "idempotentHint": True},
    ),
    ToolSpec(
        "delete_note",
        "Delete a note",
        "Delete a note for good.",
        s.DELETE_NOTE,
        live.delete_note,
        {**WRITES, "destructiveHint": True, "idempotentHint": True},
    ),
    ToolSpec(
        "log_burst",
        "Log at every level",
        "Send notifications/message at each of the eight levels (honours logging/setLevel).",
        s.LOG_BURST,
        live.log_burst,
        READ_ONLY,
    ),
    ToolSpec(
        "slow_count",
        "Count slowly",
        "Count for a while, sending progress when asked; stops when cancelled.",
        s.SLOW_COUNT,
        live.slow_count,
        READ_ONLY,
        task_support="optional",
    ),
    ToolSpec(
        "generate_report",
        "Generate a report (task required)",
        "A long job that must be called as a task (execution.taskSupport: required).",
        s.REPORT,
        live.generate_report,
        READ_ONLY,
        task_support="required",
    ),
    ToolSpec(
        "ask_llm",
        "Ask the client's LLM",
        "Send sampling/createMessage to the client and return the model's answer.",
        s.ASK_LLM,
        live.ask_llm,
        {**READ_ONLY, "openWorldHint": True},
        task_support="optional",
    ),
    ToolSpec(
        "book_table",
        "Book a table",
        "Ask the user for booking details with elicitation/create (form mode).",
        s.BOOK_TABLE,
        live.book_table,
        WRITES,
    ),
    ToolSpec(
        "list_roots",
        "List the client's roots",
        "Ask the client for roots/list.",
        s.EMPTY,
        live.list_roots,
        READ_ONLY,
    ),
    ToolSpec(
        "ping_client",
        "Ping the client",
        "Send ping to the client and time the answer.",
        s.EMPTY,
        live.ping_client,
        READ_ONLY,
    ),
    ToolSpec(
        "toggle_extra_tool",
        "Toggle the extra tool",
        "Add or remove extra_tool and extra_prompt (sends list_changed notifications).",
        s.EMPTY,
        live.toggle_extra_tool,
        WRITES,
    ),
    ToolSpec(
        "raise_error",
        "Raise a JSON-RPC error",
        "Answer with a JSON-RPC error response (a protocol error, not an isError result).",
        s.RAISE_ERROR,
        basic.raise_error,
        READ_ONLY,
    ),
    ToolSpec(
        "lorem",
        "Lots of text",
        "Return many numbered lines of lorem ipsum.",
        s.LOREM,
        basic.lorem,
        READ_ONLY,
    ),
    ToolSpec(
        "tricky_text",
        "Tricky text",
        "Text with Rich markup, ANSI escapes, control characters and bidi marks.",
        s.EMPTY,
        basic.tricky_text,
        READ_ONLY,
    ),
)

EXTRA_TOOL = ToolSpec(
    "extra_tool",
    "Extra tool",
    "Only listed after toggle_extra_tool.",
    s.EMPTY,
    basic.extra_tool,
    READ_ONLY,
)
REMOVED_IN_CHANGED = "legacy_search"


def catalog(state: DemoState) -> list[ToolSpec]:
    """The tools currently offered, in listing order."""
    tools = [t for t in TOOLS if not (state.changed and t.name == REMOVED_IN_CHANGED)]
    if not at_least(state.protocol_version, "2025-11-25"):  # no tasks before
        tools = [t for t in tools if t.task_support != "required"]
    if state.extra_enabled:
        tools.append(EXTRA_TOOL)
    return tools


def find(state: DemoState, name: str) -> ToolSpec | None:
    return next((t for t in catalog(state) if t.name == name), None)


_TYPES: dict[str, Callable[[Any], bool]] = {
    "string": lambda v: isinstance(v, str),
    "integer": lambda v: (
        (isinstance(v, int) and not isinstance(v, bool))
        or (isinstance(v, float) and v.is_integer())
    ),
    "number": lambda v: isinstance(v, int | float) and not isinstance(v, bool),
    "boolean": lambda v: isinstance(v, bool),
    "array": lambda v: isinstance(v, list),
    "object": lambda v: isinstance(v, dict),
    "null": lambda v: v is None,
}


def check_arguments(schema: dict[str, Any], args: dict[str, Any]) -> str | None:
    """A shallow check of top-level arguments; returns a message for the first problem."""
    props: dict[str, Any] = schema.get("properties", {})
    for name in schema.get("required", []):
        if name not in args:
            return f"missing required argument {name!r}"
    for name, value in args.items():
        prop = props.get(name)
        if prop is None:
            if schema.get("additionalProperties") is False:
                return f"unexpected argument {name!r}"
            continue
        types = prop.get("type")
        allowed = [types] if isinstance(types, str) else types
        if allowed and not any(_TYPES.get(t, lambda v: True)(value) for t in allowed):
            return f"argument {name!r} must be {' or '.join(allowed)}, got {value!r}"
        if "enum" in prop and value not in prop["enum"]:
            return f"argument {name!r} must be one of {prop['enum']}, got {value!r}"
        if _TYPES["number"](value):
            if "minimum" in prop and value < prop["minimum"]:
                return f"argument {name!r} must be >= {prop['minimum']}"
            if "maximum" in prop and value > prop["maximum"]:
                return f"argument {name!r} must be <= {prop['maximum']}"
        if isinstance(value, str) and len(value) < prop.get("minLength", 0):
            return f"argument {name!r} must have at least {prop['minLength']} character(s)"
    return None


def with_defaults(schema: dict[str, Any], args: dict[str, Any]) -> dict[str, Any]:
    """Fill top-level defaults the client left out."""
    out = dict(args)
    for name, prop in schema.get("properties", {}).items():
        if name not in out and isinstance(prop, dict) and "default" in prop:
            out[name] = prop["default"]
    return out
