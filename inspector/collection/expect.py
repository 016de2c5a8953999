"""Judge one step's outcome against its ``expect`` block: a list of failures, each naming
the expectation, what was expected and what came.

The automatic checks run with or without ``expect``: a JSON-RPC error fails the step
unless ``error`` expects one, a tool result with ``isError: true`` fails it unless
``isError: true`` is expected, and ``structuredContent`` must match the tool's
``outputSchema`` (:func:`inspector.forms.output.check_output`, as ``--cli`` checks it).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

from inspector.collection.paths import find

SHOWN = 200  # characters of a value in a failure message


@dataclass(frozen=True)
class Failure:
    """One expectation that did not hold."""

    expectation: str  # "jsonpath $.structuredContent.sum", "isError", "snapshot"...
    message: str  # the whole sentence: expectation, expected, actual
    expected: Any = None
    actual: Any = None

    def to_json(self) -> dict[str, Any]:
        return {
            "expectation": self.expectation,
            "message": self.message,
            "expected": self.expected,
            "actual": self.actual,
        }


@dataclass
class Outcome:
    """What a step got: a result, or a JSON-RPC error (``error``: code, message, data)."""

    result: Any = None
    error: dict[str, Any] | None = None
    latency_ms: float = 0.0

    @property
    def document(self) -> Any:
        """What JSONPaths and ``schema`` look at: the result, or the error object."""
        return self.error if self.error is not None else self.result

    def body(self) -> dict[str, Any]:
        """The response as a message body (``{"result": ...}``/``{"error": ...}``): the
        shape a snapshot keeps and ``replay --against``'s ignore paths are written for."""
        return {"error": self.error} if self.error is not None else {"result": self.result}


def shown(value: Any) -> str:
    """A value in a message: JSON, cut to :data:`SHOWN` characters."""
    text = json.dumps(value, ensure_ascii=False, sort_keys=True, default=str)
    return text if len(text) <= SHOWN else text[: SHOWN - 1] + "…"


def result_text(result: Any) -> str:
    """The text of a result: its text content blocks (a tool), resource contents (a
    read), message contents (a prompt), item names (a list), else its JSON."""
    if not isinstance(result, dict):
        return json.dumps(result, ensure_ascii=False)
    texts: list[str] = []
    if isinstance(result.get("content"), list):
        texts = _block_texts(result["content"])
    elif isinstance(result.get("contents"), list):
        texts = [c["text"] for c in result["contents"] if isinstance(c, dict) and "text" in c]
    elif isinstance(result.get("messages"), list):
        for message in result["messages"]:
            if isinstance(message, dict):
                texts += _block_texts(message.get("content"))
    else:
        items = next((v for v in result.values() if isinstance(v, list)), None)
        if items is not None and all(isinstance(i, dict) for i in items):
            return "\n".join(str(i.get("name", i.get("uri", i.get("uriTemplate")))) for i in items)
        return json.dumps(result, ensure_ascii=False)
    return "\n".join(str(t) for t in texts)


def _block_texts(content: Any) -> list[str]:
    blocks = content if isinstance(content, list) else [content]
    return [
        b["text"] for b in blocks if isinstance(b, dict) and b.get("type") == "text" and "text" in b
    ]


def check(expect: dict[str, Any], outcome: Outcome, verb: str) -> list[Failure]:
    """Every failure of ``outcome`` against ``expect`` (already interpolated)."""
    failures = _error_side(expect, outcome, verb)
    if outcome.error is not None and "error" not in expect:
        return failures  # nothing else can be judged on an error nobody expected
    text = None if outcome.error is not None else result_text(outcome.result)
    if "text" in expect and text is not None and text != expect["text"]:
        failures.append(
            Failure(
                "text",
                f"text: expected {shown(expect['text'])}, got {shown(text)}",
                expect["text"],
                text,
            )
        )
    for needle in expect.get("contains", []):
        if text is not None and needle not in text:
            failures.append(
                Failure(
                    "contains",
                    f"contains: {shown(needle)} is not in the text {shown(text)}",
                    needle,
                    text,
                )
            )
    if "matches" in expect and text is not None:
        pattern = expect["matches"]
        try:
            found = re.search(pattern, text) is not None
        except re.error as exc:
            failures.append(
                Failure("matches", f"matches: not a regular expression: {exc}", pattern)
            )
        else:
            if not found:
                failures.append(
                    Failure(
                        "matches",
                        f"matches: /{pattern}/ finds nothing in {shown(text)}",
                        pattern,
                        text,
                    )
                )
    failures += _paths(expect, outcome.document)
    if "schema" in expect:
        failures += _schema(expect["schema"], outcome.document)
    if "latency_ms" in expect:
        under = expect["latency_ms"]["under"]
        if outcome.latency_ms >= under:
            failures.append(
                Failure(
                    "latency_ms",
                    f"latency_ms: took {outcome.latency_ms:.0f} ms, expected under {under:g} ms",
                    under,
                    round(outcome.latency_ms, 1),
                )
            )
    return failures


def _error_side(expect: dict[str, Any], outcome: Outcome, verb: str) -> list[Failure]:
    """``error`` and ``isError``, and the errors nobody expected."""
    error = outcome.error
    if "error" in expect:
        wanted = expect["error"]
        if error is None:
            return [
                Failure(
                    "error",
                    f"error: expected a JSON-RPC error {shown(wanted)}, got a "
                    f"result {shown(outcome.result)}",
                    wanted,
                    outcome.result,
                )
            ]
        failures = []
        if "code" in wanted and error.get("code") != wanted["code"]:
            failures.append(
                Failure(
                    "error.code",
                    f"error.code: expected {wanted['code']}, got "
                    f"{error.get('code')} ({shown(error.get('message'))})",
                    wanted["code"],
                    error.get("code"),
                )
            )
        message = str(error.get("message", ""))
        if "message" in wanted and str(wanted["message"]) not in message:
            failures.append(
                Failure(
                    "error.message",
                    f"error.message: expected it to contain "
                    f"{shown(wanted['message'])}, got {shown(message)}",
                    wanted["message"],
                    message,
                )
            )
        return failures
    if error is not None:
        return [
            Failure(
                "error",
                f"error: JSON-RPC error {error.get('code')}: "
                f"{shown(error.get('message'))} (expect it with error: {{code: "
                f"{error.get('code')}}})",
                None,
                error,
            )
        ]
    is_error = isinstance(outcome.result, dict) and outcome.result.get("isError") is True
    wanted_flag = expect.get("isError", False if verb == "call" else None)
    if wanted_flag is not None and is_error != wanted_flag:
        said = shown(result_text(outcome.result))
        hint = " (expect it with isError: true)" if is_error else ""
        return [
            Failure(
                "isError",
                f"isError: expected {str(wanted_flag).lower()}, got "
                f"{str(is_error).lower()}: {said}{hint}",
                wanted_flag,
                is_error,
            )
        ]
    return []


def _paths(expect: dict[str, Any], document: Any) -> list[Failure]:
    failures = []
    for path, wanted in (expect.get("jsonpath") or {}).items():
        values = find(path, document)
        if not values:
            failures.append(
                Failure(
                    f"jsonpath {path}",
                    f"jsonpath {path}: expected {shown(wanted)}, found nothing at this path",
                    wanted,
                    None,
                )
            )
            continue
        got = values[0] if len(values) == 1 else values
        if not _equal(got, wanted):
            failures.append(
                Failure(
                    f"jsonpath {path}",
                    f"jsonpath {path}: expected {shown(wanted)}, got {shown(got)}",
                    wanted,
                    got,
                )
            )
    for path in expect.get("exists", []):
        if not find(path, document):
            failures.append(
                Failure(f"exists {path}", f"exists {path}: found nothing at this path", path, None)
            )
    for path in expect.get("absent", []):
        values = find(path, document)
        if values:
            failures.append(
                Failure(
                    f"absent {path}",
                    f"absent {path}: expected nothing, found {shown(values[0])}",
                    None,
                    values[0],
                )
            )
    return failures


def _equal(got: Any, wanted: Any) -> bool:
    """JSON equality: 1 == 1.0, but true is not 1."""
    if isinstance(got, bool) or isinstance(wanted, bool):
        return type(got) is type(wanted) and got == wanted
    if isinstance(got, dict) and isinstance(wanted, dict):
        return got.keys() == wanted.keys() and all(_equal(got[k], wanted[k]) for k in got)
    if isinstance(got, list) and isinstance(wanted, list):
        return len(got) == len(wanted) and all(
            _equal(a, b) for a, b in zip(got, wanted, strict=True)
        )
    return bool(got == wanted)


def _schema(schema: dict[str, Any], document: Any) -> list[Failure]:
    from inspector.forms.output import issue_path
    from inspector.forms.validate import validate

    issues = validate(schema, document)
    if not issues:
        return []
    listed = "; ".join(f"{issue_path(i)}: {i.message}" for i in issues)
    return [Failure("schema", f"schema: the result does not match: {listed}", schema, document)]


def output_schema(tool: dict[str, Any] | None, result: Any) -> list[Failure]:
    """The automatic check of ``structuredContent`` against the tool's ``outputSchema``."""
    if tool is None:
        return []
    from inspector.forms.output import check_output, issue_path

    checked = check_output(tool.get("outputSchema"), result)
    if not checked.failed:
        return []
    issues = [f"{issue_path(i)}: {i.message}" for i in checked.issues]
    return [
        Failure(
            "outputSchema",
            f"outputSchema: {checked.describe()}",
            tool.get("outputSchema"),
            issues or None,
        )
    ]
