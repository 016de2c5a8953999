"""Input and output schemas of the demo tools.

They are deliberately rich: every JSON Schema feature a form builder meets in
the wild appears at least once (nesting, arrays of strings and of objects,
enums, oneOf/anyOf, nullable types in both spellings, ``$ref``/``$defs`` with
recursion, defaults, formats, bounds, ``additionalProperties`` maps, draft-07).
"""

from __future__ import annotations

from typing import Any

Schema = dict[str, Any]

DRAFT_07 = "http://json-schema.org/draft-07/schema#"


def obj(properties: dict[str, Schema], required: list[str] | None = None, **extra: Any) -> Schema:
    schema: Schema = {"type": "object", "properties": properties}
    if required:
        schema["required"] = required
    schema.update(extra)
    return schema


ECHO = obj(
    {
        "message": {"type": "string", "description": "Text to send back"},
        "repeat": {
            "type": "integer",
            "minimum": 1,
            "maximum": 10,
            "default": 1,
            "description": "How many times to repeat it",
        },
        "uppercase": {"type": "boolean", "default": False},
    },
    ["message"],
)

ADD = obj(
    {
        "a": {"type": "number", "description": "First addend"},
        "b": {"type": "number", "description": "Second addend"},
    },
    ["a", "b"],
)

DIVIDE = obj(
    {
        "dividend": {"type": "number"},
        "divisor": {"type": "number", "description": "Zero gives an isError result"},
    },
    ["dividend", "divisor"],
)

WEATHER_IN = obj(
    {
        "city": {"type": "string", "description": "City name, e.g. Paris", "minLength": 1},
        "units": {"type": "string", "enum": ["metric", "imperial"], "default": "metric"},
    },
    ["city"],
)

WEATHER_OUT = obj(
    {
        "city": {"type": "string"},
        "temperature": {"type": "number", "description": "Degrees in the requested units"},
        "units": {"type": "string", "enum": ["metric", "imperial"]},
        "conditions": {"type": "string", "enum": ["sunny", "cloudy", "rain", "snow", "fog"]},
        "humidity": {"type": "integer", "minimum": 0, "maximum": 100},
        "wind": obj(
            {"speed": {"type": "number"}, "direction": {"type": "string"}}, ["speed", "direction"]
        ),
    },
    ["city", "temperature", "units", "conditions", "humidity"],
)

_ADDRESS = obj(
    {
        "street": {"type": "string"},
        "city": {"type": "string"},
        "zip": {"type": "string", "pattern": "^[0-9]{5}$", "description": "Five digits"},
        "country": {"type": "string", "enum": ["FR", "DE", "US", "JP", "BR"], "default": "FR"},
    },
    ["city", "country"],
    description="Postal address (a nested object)",
)

CREATE_USER = obj(
    {
        "name": {"type": "string", "minLength": 1, "maxLength": 50, "title": "Full name"},
        "email": {"type": "string", "format": "email"},
        "website": {"type": "string", "format": "uri"},
        "birthday": {"type": "string", "format": "date"},
        "age": {"type": "integer", "minimum": 0, "maximum": 150},
        "score": {"type": "number", "minimum": 0, "maximum": 1, "default": 0.5},
        "role": {"type": "string", "enum": ["admin", "editor", "viewer"], "default": "viewer"},
        "active": {"type": "boolean", "default": True},
        "tags": {
            "type": "array",
            "items": {"type": "string"},
            "maxItems": 5,
            "uniqueItems": True,
            "description": "Free-form labels (array of strings)",
        },
        "address": _ADDRESS,
        "contacts": {
            "type": "array",
            "description": "Array of objects",
            "items": obj(
                {
                    "kind": {"type": "string", "enum": ["phone", "email", "matrix"]},
                    "value": {"type": "string"},
                    "primary": {"type": "boolean", "default": False},
                },
                ["kind", "value"],
            ),
        },
        "nickname": {"type": ["string", "null"], "description": "Nullable (type list)"},
        "manager": {
            "anyOf": [{"type": "string", "format": "email"}, {"type": "null"}],
            "description": "Nullable (anyOf with null)",
            "default": None,
        },
        "metadata": {
            "type": "object",
            "additionalProperties": {"type": "string"},
            "description": "A string-to-string map",
        },
        "preferences": obj(
            {
                "theme": {"type": "string", "enum": ["dark", "light", "system"], "default": "dark"},
                "notifications": {"type": "boolean", "default": True},
                "language": {"type": "string", "default": "en"},
            }
        ),
    },
    ["name", "email"],
    additionalProperties=False,
)

SCHEDULE_EVENT = obj(
    {
        "title": {"type": "string", "minLength": 1},
        "when": {
            "description": "Either one instant or a start/end range",
            "oneOf": [
                {"type": "string", "format": "date-time", "title": "Instant"},
                obj(
                    {
                        "start": {"type": "string", "format": "date-time"},
                        "end": {"type": "string", "format": "date-time"},
                    },
                    ["start", "end"],
                    title="Range",
                ),
            ],
        },
        "recurrence": {
            "anyOf": [
                {"type": "string", "enum": ["daily", "weekly", "monthly"], "title": "Preset"},
                obj(
                    {
                        "every": {"type": "integer", "minimum": 1, "default": 1},
                        "unit": {"type": "string", "enum": ["day", "week", "month"]},
                    },
                    ["every", "unit"],
                    title="Custom",
                ),
            ],
        },
        "location": {
            "oneOf": [
                obj(
                    {"kind": {"const": "online"}, "url": {"type": "string", "format": "uri"}},
                    ["kind", "url"],
                    title="Online",
                ),
                obj(
                    {
                        "kind": {"const": "in_person"},
                        "room": {"type": "string"},
                        "floor": {"type": "integer", "minimum": -2, "maximum": 40},
                    },
                    ["kind", "room"],
                    title="In person",
                ),
            ],
        },
        "reminders": {
            "type": "array",
            "items": {"type": "integer", "minimum": 0, "maximum": 10080},
            "default": [15],
            "description": "Minutes before the event",
        },
        "attendees": {
            "type": "array",
            "items": {"type": "string", "format": "email"},
            "minItems": 1,
        },
        "priority": {"type": "integer", "enum": [1, 2, 3], "default": 2},
    },
    ["title", "when"],
)

BUILD_TREE = {
    "type": "object",
    "$defs": {
        "Color": {"type": "string", "enum": ["red", "green", "blue"], "default": "green"},
        "TreeNode": obj(
            {
                "name": {"type": "string"},
                "color": {"$ref": "#/$defs/Color"},
                "children": {
                    "type": "array",
                    "items": {"$ref": "#/$defs/TreeNode"},
                    "description": "Recursive: children are tree nodes too",
                },
            },
            ["name"],
        ),
    },
    "properties": {
        "root": {"$ref": "#/$defs/TreeNode"},
        "indent": {"type": "integer", "minimum": 1, "maximum": 8, "default": 2},
    },
    "required": ["root"],
}

LEGACY_SEARCH = {
    "$schema": DRAFT_07,
    "type": "object",
    "definitions": {
        "Filter": {
            "type": "object",
            "properties": {
                "field": {"type": "string", "enum": ["title", "body", "author"]},
                "op": {
                    "type": "string",
                    "enum": ["eq", "contains", "startsWith"],
                    "default": "contains",
                },
                "value": {"type": "string"},
            },
            "required": ["field", "value"],
        },
    },
    "properties": {
        "query": {"type": "string", "minLength": 1},
        "filters": {"type": "array", "items": {"$ref": "#/definitions/Filter"}},
        "limit": {"type": "integer", "minimum": 1, "maximum": 100, "default": 10},
        "since": {"type": "string", "format": "date-time"},
        "exclusive_min_score": {"type": "number", "exclusiveMinimum": 0, "default": 0.1},
    },
    "required": ["query"],
}

SHOW_MEDIA = obj(
    {
        "kinds": {
            "type": "array",
            "items": {
                "type": "string",
                "enum": [
                    "text",
                    "image",
                    "audio",
                    "resource_link",
                    "resource_text",
                    "resource_blob",
                ],
            },
            "description": "Which content blocks to return (all when omitted)",
        },
    }
)

NOTE_ID = {"type": "string", "description": "Note id, e.g. 1", "pattern": "^[0-9]+$"}
ADD_NOTE = obj(
    {"title": {"type": "string", "minLength": 1}, "body": {"type": "string"}}, ["title", "body"]
)
UPDATE_NOTE = obj({"id": NOTE_ID, "body": {"type": "string"}}, ["id", "body"])
DELETE_NOTE = obj({"id": NOTE_ID}, ["id"])

LOG_BURST = obj(
    {
        "logger": {"type": "string", "default": "demo.burst"},
        "message": {"type": "string", "default": "hello from log_burst"},
    }
)

SLOW_COUNT = obj(
    {
        "seconds": {
            "type": "number",
            "minimum": 0,
            "maximum": 600,
            "default": 5,
            "description": "Total duration",
        },
        "steps": {"type": "integer", "minimum": 1, "maximum": 1000, "default": 10},
    },
    [],
)

REPORT = obj(
    {
        "topic": {"type": "string", "default": "quarterly numbers"},
        "seconds": {"type": "number", "minimum": 0, "maximum": 600, "default": 2},
    }
)

ASK_LLM = obj(
    {
        "question": {"type": "string", "description": "What to ask the client's model"},
        "max_tokens": {"type": "integer", "minimum": 1, "maximum": 4096, "default": 200},
        "system_prompt": {"type": ["string", "null"], "default": None},
    },
    ["question"],
)

BOOK_TABLE = obj(
    {
        "restaurant": {"type": "string", "default": "Chez Demo"},
    }
)

RAISE_ERROR = obj(
    {
        "code": {"type": "integer", "default": -32603},
        "message": {"type": "string", "default": "something went wrong on purpose"},
    }
)

LOREM = obj({"lines": {"type": "integer", "minimum": 1, "maximum": 100000, "default": 200}})

EMPTY = obj({})

ELICIT_BOOKING: Schema = {
    "type": "object",
    "properties": {
        "name": {
            "type": "string",
            "title": "Name",
            "description": "Who is the table for?",
            "minLength": 1,
            "maxLength": 50,
            "default": "Ada Lovelace",
        },
        "email": {
            "type": "string",
            "title": "E-mail",
            "format": "email",
            "default": "ada@example.com",
        },
        "date": {"type": "string", "title": "Date", "format": "date", "default": "2026-12-24"},
        "party_size": {
            "type": "integer",
            "title": "Party size",
            "minimum": 1,
            "maximum": 12,
            "default": 2,
        },
        "budget": {
            "type": "number",
            "title": "Budget per person",
            "minimum": 0,
            "maximum": 500,
            "default": 42.5,
        },
        "outdoor": {"type": "boolean", "title": "Outdoor seating", "default": False},
        "seating": {
            "type": "string",
            "title": "Seating",
            "enum": ["window", "bar", "garden"],
            "default": "window",
        },
    },
    "required": ["name", "party_size"],
}

# Added only for 2025-11-25 clients: titled and multi-select enums.
ELICIT_BOOKING_2025_11: dict[str, Schema] = {
    "occasion": {
        "type": "string",
        "title": "Occasion",
        "default": "none",
        "oneOf": [
            {"const": "none", "title": "Nothing special"},
            {"const": "birthday", "title": "Birthday"},
            {"const": "business", "title": "Business dinner"},
        ],
    },
    "dietary": {
        "type": "array",
        "title": "Dietary needs",
        "items": {"type": "string", "enum": ["vegetarian", "vegan", "gluten-free"]},
        "default": [],
    },
}
