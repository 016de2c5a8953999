"""Shared state of the demo server and the context a tool runs in.

Tools run on worker threads; everything they touch in ``DemoState`` is guarded
by its lock. A tool talks to the client only through its ``ToolContext``.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, Protocol

from inspector.errors import InspectorError
from inspector.wire.jsonrpc import RpcError

LEVELS = ("debug", "info", "notice", "warning", "error", "critical", "alert", "emergency")
VERSIONS = ("2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25")
LATEST = VERSIONS[-1]
RELATED_TASK = "io.modelcontextprotocol/related-task"


def now_iso() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def at_least(version: str, minimum: str) -> bool:
    """True when the negotiated ``version`` is ``minimum`` or newer."""
    return VERSIONS.index(version) >= VERSIONS.index(minimum) if version in VERSIONS else True


@dataclass
class Note:
    id: str
    title: str
    body: str
    updated: str = field(default_factory=now_iso)


@dataclass
class DemoState:
    """Everything that changes while the server runs."""

    variant: str = "default"
    tick: float = 2.0
    lock: threading.RLock = field(default_factory=threading.RLock)
    notes: dict[str, Note] = field(default_factory=dict)
    next_note: int = 1
    counter: int = 0
    extra_enabled: bool = False
    subscriptions: set[str] = field(default_factory=set)
    log_level: str = "info"
    protocol_version: str = LATEST
    client_capabilities: dict[str, Any] = field(default_factory=dict)
    client_info: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.add_note("Shopping list", "eggs, flour, milk")
        self.add_note("Ideas", "an inspector for the Model Context Protocol")

    @property
    def changed(self) -> bool:
        return self.variant == "changed"

    def add_note(self, title: str, body: str) -> Note:
        with self.lock:
            note = Note(str(self.next_note), title, body)
            self.notes[note.id] = note
            self.next_note += 1
            return note

    def has_capability(self, name: str) -> bool:
        return isinstance(self.client_capabilities.get(name), dict)


class Host(Protocol):
    """What the server offers to a running tool."""

    state: DemoState

    def notify(self, method: str, params: dict[str, Any] | None = None) -> None: ...

    def log(self, level: str, data: Any, logger: str | None = None) -> None: ...

    def request_client(
        self, method: str, params: dict[str, Any], cancel: threading.Event, timeout: float
    ) -> Any: ...

    def resource_updated(self, uri: str) -> None: ...


class Cancelled(InspectorError):
    """The request (or its task) was cancelled; no response goes out."""


@dataclass
class ToolContext:
    """One running tool call: progress, logging, cancellation and client requests."""

    host: Host
    request_id: Any
    progress_token: Any = None
    cancel: threading.Event = field(default_factory=threading.Event)
    task_id: str | None = None
    on_input_required: Any = None  # callable(bool) set by the task store

    @property
    def state(self) -> DemoState:
        return self.host.state

    @property
    def cancelled(self) -> bool:
        return self.cancel.is_set()

    def sleep(self, seconds: float) -> None:
        """Wait, waking early to raise ``Cancelled`` when the call is cancelled."""
        if self.cancel.wait(max(0.0, seconds)):
            raise Cancelled

    def progress(
        self, progress: float, total: float | None = None, message: str | None = None
    ) -> None:
        if self.progress_token is None:
            return
        params: dict[str, Any] = {"progressToken": self.progress_token, "progress": progress}
        if total is not None:
            params["total"] = total
        if message is not None and at_least(self.state.protocol_version, "2025-03-26"):
            params["message"] = message
        if self.task_id is not None:
            params["_meta"] = {RELATED_TASK: {"taskId": self.task_id}}
        self.host.notify("notifications/progress", params)

    def log(self, level: str, data: Any, logger: str | None = "demo") -> None:
        self.host.log(level, data, logger)

    def request(self, method: str, params: dict[str, Any], timeout: float = 300.0) -> Any:
        """Send a request to the client and wait for its result (raises ``RpcError``)."""
        if self.task_id is not None:
            params = {**params, "_meta": {RELATED_TASK: {"taskId": self.task_id}}}
        if self.on_input_required is not None:
            self.on_input_required(True)
        try:
            return self.host.request_client(method, params, self.cancel, timeout)
        finally:
            if self.on_input_required is not None:
                self.on_input_required(False)


def text(value: str) -> dict[str, Any]:
    return {"type": "text", "text": value}


def result(*blocks: dict[str, Any], is_error: bool = False, **extra: Any) -> dict[str, Any]:
    out: dict[str, Any] = {"content": list(blocks)}
    if is_error:
        out["isError"] = True
    out.update(extra)
    return out


def error_result(message: str) -> dict[str, Any]:
    return result(text(message), is_error=True)


def client_error_text(exc: RpcError) -> str:
    return f"the client answered with error {exc.code}: {exc.message}"
