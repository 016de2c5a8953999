"""The rule catalogue: each rule an id, a level, what it checks, why, and how to fix it.

The README's table is printed from :data:`RULES` (a test keeps the two the same), and
SARIF's ``rules`` are built from it, so a rule is described once.
"""

from __future__ import annotations

from dataclasses import dataclass

ERROR, WARNING, INFO = "error", "warning", "info"
LEVELS = (INFO, WARNING, ERROR)  # lowest first

NAME_CHARACTERS = "A-Z a-z 0-9 _ - ."
NAME_MAX = 128  # the spec's limit (2025-11-25, tool names)
NAME_CLIENT_MAX = 64  # the function-name limit of the major LLM APIs
DESCRIPTION_MAX = 1024  # characters: OpenAI's function description limit
DROPPED_KEYWORDS = (
    "oneOf",
    "allOf",
    "not",
    "if",
    "then",
    "else",
    "patternProperties",
    "dependentRequired",
    "dependentSchemas",
    "unevaluatedProperties",
    "unevaluatedItems",
    "prefixItems",
    "$dynamicRef",
)


@dataclass(frozen=True)
class LintRule:
    id: str
    level: str  # error | warning | info ("as found" for protocol)
    title: str  # what it checks, in a few words
    why: str
    fix: str


RULES: tuple[LintRule, ...] = (
    LintRule(
        "name-characters",
        ERROR,
        "tool or prompt name with characters outside " + NAME_CHARACTERS,
        "The spec (2025-11-25) limits tool names to these characters; LLM APIs reject "
        "function names with spaces, slashes or other characters, so clients drop the tool "
        "or fail the whole request.",
        "Rename with letters, digits, _ - and . only (snake_case or kebab-case).",
    ),
    LintRule(
        "name-length",
        ERROR,
        f"name empty or longer than {NAME_MAX} characters",
        f"The spec allows 1 to {NAME_MAX} characters; longer names are cut or refused.",
        "Give every tool and prompt a short, non-empty name.",
    ),
    LintRule(
        "name-long",
        WARNING,
        f"name longer than {NAME_CLIENT_MAX} characters",
        f"The major LLM APIs cap function names at {NAME_CLIENT_MAX} characters, and "
        "clients that prefix the server's name reach that sooner.",
        f"Keep names under {NAME_CLIENT_MAX} characters, shorter still with a prefix.",
    ),
    LintRule(
        "description-missing",
        WARNING,
        "tool or prompt without a description",
        "The model chooses tools by their descriptions; without one it guesses from the "
        "name, or never picks the tool.",
        "Say what the tool does, when to use it, and what it returns.",
    ),
    LintRule(
        "description-huge",
        WARNING,
        f"description longer than {DESCRIPTION_MAX} characters",
        "Every description is sent with every request that offers the tool: long ones cost "
        f"context, and some clients cut them at {DESCRIPTION_MAX} characters.",
        "Keep the description short; move details into argument descriptions or a resource.",
    ),
    LintRule(
        "duplicate-name",
        ERROR,
        "two tools or prompts with one name (resources: one URI, templates: one template)",
        "Clients key items by name: one of the two is hidden, or the call goes to the wrong one.",
        "Give each item its own name.",
    ),
    LintRule(
        "input-schema-not-object",
        ERROR,
        'inputSchema missing, or not a JSON object schema ("type": "object")',
        "Tool arguments are a JSON object: the spec requires an object schema, and clients "
        "refuse tools whose schema is anything else.",
        'Declare {"type": "object", "properties": {...}} (an empty properties map for none).',
    ),
    LintRule(
        "output-schema-not-object",
        ERROR,
        'outputSchema not a JSON object schema ("type": "object")',
        "structuredContent is a JSON object, so its schema must describe one; clients "
        "validate results against it and fail every call otherwise.",
        "Describe the object the tool returns; wrap a list or a scalar in an object property.",
    ),
    LintRule(
        "ref-unresolved",
        ERROR,
        "$ref that does not resolve inside the schema",
        "Clients resolve $ref within the schema only (never over the network): an "
        "unresolved reference makes the argument impossible to build or validate.",
        "Point $ref at #/$defs/... (or #/definitions/...) in the same schema, and define it.",
    ),
    LintRule(
        "keyword-dropped",
        WARNING,
        "schema keywords major clients drop (" + ", ".join(DROPPED_KEYWORDS[:4]) + "..., "
        "a top-level anyOf)",
        "Several clients and LLM APIs accept only a subset of JSON Schema and silently drop "
        "these keywords, so the model sees a looser schema than the server validates.",
        "Prefer plain properties, enums and nested objects; use anyOf inside properties only.",
    ),
    LintRule(
        "ref-used",
        INFO,
        "input schema using $ref",
        "It resolves, but some clients send the schema to the model without following "
        "references, so the model sees an untyped argument.",
        "Inline small definitions; keep $ref for recursive shapes.",
    ),
    LintRule(
        "required-unknown",
        WARNING,
        "required names a property the schema does not define",
        "A client's form cannot offer an argument it has no schema for, so calls fail validation.",
        "Define the property or drop it from required.",
    ),
    LintRule(
        "output-without-structured",
        ERROR,
        "tool with an outputSchema answered without structuredContent",
        "The spec requires structuredContent matching the outputSchema in every successful "
        "result; clients that read it get nothing. Checked on the calls a session file "
        "holds: lint never calls a tool itself.",
        "Return structuredContent (and the same data as text for older clients).",
    ),
    LintRule(
        "list-failed",
        ERROR,
        "a list the server declares answers with an error",
        "A declared capability whose list fails leaves clients with an empty catalog.",
        "Fix the list handler, or stop declaring the capability.",
    ),
    LintRule(
        "protocol",
        "as found",
        "the protocol findings the engine makes on every frame (JSON-RPC shape, ids, "
        "era rules, x-mcp-header)",
        "The same findings the TUI's log shows: the message says which check failed.",
        "See the message; the frame is in the session file (mcp-inspect replay FILE).",
    ),
)
BY_ID = {rule.id: rule for rule in RULES}


def catalogue_markdown() -> str:
    """The README's rule table, from :data:`RULES`."""
    lines = ["| Rule | Level | Checks | Why | Fix |", "|---|---|---|---|---|"]
    for rule in RULES:
        cells = (f"`{rule.id}`", rule.level, rule.title, rule.why, rule.fix)
        lines.append("| " + " | ".join(c.replace("|", "\\|") for c in cells) + " |")
    return "\n".join(lines) + "\n"
