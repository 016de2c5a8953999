"""Demo tools that only compute: no client round trips, no shared state changes."""

from __future__ import annotations

import json
from typing import Any

from inspector.demo import media
from inspector.demo.context import ToolContext, at_least, error_result, result, text
from inspector.wire.jsonrpc import RpcError


def _num(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else repr(float(value))


def echo(args: dict[str, Any], ctx: ToolContext) -> dict[str, Any]:
    message = str(args["message"])
    if args.get("uppercase"):
        message = message.upper()
    return result(text("\n".join([message] * int(args.get("repeat", 1)))))


def add(args: dict[str, Any], ctx: ToolContext) -> dict[str, Any]:
    a, b = args["a"], args["b"]
    total = _num(a + b)
    if ctx.state.changed:
        return result(text(f"sum: {total}"))
    return result(text(f"{_num(a)} + {_num(b)} = {total}"))


def divide(args: dict[str, Any], ctx: ToolContext) -> dict[str, Any]:
    if args["divisor"] == 0:
        return error_result("Cannot divide by zero: the divisor must not be 0.")
    return result(text(_num(args["dividend"] / args["divisor"])))


_CONDITIONS = ("sunny", "cloudy", "rain", "snow", "fog")
_DIRECTIONS = ("N", "NE", "E", "SE", "S", "SW", "W", "NW")


def weather_for(city: str, units: str) -> dict[str, Any]:
    """Made-up but stable weather: the same city always gets the same report."""
    seed = sum(ord(c) * (i + 1) for i, c in enumerate(city.lower()))
    celsius = round(-5 + seed % 35 + (seed % 10) / 10, 1)
    temp = celsius if units == "metric" else round(celsius * 9 / 5 + 32, 1)
    return {
        "city": city,
        "temperature": temp,
        "units": units,
        "conditions": _CONDITIONS[seed % len(_CONDITIONS)],
        "humidity": 30 + seed % 61,
        "wind": {"speed": round(seed % 40 / 2, 1), "direction": _DIRECTIONS[seed % 8]},
    }


def get_weather(args: dict[str, Any], ctx: ToolContext) -> dict[str, Any]:
    data = weather_for(str(args["city"]), str(args.get("units", "metric")))
    # The serialized JSON goes in a text block too, for clients that ignore structuredContent.
    out = result(text(json.dumps(data)))
    if at_least(ctx.state.protocol_version, "2025-06-18"):
        out["structuredContent"] = data
    return out


def create_user(args: dict[str, Any], ctx: ToolContext) -> dict[str, Any]:
    summary = f"Created user {args['name']} <{args['email']}> with role {args.get('role')}."
    return result(text(summary), text(json.dumps(args, indent=2, sort_keys=True)))


def schedule_event(args: dict[str, Any], ctx: ToolContext) -> dict[str, Any]:
    when = args["when"]
    span = when if isinstance(when, str) else f"{when.get('start')} to {when.get('end')}"
    return result(
        text(f"Scheduled {args['title']!r} at {span}."),
        text(json.dumps(args, indent=2, sort_keys=True)),
    )


def _render_tree(node: Any, indent: int, depth: int, lines: list[str]) -> int:
    """Append one line per node; returns the depth of the deepest node."""
    if not isinstance(node, dict):
        raise RpcError(-32602, f"tree node must be an object, got {type(node).__name__}")
    colour = f" ({node['color']})" if node.get("color") else ""
    lines.append(" " * indent * depth + f"- {node.get('name', '?')}{colour}")
    deepest = depth
    for child in node.get("children") or []:
        deepest = max(deepest, _render_tree(child, indent, depth + 1, lines))
    return deepest


def build_tree(args: dict[str, Any], ctx: ToolContext) -> dict[str, Any]:
    lines: list[str] = []
    try:
        deepest = _render_tree(args["root"], int(args.get("indent", 2)), 0, lines)
    except RpcError as exc:
        return error_result(exc.message)
    except RecursionError:
        return error_result("tree is nested too deeply")
    return result(text("\n".join(lines)), text(f"{len(lines)} nodes, depth {deepest + 1}"))


def _matches(haystack: str, op: str, needle: str) -> bool:
    if op == "eq":
        return haystack == needle
    if op == "startsWith":
        return haystack.startswith(needle)
    return needle in haystack


def legacy_search(args: dict[str, Any], ctx: ToolContext) -> dict[str, Any]:
    query = str(args["query"]).lower()
    with ctx.state.lock:
        notes = list(ctx.state.notes.values())
    hits = [n for n in notes if query in n.title.lower() or query in n.body.lower()]
    for flt in args.get("filters") or []:
        field, value = str(flt.get("field")), str(flt.get("value", "")).lower()
        op = flt.get("op", "contains")
        hits = [n for n in hits if _matches(str(getattr(n, field, "")).lower(), str(op), value)]
    hits = hits[: int(args.get("limit", 10))]
    if not hits:
        return result(text(f"No notes match {args['query']!r}."))
    return result(*(text(f"demo://notes/{n.id}: {n.title}") for n in hits))


MEDIA_KINDS = ("text", "image", "audio", "resource_link", "resource_text", "resource_blob")


def show_media(args: dict[str, Any], ctx: ToolContext) -> dict[str, Any]:
    version = ctx.state.protocol_version
    kinds = args.get("kinds") or list(MEDIA_KINDS)
    blocks: list[dict[str, Any]] = []
    for kind in kinds:
        if kind == "text":
            blocks.append(text("One block of every kind follows."))
        elif kind == "image":
            blocks.append(
                {
                    "type": "image",
                    "data": media.png_b64(),
                    "mimeType": "image/png",
                    "annotations": {"audience": ["user"], "priority": 0.7},
                }
            )
        elif kind == "audio" and at_least(version, "2025-03-26"):
            blocks.append({"type": "audio", "data": media.wav_b64(), "mimeType": "audio/wav"})
        elif kind == "resource_link" and at_least(version, "2025-06-18"):
            blocks.append(
                {
                    "type": "resource_link",
                    "uri": "demo://readme",
                    "name": "readme",
                    "title": "Read me",
                    "description": "The demo server's read-me",
                    "mimeType": "text/markdown",
                }
            )
        elif kind == "resource_text":
            blocks.append(
                {
                    "type": "resource",
                    "resource": {
                        "uri": "demo://config.json",
                        "mimeType": "application/json",
                        "text": json.dumps({"embedded": True, "kind": "text"}),
                    },
                }
            )
        elif kind == "resource_blob":
            blocks.append(
                {
                    "type": "resource",
                    "resource": {
                        "uri": "demo://logo.png",
                        "mimeType": "image/png",
                        "blob": media.png_b64(),
                    },
                }
            )
    return result(*blocks)


_LOREM = (
    "Lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do eiusmod tempor "
    "incididunt ut labore et dolore magna aliqua."
)


def lorem(args: dict[str, Any], ctx: ToolContext) -> dict[str, Any]:
    count = int(args.get("lines", 200))
    return result(text("\n".join(f"{i:6d}  {_LOREM}" for i in range(1, count + 1))))


TRICKY = (
    "Rich markup that must stay literal: [bold red]not bold[/] [link=http://x]x[/link]\n"
    "ANSI escape: \x1b[31mred?\x1b[0m  bell:\x07  backspace:a\x08b  carriage:\rreturn\n"
    "Unicode: caf\u00e9 \u2713 \U0001f600 \u202eRTL override\u202c zero\u200bwidth "
    "\u05e9\u05dc\u05d5\u05dd \u0645\u0631\u062d\u0628\u0627\n"
    "Tabs:\tone\ttwo  NUL-free, but \x7f DEL and \x1b]0;title\x07 OSC"
)


def tricky_text(args: dict[str, Any], ctx: ToolContext) -> dict[str, Any]:
    return result(text(TRICKY))


def raise_error(args: dict[str, Any], ctx: ToolContext) -> dict[str, Any]:
    raise RpcError(
        int(args.get("code", -32603)),
        str(args.get("message", "something went wrong on purpose")),
        {"tool": "raise_error", "hint": "this is a JSON-RPC error, not isError"},
    )


def extra_tool(args: dict[str, Any], ctx: ToolContext) -> dict[str, Any]:
    return result(text("You found the extra tool. Call toggle_extra_tool to hide it again."))
