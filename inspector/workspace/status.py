"""Each server's connection state, as the server list shows it.

    status = ServerStatus("files", "stdio")
    status.connected(era="2025-06-18")
    status.row()   # ("files", "stdio", "2025-06-18", "connected")

States: connecting, connected, failed (with the reason), needs authorization, stopped,
recorded (a replay).
The server's own text (a failure's reason) is data: the row makes control characters
visible.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum

from inspector.safe_text import visible
from inspector.wire.transport import ConnectionLost


class State(Enum):
    CONNECTING = "connecting"
    CONNECTED = "connected"
    FAILED = "failed"
    NEEDS_AUTH = "needs authorization"
    STOPPED = "stopped"
    RECORDED = "recorded"  # a workspace's recording replayed: offline


@dataclass
class ServerStatus:
    """One server's row in the server list."""

    name: str
    transport: str  # stdio, http, sse, auto (not yet known)
    era: str = ""  # the protocol version agreed, once connected
    state: State = State.CONNECTING
    reason: str = ""  # why it failed, or what authorizing needs

    def connecting(self) -> None:
        self.state, self.reason = State.CONNECTING, ""

    def connected(self, era: str, transport: str | None = None) -> None:
        self.state, self.reason, self.era = State.CONNECTED, "", era
        if transport:
            self.transport = transport

    def failed(self, reason: str) -> None:
        self.state, self.reason = State.FAILED, reason

    def ended(self, lost: ConnectionLost) -> None:
        """Failed with what the server's end said, on one line: the loss, its exit code
        and the server's last stderr line (its own words on why, most often). Our own
        close after a failure (an expected loss) keeps the failure's reason: the server's
        exit code and last stderr line, not "server stopped"."""
        if lost.expected and self.state is State.FAILED:
            return
        parts = [lost.message]
        if lost.exit_code is not None:
            parts.append(f"exit code {lost.exit_code}")
        if lost.http_status is not None:
            parts.append(f"HTTP {lost.http_status}")
        said = next((line for line in reversed(lost.stderr_tail) if line.strip()), None)
        self.failed("; ".join(parts) + (f": {said.strip()}" if said is not None else ""))

    def needs_auth(self, reason: str = "") -> None:
        self.state, self.reason = State.NEEDS_AUTH, reason

    def stopped(self) -> None:
        self.state, self.reason = State.STOPPED, ""

    @property
    def label(self) -> str:
        """The state as the list says it (a failure with its reason)."""
        if self.reason:
            return f"{self.state.value}: {visible(self.reason)}"
        return self.state.value

    def row(self) -> tuple[str, str, str, str]:
        """Name, transport, era, state: the server list's columns."""
        return (visible(self.name), self.transport, self.era or "-", self.label)
