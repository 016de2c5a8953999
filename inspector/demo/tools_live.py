"""Demo tools that change state, talk back to the client, or take time."""

from __future__ import annotations

import json
import time
from typing import Any

from inspector.demo import schemas
from inspector.demo.context import (
    LEVELS,
    ToolContext,
    at_least,
    client_error_text,
    error_result,
    now_iso,
    result,
    text,
)
from inspector.wire.jsonrpc import RpcError


def note_uri(note_id: str) -> str:
    return f"demo://notes/{note_id}"


def add_note(args: dict[str, Any], ctx: ToolContext) -> dict[str, Any]:
    note = ctx.state.add_note(str(args["title"]), str(args["body"]))
    ctx.host.notify("notifications/resources/list_changed")
    ctx.log("info", {"event": "note added", "id": note.id, "title": note.title})
    link = {
        "type": "resource_link",
        "uri": note_uri(note.id),
        "name": f"note-{note.id}",
        "title": note.title,
        "mimeType": "text/plain",
    }
    blocks = [text(f"Added note {note.id}: {note.title}")]
    if at_least(ctx.state.protocol_version, "2025-06-18"):
        blocks.append(link)
    return result(*blocks)


def update_note(args: dict[str, Any], ctx: ToolContext) -> dict[str, Any]:
    with ctx.state.lock:
        note = ctx.state.notes.get(str(args["id"]))
        if note is None:
            return error_result(f"No note with id {args['id']}.")
        note.body = str(args["body"])
        note.updated = now_iso()
    ctx.host.resource_updated(note_uri(note.id))
    return result(text(f"Updated note {note.id}."))


def delete_note(args: dict[str, Any], ctx: ToolContext) -> dict[str, Any]:
    with ctx.state.lock:
        note = ctx.state.notes.pop(str(args["id"]), None)
    if note is None:
        return error_result(f"No note with id {args['id']}.")
    ctx.host.notify("notifications/resources/list_changed")
    ctx.host.resource_updated(note_uri(note.id))
    return result(text(f"Deleted note {note.id} ({note.title})."))


def log_burst(args: dict[str, Any], ctx: ToolContext) -> dict[str, Any]:
    logger = str(args.get("logger", "demo.burst"))
    message = str(args.get("message", "hello from log_burst"))
    threshold = LEVELS.index(ctx.state.log_level)
    for index, level in enumerate(LEVELS):
        ctx.log(level, {"message": message, "level": level, "n": index}, logger)
    sent = LEVELS[threshold:]
    return result(
        text(f"Sent {len(sent)} log messages (level >= {ctx.state.log_level}): " + ", ".join(sent))
    )


def slow_count(args: dict[str, Any], ctx: ToolContext) -> dict[str, Any]:
    seconds = float(args.get("seconds", 5))
    steps = int(args.get("steps", 10))
    started = time.monotonic()
    for step in range(1, steps + 1):
        ctx.sleep(started + seconds * step / steps - time.monotonic())
        ctx.progress(step, steps, f"step {step} of {steps}")
    return result(text(f"Counted to {steps} in {time.monotonic() - started:.2f} s."))


def generate_report(args: dict[str, Any], ctx: ToolContext) -> dict[str, Any]:
    topic = str(args.get("topic", "quarterly numbers"))
    seconds = float(args.get("seconds", 2))
    parts = ("gathering data", "crunching numbers", "writing prose", "proofreading")
    for index, part in enumerate(parts, 1):
        ctx.sleep(seconds / len(parts))
        ctx.progress(index, len(parts), part)
    report = f"# Report on {topic}\n\nEverything is fine. Numbers went up, then sideways."
    return result(text(report), structuredContent={"topic": topic, "pages": 1})


def _missing(capability: str, tool: str) -> dict[str, Any]:
    return error_result(
        f"{tool} needs the client's {capability!r} capability, which the client did not declare."
    )


def _sample_text(content: Any) -> str:
    blocks = content if isinstance(content, list) else [content]
    texts = [b.get("text", "") for b in blocks if isinstance(b, dict) and b.get("type") == "text"]
    return "\n".join(texts) if texts else json.dumps(content)


def ask_llm(args: dict[str, Any], ctx: ToolContext) -> dict[str, Any]:
    if not ctx.state.has_capability("sampling"):
        return _missing("sampling", "ask_llm")
    params: dict[str, Any] = {
        "messages": [{"role": "user", "content": text(str(args["question"]))}],
        "maxTokens": int(args.get("max_tokens", 200)),
        "modelPreferences": {
            "hints": [{"name": "claude"}],
            "intelligencePriority": 0.8,
            "speedPriority": 0.4,
            "costPriority": 0.2,
        },
        "temperature": 0.7,
    }
    if args.get("system_prompt"):
        params["systemPrompt"] = str(args["system_prompt"])
    try:
        answer = ctx.request("sampling/createMessage", params)
    except RpcError as exc:
        return error_result(client_error_text(exc))
    if not isinstance(answer, dict):
        return error_result(f"the client sent a malformed sampling result: {answer!r}")
    return result(
        text(_sample_text(answer.get("content"))),
        text(f"model: {answer.get('model')}, stopReason: {answer.get('stopReason')}"),
    )


def _elicitation_form_ok(ctx: ToolContext) -> bool:
    caps = ctx.state.client_capabilities.get("elicitation")
    # An empty elicitation capability means form mode (2025-06-18 clients).
    return isinstance(caps, dict) and (not caps or "form" in caps)


def book_table(args: dict[str, Any], ctx: ToolContext) -> dict[str, Any]:
    if not _elicitation_form_ok(ctx):
        return _missing("elicitation", "book_table")
    restaurant = str(args.get("restaurant", "Chez Demo"))
    schema = json.loads(json.dumps(schemas.ELICIT_BOOKING))
    params: dict[str, Any] = {"message": f"Book a table at {restaurant}?"}
    if at_least(ctx.state.protocol_version, "2025-11-25"):
        schema["properties"].update(schemas.ELICIT_BOOKING_2025_11)
        params["mode"] = "form"
    params["requestedSchema"] = schema
    try:
        answer = ctx.request("elicitation/create", params)
    except RpcError as exc:
        return error_result(client_error_text(exc))
    action = answer.get("action") if isinstance(answer, dict) else None
    if action == "decline":
        return result(text(f"The user declined to book a table at {restaurant}."))
    if action == "cancel":
        return result(text("The user dismissed the booking form."))
    if action != "accept":
        return error_result(f"the client sent an unknown elicitation answer: {answer!r}")
    form = answer.get("content") or {}
    summary = (
        f"Booked a table at {restaurant} for {form.get('party_size')} "
        f"under the name {form.get('name')} on {form.get('date')}."
    )
    return result(text(summary), text(json.dumps(form, sort_keys=True)))


def list_roots(args: dict[str, Any], ctx: ToolContext) -> dict[str, Any]:
    if not ctx.state.has_capability("roots"):
        return _missing("roots", "list_roots")
    try:
        answer = ctx.request("roots/list", {})
    except RpcError as exc:
        return error_result(client_error_text(exc))
    roots = answer.get("roots") if isinstance(answer, dict) else None
    if not isinstance(roots, list):
        return error_result(f"the client sent a malformed roots result: {answer!r}")
    if not roots:
        return result(text("The client has no roots."))
    lines = [
        f"{r.get('uri')}" + (f" ({r['name']})" if r.get("name") else "")
        for r in roots
        if isinstance(r, dict)
    ]
    return result(text(f"The client has {len(lines)} root(s):\n" + "\n".join(lines)))


def ping_client(args: dict[str, Any], ctx: ToolContext) -> dict[str, Any]:
    started = time.monotonic()
    try:
        ctx.request("ping", {}, timeout=30.0)
    except RpcError as exc:
        return error_result(client_error_text(exc))
    elapsed = (time.monotonic() - started) * 1000
    return result(text(f"The client answered ping in {elapsed:.1f} ms."))


def toggle_extra_tool(args: dict[str, Any], ctx: ToolContext) -> dict[str, Any]:
    with ctx.state.lock:
        ctx.state.extra_enabled = not ctx.state.extra_enabled
        enabled = ctx.state.extra_enabled
    ctx.host.notify("notifications/tools/list_changed")
    ctx.host.notify("notifications/prompts/list_changed")
    state = "enabled" if enabled else "disabled"
    return result(text(f"extra_tool and the extra_prompt prompt are now {state}."))
