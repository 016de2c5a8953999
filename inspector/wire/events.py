"""WireEvent: one frame on the wire, in either direction, before anything else looks at it.

Every byte a transport writes or reads becomes exactly one event: JSON-RPC
messages, non-JSON stdout lines, stderr lines, HTTP status lines, SSE event
metadata and the inspector's own lifecycle notes. The raw bytes are kept as
they were; the parsed message (or the parse error) rides along.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from time import monotonic as _monotonic
from time import time as _wall_time
from typing import Any


class Direction(StrEnum):
    """Who sent the frame."""

    OUT = "out"  # client -> server
    IN = "in"  # server -> client
    LOCAL = "local"  # the inspector's own note (connect, exit code, reconnect...)


class Channel(StrEnum):
    """Where on the transport the frame travelled."""

    STDIN = "stdin"
    STDOUT = "stdout"
    STDERR = "stderr"
    HTTP = "http"  # HTTP request/response line and headers
    SSE = "sse"  # a message carried by a server-sent event
    BODY = "body"  # a message carried in an HTTP request or response body
    MEMORY = "memory"
    SYSTEM = "system"  # lifecycle notes from the inspector
    AUTH = "auth"  # OAuth exchanges (discovery, registration, tokens): HTTP, not JSON-RPC


class Kind(StrEnum):
    """What the frame is, derived from the channel and the parsed message."""

    REQUEST = "request"
    RESPONSE = "response"
    ERROR = "error"
    NOTIFICATION = "notification"
    BATCH = "batch"
    INVALID = "invalid"
    STDERR = "stderr"
    HTTP = "http"
    SYSTEM = "system"


@dataclass(slots=True)
class Finding:
    """A protocol observation about an event (a lint result)."""

    code: str
    message: str
    severity: str = "warning"  # "info" | "warning" | "error"

    def to_json(self) -> dict[str, str]:
        return {"code": self.code, "message": self.message, "severity": self.severity}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Finding:
        return cls(
            str(data.get("code", "")),
            str(data.get("message", "")),
            str(data.get("severity", "warning")),
        )


@dataclass(slots=True)
class WireEvent:
    """One frame. ``seq`` is assigned by the session's wire when the event is emitted."""

    direction: Direction
    channel: Channel
    raw: bytes
    message: Any = None  # parsed JSON (dict or list) when ``raw`` is JSON
    error: str | None = None  # why ``raw`` did not parse, when it did not
    meta: dict[str, Any] = field(default_factory=dict)
    findings: list[Finding] = field(default_factory=list)
    seq: int = 0
    time: float = field(default_factory=_wall_time)  # wall clock, epoch seconds
    mono: float = field(default_factory=_monotonic)

    @property
    def kind(self) -> Kind:
        return classify(self)

    @property
    def method(self) -> str | None:
        msg = self.message
        if isinstance(msg, dict):
            method = msg.get("method")
            return method if isinstance(method, str) else None
        return None

    @property
    def msg_id(self) -> Any:
        msg = self.message
        return msg.get("id") if isinstance(msg, dict) else None

    def text(self) -> str:
        """The raw bytes as text, invalid UTF-8 shown with replacement characters."""
        return self.raw.decode("utf-8", errors="replace")


SIDE_KEY = "side"  # meta: on a proxy's wire, whose frame it is (host, inspector, server)
ATTACH_KEY = "attach"  # meta: which attached inspector (a number), for side "inspector"
SERVER_KEY = "server"  # meta: in a workspace (several servers), which server's frame it is


def party(meta: dict[str, Any]) -> str | None:
    """Whose frame an event is on a proxy's wire: ``host``, ``inspector 2``, ``server``;
    None for a frame of an ordinary session."""
    side = meta.get(SIDE_KEY)
    if not isinstance(side, str):
        return None
    attach = meta.get(ATTACH_KEY)
    return f"{side} {attach}" if isinstance(attach, int) and not isinstance(attach, bool) else side


def classify(event: WireEvent) -> Kind:
    """The event's kind: transport-level channels first, then the JSON-RPC shape."""
    if event.channel is Channel.STDERR:
        return Kind.STDERR
    if event.channel is Channel.SYSTEM or event.direction is Direction.LOCAL:
        return Kind.SYSTEM
    if event.channel in (Channel.HTTP, Channel.AUTH):
        return Kind.HTTP
    return classify_message(event.message, event.error)


def classify_message(message: Any, error: str | None = None) -> Kind:
    """Kind of a parsed JSON-RPC message (or INVALID)."""
    if error is not None or message is None:
        return Kind.INVALID
    if isinstance(message, list):
        return Kind.BATCH
    if not isinstance(message, dict):
        return Kind.INVALID
    if "method" in message:
        return Kind.REQUEST if "id" in message else Kind.NOTIFICATION
    if "error" in message:
        return Kind.ERROR
    if "result" in message:
        return Kind.RESPONSE
    return Kind.INVALID
