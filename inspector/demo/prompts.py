"""Demo prompts: arguments (required and optional), embedded resources, completions."""

from __future__ import annotations

from typing import Any

from inspector.demo.context import DemoState, at_least
from inspector.demo.resources import complete_values
from inspector.wire.jsonrpc import INVALID_PARAMS, RpcError

Arg = tuple[str, str, bool]  # name, description, required

PROMPTS: dict[str, tuple[str, str, list[Arg]]] = {
    "simple": ("Simple prompt", "A prompt without arguments.", []),
    "greeting": (
        "Greeting",
        "Greet someone in a given style.",
        [
            ("name", "Who to greet", True),
            ("style", "formal, casual or pirate", False),
        ],
    ),
    "code_review": (
        "Code review",
        "Ask for a review of a code snippet.",
        [
            ("language", "Programming language", True),
            ("code", "The code to review", True),
            ("focus", "What to look at first", False),
        ],
    ),
    "note_summary": (
        "Summarize a note",
        "Summarize a note, embedded as a resource.",
        [
            ("note_id", "Id of the note (see demo://notes/{id})", True),
            ("tone", "neutral, cheerful or formal", False),
        ],
    ),
}
EXTRA_PROMPT: tuple[str, str, list[Arg]] = (
    "Extra prompt",
    "Only listed after toggle_extra_tool.",
    [],
)

CHOICES: dict[tuple[str, str], list[str]] = {
    ("greeting", "name"): ["Ada", "Alan", "Barbara", "Grace", "Linus", "Margaret"],
    ("greeting", "style"): ["formal", "casual", "pirate"],
    ("code_review", "language"): [
        "bash",
        "c",
        "c++",
        "c#",
        "go",
        "haskell",
        "java",
        "javascript",
        "kotlin",
        "lua",
        "ocaml",
        "perl",
        "php",
        "python",
        "ruby",
        "rust",
        "scala",
        "swift",
        "typescript",
        "zig",
    ],
    ("code_review", "focus"): ["security", "performance", "readability", "tests"],
    ("note_summary", "tone"): ["neutral", "cheerful", "formal"],
}


def _catalog(state: DemoState) -> dict[str, tuple[str, str, list[Arg]]]:
    prompts = dict(PROMPTS)
    if state.extra_enabled:
        prompts["extra_prompt"] = EXTRA_PROMPT
    return prompts


def list_prompts(state: DemoState) -> dict[str, Any]:
    out = []
    for name, (title, description, args) in _catalog(state).items():
        entry: dict[str, Any] = {"name": name}
        if at_least(state.protocol_version, "2025-06-18"):
            entry["title"] = title
        entry["description"] = description
        entry["arguments"] = [{"name": a, "description": d, "required": r} for a, d, r in args]
        out.append(entry)
    return {"prompts": out}


def _user(text: str) -> dict[str, Any]:
    return {"role": "user", "content": {"type": "text", "text": text}}


def get_prompt(state: DemoState, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    spec = _catalog(state).get(name)
    if spec is None:
        raise RpcError(INVALID_PARAMS, f"Unknown prompt: {name}")
    for arg, _, required in spec[2]:
        if required and not arguments.get(arg):
            raise RpcError(INVALID_PARAMS, f"Missing required argument {arg!r} for {name}")

    def get(key: str, default: str = "") -> str:
        return str(arguments.get(key) or default)

    if name == "simple":
        messages = [_user("Say hello to the demo server.")]
    elif name == "greeting":
        style = get("style", "casual")
        opener = {"formal": "Good day", "pirate": "Ahoy"}.get(style, "Hi")
        messages = [
            _user(f"Write a {style} greeting for {get('name')}."),
            {"role": "assistant", "content": {"type": "text", "text": f"{opener}, {get('name')}!"}},
        ]
    elif name == "code_review":
        focus = f" Focus on {get('focus')}." if arguments.get("focus") else ""
        messages = [_user(f"Review this {get('language')} code.{focus}\n\n{get('code')}")]
    elif name == "note_summary":
        note_id = get("note_id")
        with state.lock:
            note = state.notes.get(note_id)
        if note is None:
            raise RpcError(INVALID_PARAMS, f"No note with id {note_id!r}")
        resource = {
            "uri": f"demo://notes/{note.id}",
            "mimeType": "text/plain",
            "text": f"{note.title}\n\n{note.body}",
        }
        messages = [
            _user(f"Summarize the following note in a {get('tone', 'neutral')} tone."),
            {"role": "user", "content": {"type": "resource", "resource": resource}},
        ]
    else:
        messages = [_user("You found the extra prompt.")]
    return {"description": spec[1], "messages": messages}


def complete_prompt(state: DemoState, name: str, arg: str, value: str) -> dict[str, Any]:
    if name not in _catalog(state):
        raise RpcError(INVALID_PARAMS, f"Unknown prompt: {name}")
    if (name, arg) == ("note_summary", "note_id"):
        with state.lock:
            return complete_values(list(state.notes), value)
    return complete_values(CHOICES.get((name, arg), []), value)
