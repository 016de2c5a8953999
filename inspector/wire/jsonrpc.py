"""A tolerant JSON-RPC 2.0 codec: messages stay plain dicts, exactly as on the wire.

Decoding never raises: bad bytes come back as an error string so the frame can
still become a ``WireEvent``. Shape problems are reported as findings by
``inspector.engine.lint``, not rejected here.
"""

from __future__ import annotations

import json
from typing import Any

from inspector.errors import InspectorError
from inspector.wire.events import Channel, Direction, WireEvent

JSONRPC = "2.0"

# JSON-RPC error codes
PARSE_ERROR = -32700
INVALID_REQUEST = -32600
METHOD_NOT_FOUND = -32601
INVALID_PARAMS = -32602
INTERNAL_ERROR = -32603
# MCP and SDK conventions
RESOURCE_NOT_FOUND = -32002
URL_ELICITATION_REQUIRED = -32042
CONNECTION_CLOSED = -32000
REQUEST_TIMEOUT = -32001
USER_REJECTED = -1

Message = dict[str, Any]
RequestId = str | int


class RpcError(InspectorError):
    """A JSON-RPC error response, or a local failure presented as one."""

    def __init__(self, code: int, message: str, data: Any = None) -> None:
        super().__init__(f"{message} (code {code})")
        self.code = code
        self.message = message
        self.data = data

    def to_error(self) -> dict[str, Any]:
        err: dict[str, Any] = {"code": self.code, "message": self.message}
        if self.data is not None:
            err["data"] = self.data
        return err

    @classmethod
    def from_error(cls, error: Any) -> RpcError:
        if not isinstance(error, dict):
            return cls(INTERNAL_ERROR, f"malformed error object: {error!r}")
        code = error.get("code")
        return cls(
            code if isinstance(code, int) else INTERNAL_ERROR,
            str(error.get("message", "")),
            error.get("data"),
        )


# ``json.loads`` minus its wrapping (two whitespace regex matches and checks a frame): a
# frame that is one JSON value from its first character to its last parses the same
_raw_decode = json.JSONDecoder().raw_decode


def decode(raw: bytes) -> tuple[Any, str | None]:
    """Parse one frame. Returns ``(message, None)`` or ``(None, reason)``."""
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        return None, f"invalid UTF-8 at byte {exc.start}: {exc.reason}"
    try:
        message, end = _raw_decode(text)
        if end == len(text):  # nothing around it: ``strip`` would not have changed it
            return message, None
    except (ValueError, RecursionError):
        pass  # said below, in ``json.loads``'s words
    stripped = text.strip()
    if not stripped:
        return None, "empty frame"
    try:
        return json.loads(stripped), None
    except json.JSONDecodeError as exc:
        return None, f"not JSON: {exc.msg} at line {exc.lineno} column {exc.colno}"
    except RecursionError:
        return None, "not JSON: nested too deeply"


def encode(message: Any) -> bytes:
    """Compact UTF-8 JSON with no newline inside (stdio frames are one line)."""
    return json.dumps(message, ensure_ascii=False, separators=(",", ":")).encode("utf-8")


def make_event(
    direction: Direction,
    channel: Channel,
    raw: bytes,
    meta: dict[str, Any] | None = None,
    message: Any = None,
) -> WireEvent:
    """Build an event from raw bytes, parsing them unless the message is already known."""
    if message is None:
        message, error = decode(raw)
    else:
        error = None
    return WireEvent(
        direction=direction, channel=channel, raw=raw, message=message, error=error, meta=meta or {}
    )


def request(id_: RequestId, method: str, params: dict[str, Any] | None = None) -> Message:
    msg: Message = {"jsonrpc": JSONRPC, "id": id_, "method": method}
    if params is not None:
        msg["params"] = params
    return msg


def notification(method: str, params: dict[str, Any] | None = None) -> Message:
    msg: Message = {"jsonrpc": JSONRPC, "method": method}
    if params is not None:
        msg["params"] = params
    return msg


def response(id_: RequestId | None, result: Any) -> Message:
    return {"jsonrpc": JSONRPC, "id": id_, "result": result}


def error_response(id_: RequestId | None, code: int, message: str, data: Any = None) -> Message:
    err: dict[str, Any] = {"code": code, "message": message}
    if data is not None:
        err["data"] = data
    return {"jsonrpc": JSONRPC, "id": id_, "error": err}


def id_key(value: Any) -> RequestId | None:
    """``value`` as a key when it can stand for a request: a string or an integer (``2.0``
    as ``2``); None for anything else. A null, boolean, fractional, array or object id
    matches nothing, and an array or object could not even be looked up (unhashable):
    every id or token that came over the wire goes through here before it is a key."""
    if isinstance(value, bool):
        return None
    if isinstance(value, str | int):
        return value
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return None


def is_request(msg: Any) -> bool:
    return isinstance(msg, dict) and "method" in msg and "id" in msg


def is_notification(msg: Any) -> bool:
    return isinstance(msg, dict) and "method" in msg and "id" not in msg


def is_response(msg: Any) -> bool:
    return isinstance(msg, dict) and "method" not in msg and ("result" in msg or "error" in msg)
