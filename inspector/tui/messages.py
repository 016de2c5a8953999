"""Messages the session controller posts to the app (engine facts, UI thread)."""

from __future__ import annotations

from typing import Any

from textual.message import Message

from inspector.engine.lists import ListChange
from inspector.wire.transport import ConnectionLost


class Connecting(Message):
    """A connection starts; ``renewal``: it replaces a session the server expired."""

    def __init__(self, target: str, attempt: int, renewal: bool = False) -> None:
        super().__init__()
        self.target = target
        self.attempt = attempt
        self.renewal = renewal


class Connected(Message):
    """The handshake finished; server facts are on the session."""

    def __init__(self, renewal: bool = False) -> None:
        super().__init__()
        self.renewal = renewal


class ConnectFailed(Message):
    def __init__(self, error: str) -> None:
        super().__init__()
        self.error = error


class Disconnected(Message):
    def __init__(self, lost: ConnectionLost) -> None:
        super().__init__()
        self.lost = lost


class CatalogLoaded(Message):
    """A catalog list arrived: at connect, or re-listed after list_changed (``change``
    then says how it differs from the list before; it may be empty)."""

    def __init__(
        self,
        kind: str,
        items: list[dict[str, Any]],
        change: ListChange | None = None,
        error: str | None = None,
    ) -> None:
        super().__init__()
        self.kind = kind
        self.items = items
        self.change = change
        self.error = error
