"""Protocol findings: shape checks on single messages (the session adds flow checks)."""

from __future__ import annotations

from typing import Any

from inspector.engine.events import Finding

_VALID_ID_TYPES = (str, int)


def check_message(message: Any) -> list[Finding]:
    """Findings for one parsed JSON-RPC message or batch (never raises)."""
    if isinstance(message, list):
        if not message:
            return [Finding("empty-batch", "empty JSON-RPC batch", "error")]
        found: list[Finding] = [Finding("batch", "JSON-RPC batch (only 2025-03-26 allows them)",
                                        "info")]
        for index, item in enumerate(message):
            for f in check_message(item):
                found.append(Finding(f.code, f"item {index}: {f.message}", f.severity))
        return found
    if not isinstance(message, dict):
        return [Finding("not-object", f"a JSON-RPC message must be an object, got "
                        f"{type(message).__name__}", "error")]
    found = []
    if message.get("jsonrpc") != "2.0":
        found.append(Finding("jsonrpc-version",
                             f'"jsonrpc" must be "2.0", got {message.get("jsonrpc")!r:.40}',
                             "error"))
    has_method = "method" in message
    has_result = "result" in message
    has_error = "error" in message
    if has_method:
        if not isinstance(message["method"], str):
            found.append(Finding("method-type", "method must be a string", "error"))
        if has_result or has_error:
            found.append(Finding("mixed", "a message with a method must not carry "
                                 "result or error", "error"))
        params = message.get("params")
        if "params" in message and not isinstance(params, dict | list):
            found.append(Finding("params-type", "params must be an object", "error"))
        if "id" in message and not _valid_id(message["id"]):
            found.append(Finding("id-type", f"request id must be a string or integer, got "
                                 f"{message['id']!r:.40}", "error"))
    elif has_result and has_error:
        found.append(Finding("result-and-error", "a response must not have both result "
                             "and error", "error"))
    elif has_result or has_error:
        if "id" not in message:
            found.append(Finding("missing-id", "a response must have an id", "error"))
        elif message["id"] is None and not has_error:
            found.append(Finding("null-id", "a result response must not have a null id",
                                 "error"))
        elif message["id"] is not None and not _valid_id(message["id"]):
            found.append(Finding("id-type", "response id must be a string or integer",
                                 "error"))
        if has_error:
            err = message["error"]
            if (not isinstance(err, dict) or not isinstance(err.get("code"), int)
                    or not isinstance(err.get("message"), str)):
                found.append(Finding("error-shape", "error must be {code: integer, "
                                     "message: string}", "error"))
    else:
        found.append(Finding("no-shape", "neither a request, a notification nor a response",
                             "error"))
    return found


def _valid_id(value: Any) -> bool:
    return isinstance(value, _VALID_ID_TYPES) and not isinstance(value, bool)
