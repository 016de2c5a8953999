"""How a session's request fails on the client's side: the connection ended, no response
in time, the client cancelled it (each an ``RpcError``, as a server's error would be);
and ``first_failure``, the failure a task group's wrappers hide.
"""

from __future__ import annotations

from inspector.wire import jsonrpc
from inspector.wire.jsonrpc import RpcError
from inspector.wire.transport import ConnectionLost


def first_failure(exc: BaseException) -> BaseException:
    """The failure inside task-group wrappers (the first one of each group)."""
    while isinstance(exc, BaseExceptionGroup) and exc.exceptions:
        exc = exc.exceptions[0]
    return exc


class ConnectionClosedError(RpcError):
    """The connection ended while a request was pending (or before it was sent)."""

    def __init__(self, lost: ConnectionLost) -> None:
        super().__init__(jsonrpc.CONNECTION_CLOSED, f"connection closed: {lost.describe()}")
        self.lost = lost


class ServerExitedOnProbe(ConnectionClosedError):
    """The server ended on the era probe (``server/discover``): a strict handshake-era
    server that exits on a method it does not know. Started again and opened with
    ``initialize``, it works: the command line and the TUI do that."""


class RequestTimeoutError(RpcError):
    def __init__(self, method: str, seconds: float, hard: bool) -> None:
        what, flag = ("hard maximum", "--max-timeout") if hard else ("timeout", "--timeout")
        super().__init__(
            jsonrpc.REQUEST_TIMEOUT,
            f"{method}: no response within the {what} of {seconds:g} s "
            f"(notifications/cancelled sent); raise it with {flag}",
        )


class RequestCancelledError(RpcError):
    """The client cancelled a request (``notifications/cancelled`` went out): no answer came
    over the wire, the code is only the SDKs' convention. ``by_user``: the user asked for it
    (not the inspector itself, e.g. re-opening a listen stream)."""

    def __init__(self, method: str, reason: str, *, by_user: bool = False) -> None:
        super().__init__(jsonrpc.REQUEST_TIMEOUT, f"{method}: cancelled ({reason})")
        self.reason = reason
        self.by_user = by_user
