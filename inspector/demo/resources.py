"""Demo resources: a static set, notes that change, three URI templates, completions."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any
from urllib.parse import parse_qs, unquote, urlsplit

from inspector.demo import media
from inspector.demo.context import VERSIONS, DemoState, at_least, now_iso
from inspector.demo.tools_basic import TRICKY, weather_for
from inspector.wire.jsonrpc import INVALID_PARAMS, RESOURCE_NOT_FOUND, RpcError

PAGE_SIZE = 5
COUNTER_URI = "demo://counter"

README = (
    "# mcp-inspect demo server\n\nA small MCP server that exercises every part of the "
    "protocol: tools, resources, prompts, completion, logging, progress, cancellation, "
    "sampling, elicitation, roots and tasks.\n"
)
README_CHANGED = README + "\nThis is the *changed* variant.\n"


@dataclass(frozen=True)
class Static:
    uri: str
    name: str
    title: str
    description: str
    mime: str


STATIC: tuple[Static, ...] = (
    Static("demo://readme", "readme", "Read me", "What this server is", "text/markdown"),
    Static("demo://config.json", "config", "Configuration", "A JSON document", "application/json"),
    Static("demo://logo.png", "logo", "Logo", "A 32x32 PNG (blob)", "image/png"),
    Static("demo://sound.wav", "sound", "Beep", "A quarter-second 440 Hz WAV (blob)", "audio/wav"),
    Static(
        COUNTER_URI,
        "counter",
        "Counter",
        "Goes up every few seconds while subscribed",
        "text/plain",
    ),
    Static(
        "demo://binary.bin",
        "binary",
        "All bytes",
        "Bytes 0 to 255 (blob)",
        "application/octet-stream",
    ),
    Static(
        "demo://tricky.txt",
        "tricky",
        "Tricky text",
        "Markup, escapes and control characters that must be shown literally",
        "text/plain",
    ),
)

TEMPLATES: tuple[dict[str, Any], ...] = (
    {
        "uriTemplate": "demo://notes/{id}",
        "name": "note",
        "title": "Note by id",
        "description": "A note created with add_note",
        "mimeType": "text/plain",
    },
    {
        "uriTemplate": "demo://users/{user}/files/{path}",
        "name": "user-file",
        "title": "A user's file",
        "description": "Files of alice, bob and carol",
        "mimeType": "text/plain",
    },
    {
        "uriTemplate": "demo://weather/{city}{?units}",
        "name": "weather",
        "title": "Weather by city",
        "description": "The get_weather report as a resource",
        "mimeType": "application/json",
    },
)

USERS: dict[str, list[str]] = {
    "alice": ["todo.txt", "notes/ideas.md", "notes/recipes.md", "report.csv"],
    "bob": [f"logs/log-{n:03d}.txt" for n in range(1, 151)],  # > 100: completion hasMore
    "carol": ["cv.md", "photos/readme.txt"],
}

CITIES = (
    "Amsterdam",
    "Athens",
    "Auckland",
    "Bangkok",
    "Barcelona",
    "Berlin",
    "Bogota",
    "Boston",
    "Brussels",
    "Buenos Aires",
    "Cairo",
    "Cape Town",
    "Chicago",
    "Dublin",
    "Edinburgh",
    "Helsinki",
    "Hong Kong",
    "Istanbul",
    "Jakarta",
    "Lagos",
    "Lima",
    "Lisbon",
    "London",
    "Los Angeles",
    "Madrid",
    "Melbourne",
    "Mexico City",
    "Montreal",
    "Mumbai",
    "Nairobi",
    "New York",
    "Oslo",
    "Paris",
    "Prague",
    "Rome",
    "San Francisco",
    "Santiago",
    "Seoul",
    "Singapore",
    "Stockholm",
    "Sydney",
    "Tokyo",
    "Toronto",
    "Vienna",
    "Warsaw",
    "Zurich",
)


def paginate(items: list[Any], cursor: Any, size: int) -> tuple[list[Any], str | None]:
    """Opaque cursors are ``p<offset>``; anything else is invalid params."""
    start = 0
    if cursor is not None:
        if not isinstance(cursor, str) or not re.fullmatch(r"p\d+", cursor):
            raise RpcError(INVALID_PARAMS, f"invalid cursor {cursor!r}")
        start = int(cursor[1:])
    end = start + size
    return items[start:end], (f"p{end}" if end < len(items) else None)


def _entry(res: Static, version: str) -> dict[str, Any]:
    out: dict[str, Any] = {"uri": res.uri, "name": res.name}
    if at_least(version, "2025-06-18"):
        out["title"] = res.title
    out.update(description=res.description, mimeType=res.mime)
    if res.uri == "demo://readme":
        out["annotations"] = {"audience": ["user", "assistant"], "priority": 1.0}
    elif res.uri == "demo://logo.png":
        out["size"] = len(media.png_bytes())
    return out


def list_resources(state: DemoState, cursor: Any) -> dict[str, Any]:
    version = state.protocol_version
    entries = [_entry(r, version) for r in STATIC]
    with state.lock:
        notes = list(state.notes.values())
    for note in notes:
        entry: dict[str, Any] = {"uri": f"demo://notes/{note.id}", "name": f"note-{note.id}"}
        if at_least(version, "2025-06-18"):
            entry["title"] = note.title
            entry["annotations"] = {"lastModified": note.updated}
        entry["mimeType"] = "text/plain"
        entries.append(entry)
    page, next_cursor = paginate(entries, cursor, PAGE_SIZE)
    out: dict[str, Any] = {"resources": page}
    if next_cursor:
        out["nextCursor"] = next_cursor
    return out


def list_templates(state: DemoState, cursor: Any) -> dict[str, Any]:
    page, next_cursor = paginate(list(TEMPLATES), cursor, PAGE_SIZE)
    if not at_least(state.protocol_version, "2025-06-18"):
        page = [{k: v for k, v in t.items() if k != "title"} for t in page]
    out: dict[str, Any] = {"resourceTemplates": page}
    if next_cursor:
        out["nextCursor"] = next_cursor
    return out


def _text(uri: str, mime: str, body: str) -> dict[str, Any]:
    return {"contents": [{"uri": uri, "mimeType": mime, "text": body}]}


def _blob(uri: str, mime: str, data: bytes) -> dict[str, Any]:
    return {"contents": [{"uri": uri, "mimeType": mime, "blob": media.b64(data)}]}


def read(state: DemoState, uri: str) -> dict[str, Any]:
    """``resources/read``; unknown URIs raise -32002."""
    if uri == "demo://readme":
        return _text(uri, "text/markdown", README_CHANGED if state.changed else README)
    if uri == "demo://config.json":
        config = {
            "name": "mcp-inspect-demo",
            "variant": state.variant,
            "pageSize": PAGE_SIZE,
            "features": ["tools", "resources", "prompts", "tasks"],
        }
        return _text(uri, "application/json", json.dumps(config, indent=2))
    if uri == "demo://logo.png":
        return _blob(uri, "image/png", media.png_bytes())
    if uri == "demo://sound.wav":
        return _blob(uri, "audio/wav", media.wav_bytes())
    if uri == COUNTER_URI:
        with state.lock:
            count = state.counter
        return _text(uri, "text/plain", f"counter = {count}\nread at {now_iso()}")
    if uri == "demo://binary.bin":
        return _blob(uri, "application/octet-stream", bytes(range(256)))
    if uri == "demo://tricky.txt":
        return _text(uri, "text/plain", TRICKY)
    if match := re.fullmatch(r"demo://notes/([^/?#]+)", uri):
        with state.lock:
            note = state.notes.get(unquote(match.group(1)))
        if note is not None:
            return _text(uri, "text/plain", f"{note.title}\n\n{note.body}")
    elif match := re.fullmatch(r"demo://users/([^/]+)/files/(.+)", uri):
        user, path = unquote(match.group(1)), unquote(match.group(2))
        if path in USERS.get(user, []):
            return _text(uri, "text/plain", f"{path} of {user}\n(demo content)")
    elif uri.startswith("demo://weather/"):
        parts = urlsplit(uri)
        city = unquote(parts.path.lstrip("/"))
        units = parse_qs(parts.query).get("units", ["metric"])[0]
        if city and units in ("metric", "imperial"):
            return _text(uri, "application/json", json.dumps(weather_for(city, units)))
    # 2026-07-28 (SEP-2164) answers an unknown resource with invalid params
    code = RESOURCE_NOT_FOUND if state.protocol_version in VERSIONS else INVALID_PARAMS
    raise RpcError(code, f"Resource not found: {uri}", {"uri": uri})


def complete_values(candidates: list[str], prefix: str) -> dict[str, Any]:
    """A ``completion`` object: case-insensitive prefix matches, at most 100 values."""
    low = prefix.lower()
    matches = [c for c in candidates if c.lower().startswith(low)]
    return {"values": matches[:100], "total": len(matches), "hasMore": len(matches) > 100}


def complete_template(
    state: DemoState, uri: str, name: str, value: str, context: dict[str, Any]
) -> dict[str, Any]:
    if uri == "demo://notes/{id}" and name == "id":
        with state.lock:
            ids = list(state.notes)
        return complete_values(ids, value)
    if uri == "demo://users/{user}/files/{path}":
        if name == "user":
            return complete_values(list(USERS), value)
        if name == "path":
            user = context.get("user")
            files = (
                USERS.get(user, [])
                if isinstance(user, str) and user
                else sorted({f for fs in USERS.values() for f in fs})
            )
            return complete_values(files, value)
    if uri == "demo://weather/{city}{?units}":
        if name == "city":
            return complete_values(list(CITIES), value)
        if name == "units":
            return complete_values(["metric", "imperial"], value)
    if uri in {t["uriTemplate"] for t in TEMPLATES}:
        return complete_values([], value)
    raise RpcError(INVALID_PARAMS, f"unknown resource template {uri!r}")
