"""The one transport interface: start, send a frame, report events, close.

A transport turns bytes into ``WireEvent``s and hands every one of them to its
host (the session's wire) before anything else happens; it never drops a frame
and never interprets one beyond framing.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from typing import Any, ClassVar, Protocol

from anyio.abc import TaskGroup

from inspector.errors import InspectorError
from inspector.wire.events import WireEvent
from inspector.wire.jsonrpc import encode


class TransportError(InspectorError):
    """The transport could not start or carry a frame. The message says what to do."""


@dataclass(slots=True)
class ConnectionLost:
    """Why a connection ended, with what the user needs to see to act on it."""

    message: str
    exit_code: int | None = None
    stderr_tail: list[str] = field(default_factory=list)
    http_status: int | None = None
    expected: bool = False  # True when we closed it ourselves

    def describe(self) -> str:
        parts = [self.message]
        if self.exit_code is not None:
            parts.append(f"exit code {self.exit_code}")
        if self.http_status is not None:
            parts.append(f"HTTP {self.http_status}")
        text = "; ".join(parts)
        if self.stderr_tail:
            text += "\nlast stderr lines:\n  " + "\n  ".join(self.stderr_tail)
        return text


class TransportHost(Protocol):
    """What a transport reports to: the session's wire."""

    def emit(self, event: WireEvent) -> None: ...

    def connection_lost(self, lost: ConnectionLost) -> None: ...


class Transport(ABC):
    """Base class: subclasses implement ``start``, ``send_raw`` and ``close``."""

    kind: ClassVar[str] = "transport"

    @property
    @abstractmethod
    def target(self) -> str:
        """A one-line human description of what we are connected to."""

    def target_info(self) -> dict[str, Any]:
        """Machine-readable target for session file headers (secrets redacted later)."""
        return {"transport": self.kind, "target": self.target}

    @abstractmethod
    async def start(self, host: TransportHost, task_group: TaskGroup) -> None:
        """Open the connection; background readers go into ``task_group``."""

    @abstractmethod
    async def send_raw(self, raw: bytes, message: Any = None) -> None:
        """Emit the outgoing event to the host, then write ``raw`` as one frame."""

    async def send(self, message: Any) -> None:
        await self.send_raw(encode(message), message)

    def set_protocol_version(self, version: str) -> None:  # noqa: B027 - optional hook
        """Called after initialize; HTTP sends it as a header. Default: nothing."""

    @abstractmethod
    async def close(self) -> None:
        """Close the connection and release every resource (idempotent)."""
