"""What ``s`` (save) and ``c`` (copy) on a result keep: its binary blocks, the result as
JSON (an error as its JSON-RPC error object), its text blocks as text."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from typing import Any, Protocol

from inspector.tui.result_files import SaveChoice, file_name


class Outcome(Protocol):
    """What is kept of a call's outcome (``result_view.Outcome``; not imported: the view
    imports this module)."""

    result: Any
    error: dict[str, Any] | None
    parked: bytes | None
    cancelled: bool
    no_answer: str
    step: tuple[str, str, dict[str, Any] | None] | None

    def value(self) -> Any: ...

    def value_kept(self) -> bool: ...


def result_json(value: Any, error: dict[str, Any] | None) -> str | None:
    """The result (or the protocol error) as indented JSON; None when there is neither."""
    held = error if error is not None else value
    if held is None:
        return None
    return json.dumps(held, indent=2, ensure_ascii=False)


def _texts(value: Any) -> Iterator[str]:
    if not isinstance(value, dict):
        return
    blocks = [*(value.get("content") or []), *(value.get("contents") or [])]
    blocks += [m.get("content") for m in value.get("messages") or [] if isinstance(m, dict)]
    for block in blocks:
        if not isinstance(block, dict):
            continue
        if isinstance(block.get("text"), str):
            yield block["text"]
        elif isinstance(block.get("resource"), dict) and "text" in block["resource"]:
            yield str(block["resource"]["text"])


def result_text(value: Any) -> str | None:
    """The text of a result's text blocks (tool content, resource contents, prompt
    messages), one after another; None when it has none."""
    texts = list(_texts(value))
    return "\n".join(texts) if texts else None


def _has_text(outcome: Outcome) -> bool:
    if outcome.result is None and outcome.parked is not None:
        return b'"text":' in outcome.parked  # not parsed again on the UI thread to tell
    return next(_texts(outcome.result), None) is not None


def _files(files: list[tuple[str, bytes]]) -> Callable[[], list[tuple[str, bytes]]]:
    return lambda: files


def save_choices(
    outcome: Outcome,
    binaries: list[tuple[str, bytes]],
    mask: Callable[[Any], Any] = lambda value: value,
) -> list[SaveChoice]:
    """The dialog's lines, binary blocks first (all of them, then each alone), then the
    JSON, then the text; empty when the result holds nothing (cancelled, no answer).
    A parked result is parsed again in the worker, not here; ``mask``: the session's
    secrets out of the result and the error written (in the worker too)."""
    choices: list[SaveChoice] = []
    if binaries:
        names = ", ".join(name for name, _ in binaries)
        choices.append(SaveChoice(f"the binary blocks ({names})", _files(list(binaries))))
        if len(binaries) > 1:
            for name, data in binaries:
                choices.append(SaveChoice(f"{name} only", _files([(name, data)])))
    error = outcome.error
    if outcome.cancelled or outcome.no_answer or (error is None and not outcome.value_kept()):
        return choices
    stem = f"result-{outcome.step[1][:60]}" if outcome.step else "result"
    json_name = file_name(f"{stem}.json", "application/json")
    what = "error" if error is not None else "result"
    choices.append(
        SaveChoice(
            f"the {what} as JSON ({json_name})",
            lambda: [(json_name, (result_json(mask(outcome.value()), mask(error)) or "").encode())],
        )
    )
    if error is None and _has_text(outcome):
        text_name = file_name(f"{stem}.txt", "text/plain")
        choices.append(
            SaveChoice(
                f"its text ({text_name})",
                lambda: [(text_name, (result_text(mask(outcome.value())) or "").encode())],
            )
        )
    return choices
