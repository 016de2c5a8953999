"""Answering the server's own requests: the responder for each method (``ping`` is answered
here), its answer as a JSON-RPC response or error, and the server's
``notifications/cancelled`` stopping an answer under way (then no reply at all).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

import anyio

from inspector.engine.responders import Responders
from inspector.wire import jsonrpc
from inspector.wire.jsonrpc import RpcError

Respond = Callable[[str, dict[str, Any]], Awaitable[dict[str, Any]]]


async def respond_with(
    responders: Responders, method: str, params: dict[str, Any]
) -> dict[str, Any]:
    """The client's answer to a server's request; raises ``RpcError``."""
    if method == "ping":
        return {}
    responder = responders.for_method(method)
    if responder is None:
        raise RpcError(jsonrpc.METHOD_NOT_FOUND, f"method not supported by the client: {method}")
    return await responder(params)


class ServerRequests:
    """The server's requests being answered, each cancellable by the server."""

    def __init__(self) -> None:
        self._scopes: dict[Any, anyio.CancelScope] = {}

    def cancel(self, request_id: Any) -> None:
        """The server's ``notifications/cancelled`` for ``request_id``: stop answering it."""
        key = jsonrpc.id_key(request_id)
        scope = self._scopes.get(key) if key is not None else None
        if scope is not None:
            scope.cancel()

    async def answer(self, message: dict[str, Any], respond: Respond) -> dict[str, Any] | None:
        """The reply to the server's request ``message`` (an error reply when ``respond``
        fails), or None when the server cancelled it first."""
        id_ = message.get("id")
        method = str(message.get("method"))
        params = message.get("params")
        params = params if isinstance(params, dict) else {}
        reply: dict[str, Any] | None = None
        key = jsonrpc.id_key(id_)  # an invalid id is answered as sent, but cannot be cancelled
        with anyio.CancelScope() as scope:
            if key is not None:
                self._scopes[key] = scope
            try:
                reply = jsonrpc.response(id_, await respond(method, params))
            except RpcError as exc:
                reply = jsonrpc.error_response(id_, exc.code, exc.message, exc.data)
            except Exception as exc:
                reply = jsonrpc.error_response(
                    id_, jsonrpc.INTERNAL_ERROR, f"client responder failed: {exc}"
                )
            finally:
                if key is not None:
                    self._scopes.pop(key, None)
        return None if scope.cancelled_caught else reply
