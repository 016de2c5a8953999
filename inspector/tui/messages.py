"""Messages the session controller posts to the app (engine facts, UI thread)."""

from __future__ import annotations

from typing import Any

from textual.message import Message

from inspector.transports.base import ConnectionLost


class Connecting(Message):
    def __init__(self, target: str, attempt: int) -> None:
        super().__init__()
        self.target = target
        self.attempt = attempt


class Connected(Message):
    """The handshake finished; server facts are on the session."""


class ConnectFailed(Message):
    def __init__(self, error: str) -> None:
        super().__init__()
        self.error = error


class Disconnected(Message):
    def __init__(self, lost: ConnectionLost) -> None:
        super().__init__()
        self.lost = lost


class CatalogLoaded(Message):
    """A catalog list arrived (at connect, or re-listed after list_changed)."""

    def __init__(self, kind: str, items: list[dict[str, Any]], changed: bool = False,
                 error: str | None = None) -> None:
        super().__init__()
        self.kind = kind
        self.items = items
        self.changed = changed
        self.error = error
