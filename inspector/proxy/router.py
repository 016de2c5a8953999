"""Id rewriting and routing between a host, attached inspectors and one server connection.

The host's frames go to the server untouched and the server's frames come back to the
host untouched, except what belongs to an inspector:

- an inspector's request goes out with an id of the proxy's own (``mcp-inspect-N``,
  never one a host uses) and its progress token likewise; the response and the progress
  notifications come back to that inspector with its own id and token restored, and
  never reach the host;
- an inspector's ``notifications/cancelled`` names the rewritten id;
- the inspector's ``initialize`` is answered by the proxy with the host's handshake
  result (the server's session is the host's; it is opened once), and its
  ``notifications/initialized`` is not passed on;
- a request of the server goes to whoever caused it: over HTTP, the side whose request's
  response stream carried it; where the wire does not say (stdio, or the standing GET
  stream), a side with requests in flight that declared the capability the request needs
  (``roots``, ``sampling``, ``elicitation``): the host first, then inspectors, oldest
  first (never the host when it did not declare it); failing that the host while it
  has requests in flight, else an inspector's;
- every other notification of the server reaches the host unchanged, and every inspector
  gets it too (list changes, log messages, resource updates).

Pure bookkeeping: no I/O, so it is tested on its own.
"""

from __future__ import annotations

import itertools
from collections.abc import Hashable
from dataclasses import dataclass, field
from typing import Any

from inspector.proxy.origin import HOST_ORIGIN, INSPECTOR, Origin
from inspector.wire import jsonrpc

WIRE_ID_PREFIX = "mcp-inspect-"
HANDSHAKE_DROPPED = "notifications/initialized"
# what a client must have declared for the server to send it this request
NEEDS = {
    "roots/list": "roots",
    "sampling/createMessage": "sampling",
    "elicitation/create": "elicitation",
}


@dataclass(slots=True)
class Borrowed:
    """An inspector's request on the wire under the proxy's id."""

    attach: int
    original: Any  # the inspector's own id
    method: str
    token: str | None = None  # the wire progress token, when the request asked for progress
    original_token: Any = None
    cancelled: bool = False  # the inspector cancelled it (its answer may never come)


@dataclass(slots=True)
class Outbound:
    """What becomes of a frame an inspector sent."""

    message: Any = None  # send this to the server (ids rewritten)
    reply: dict[str, Any] | None = None  # answer the inspector with this, send nothing
    wait_handshake: bool = False  # answer the inspector once the host's handshake is known
    dropped: str | None = None  # not sent, and why (a note, not an error)
    refused: str | None = None  # not sent: an error for the user
    meta: dict[str, Any] = field(default_factory=dict)  # facts for the wire event


@dataclass(slots=True)
class Route:
    """Where a frame of the server goes."""

    origin: Origin  # whose frame it is (the event's side)
    to_host: bool = True
    owner: int | None = None  # the inspector that gets it as its own
    restored: Any = None  # the message as the owner must see it (its ids); None: unchanged
    broadcast: bool = False  # every inspector gets it as its own too
    handshake: bool = False  # this is the answer to the host's initialize
    meta: dict[str, Any] = field(default_factory=dict)
    note: str | None = None  # something the log should say (an answer nobody waits for)


def _capabilities(message: dict[str, Any]) -> dict[str, Any] | None:
    params = message.get("params")
    caps = params.get("capabilities") if isinstance(params, dict) else None
    return caps if isinstance(caps, dict) else None


def _declares(capabilities: dict[str, Any] | None, name: str) -> bool:
    return capabilities is not None and isinstance(capabilities.get(name), dict)


def _key(value: Any) -> Hashable | None:
    """A dict key for a JSON-RPC id (bool apart from int; lists and objects have none)."""
    if isinstance(value, bool):
        return ("bool", value)
    if isinstance(value, str | int | float) or value is None:
        return value
    return None


class Router:
    """The id bookkeeping of one host-to-server link."""

    def __init__(self) -> None:
        self._numbers = itertools.count(1)
        self.borrowed: dict[str, Borrowed] = {}  # wire id -> the inspector's request
        self._wire_of: dict[tuple[int, Hashable], str] = {}  # (attach, own id) -> wire id
        self._tokens: dict[str, Borrowed] = {}  # wire progress token -> request
        self.host_pending: dict[Hashable, str] = {}  # the host's requests in flight -> method
        self.server_requests: dict[Hashable, Origin] = {}  # server request id -> its owner
        self.gone: set[int] = set()  # inspectors that detached
        self._initialize_id: Hashable | None = None
        self._initialize_seen = False
        self.handshake: dict[str, Any] | None = None  # the server's answer to the host
        self.host_stateless = False  # the host opened with server/discover (2026-07-28)
        # the capabilities each side declared in its initialize (None: not known)
        self.host_capabilities: dict[str, Any] | None = None
        self.inspector_capabilities: dict[int, dict[str, Any]] = {}

    # -- the host --------------------------------------------------------------------

    def host_sent(self, message: Any) -> None:
        """Keep track of the host's requests (and its answers to the server's)."""
        for item in message if isinstance(message, list) else [message]:
            if not isinstance(item, dict):
                continue
            key = _key(item.get("id"))
            if jsonrpc.is_request(item) and key is not None:
                method = str(item.get("method"))
                self.host_pending[key] = method
                if method == "initialize":
                    self._initialize_id = key
                    self._initialize_seen = True
                    self.host_capabilities = _capabilities(item)
                elif method == "server/discover":
                    self.host_stateless = True
            elif jsonrpc.is_response(item) and key is not None:
                self.server_requests.pop(key, None)
            elif item.get("method") == "notifications/cancelled":
                params = item.get("params")
                cancelled = _key(params.get("requestId")) if isinstance(params, dict) else None
                if cancelled is not None:  # its answer may never come
                    self.host_pending.pop(cancelled, None)

    # -- an inspector ----------------------------------------------------------------

    def inspector_sent(self, attach: int, message: Any) -> Outbound:
        """Rewrite an inspector's frame for the wire (or answer it here)."""
        if not isinstance(message, dict):
            return Outbound(
                refused="the proxy passes on single JSON-RPC messages from an inspector "
                "(not batches or other frames): the host's session must stay intact"
            )
        method = message.get("method")
        if jsonrpc.is_request(message):
            if method == "initialize":
                caps = _capabilities(message)
                if caps is not None:
                    self.inspector_capabilities[attach] = caps
                return self._initialize_reply(message)
            return self._borrow(attach, message)
        if jsonrpc.is_notification(message):
            if method == HANDSHAKE_DROPPED:
                return Outbound(
                    dropped="notifications/initialized not passed on: the host "
                    "opened the server's session"
                )
            if method == "notifications/cancelled":
                return self._cancel(attach, message)
            return Outbound(message=message)
        if jsonrpc.is_response(message):
            key = _key(message.get("id"))
            owner = self.server_requests.get(key) if key is not None else None
            if owner is None or owner.attach != attach:
                return Outbound(
                    refused=f"no request {message.get('id')!r} of the server is waiting for "
                    "this inspector's answer"
                )
            del self.server_requests[key]
            return Outbound(message=message)
        return Outbound(refused="not a JSON-RPC request, notification or response")

    def _initialize_reply(self, message: dict[str, Any]) -> Outbound:
        if self.handshake is None and self.host_stateless:
            return Outbound(
                refused="the host speaks the stateless protocol (2026-07-28, no initialize): "
                "attaching to a stateless session is not supported yet"
            )
        if self.handshake is None:
            return Outbound(wait_handshake=True)
        return Outbound(reply=self.handshake_reply(message.get("id")))

    def handshake_reply(self, id_: Any) -> dict[str, Any]:
        """The host's handshake answer, addressed to an inspector's ``initialize``."""
        assert self.handshake is not None
        reply = dict(self.handshake)
        reply["id"] = id_
        return reply

    def _borrow(self, attach: int, message: dict[str, Any]) -> Outbound:
        wire_id = f"{WIRE_ID_PREFIX}{next(self._numbers)}"
        own = message.get("id")
        borrowed = Borrowed(attach, own, str(message.get("method")))
        out = dict(message)
        out["id"] = wire_id
        params = message.get("params")
        meta = params.get("_meta") if isinstance(params, dict) else None
        if isinstance(params, dict) and isinstance(meta, dict) and "progressToken" in meta:
            borrowed.token = f"{wire_id}-progress"
            borrowed.original_token = meta["progressToken"]
            out["params"] = {**params, "_meta": {**meta, "progressToken": borrowed.token}}
            self._tokens[borrowed.token] = borrowed
        self.borrowed[wire_id] = borrowed
        own_key = _key(own)
        if own_key is not None:
            self._wire_of[(attach, own_key)] = wire_id
        return Outbound(message=out, meta={"inspector_id": own})

    def _cancel(self, attach: int, message: dict[str, Any]) -> Outbound:
        params = message.get("params")
        own = params.get("requestId") if isinstance(params, dict) else None
        own_key = _key(own)
        wire_id = self._wire_of.get((attach, own_key)) if own_key is not None else None
        if wire_id is None or not isinstance(params, dict):
            return Outbound(
                dropped=f"notifications/cancelled for {own!r} not passed on: no such request "
                "of this inspector is in flight"
            )
        self.borrowed[wire_id].cancelled = True
        return Outbound(
            message={**message, "params": {**params, "requestId": wire_id}},
            meta={"inspector_id": own},
        )

    def detach(self, attach: int) -> list[Any]:
        """An inspector left: its answers will be dropped; returns the ids of the server's
        requests it owed an answer (the proxy answers them with an error)."""
        self.gone.add(attach)
        owed = [k for k, owner in self.server_requests.items() if owner.attach == attach]
        for key in owed:
            del self.server_requests[key]
        return owed

    # -- the server ------------------------------------------------------------------

    def server_sent(self, message: Any, context: Origin | None = None) -> Route:
        """Where a server frame goes; ``context`` is the side whose request's response
        stream carried it (HTTP), None when the wire does not say (stdio)."""
        if not isinstance(message, dict):
            return Route(HOST_ORIGIN)  # batches and odd frames: the host's, untouched
        if jsonrpc.is_response(message):
            return self._response(message)
        if jsonrpc.is_request(message):
            return self._server_request(message, context)
        if jsonrpc.is_notification(message):
            return self._notification(message)
        return Route(HOST_ORIGIN)

    def _response(self, message: dict[str, Any]) -> Route:
        id_ = message.get("id")
        borrowed = self.borrowed.pop(id_, None) if isinstance(id_, str) else None
        if borrowed is None and isinstance(id_, str) and id_.startswith(WIRE_ID_PREFIX):
            return Route(  # a second answer, or one to a request nobody waits for
                Origin(INSPECTOR),
                to_host=False,
                note=f"an answer to {id_!r}, which no inspector is waiting for: dropped",
            )
        if borrowed is None:
            key = _key(id_)
            if key is not None:
                self.host_pending.pop(key, None)
            handshake = self._initialize_seen and key == self._initialize_id and key is not None
            if handshake:
                self.handshake = message
                self._initialize_seen = False
            return Route(HOST_ORIGIN, handshake=handshake)
        own_key = _key(borrowed.original)
        if own_key is not None:
            self._wire_of.pop((borrowed.attach, own_key), None)
        if borrowed.token is not None:
            self._tokens.pop(borrowed.token, None)
        origin = Origin(INSPECTOR, borrowed.attach)
        meta = {"inspector_id": borrowed.original}
        if borrowed.attach in self.gone:
            return Route(
                origin,
                to_host=False,
                meta=meta,
                note=f"the answer to {borrowed.method} came after inspector "
                f"{borrowed.attach} detached: dropped",
            )
        restored = {**message, "id": borrowed.original}
        return Route(origin, to_host=False, owner=borrowed.attach, restored=restored, meta=meta)

    def _server_request(self, message: dict[str, Any], context: Origin | None) -> Route:
        owner = context if context is not None else self._likely_cause(message.get("method"))
        if owner.attach is not None and owner.attach in self.gone:
            owner = HOST_ORIGIN
        key = _key(message.get("id"))
        if key is not None:
            self.server_requests[key] = owner
        if owner.attach is None:
            return Route(HOST_ORIGIN)
        return Route(owner, to_host=False, owner=owner.attach)

    def _likely_cause(self, method: Any = None) -> Origin:
        """The wire does not say which request a server request serves (stdio, the GET
        stream): a side with requests in flight that declared the capability it needs,
        the host first; not the host when it did not declare it; else the host while it
        has requests in flight, else the inspector whose request is oldest."""
        inspectors = [
            b.attach
            for b in self.borrowed.values()
            if b.attach not in self.gone and not b.cancelled
        ]
        need = NEEDS.get(str(method))
        if need is not None:
            host_can = self.host_capabilities is None or _declares(self.host_capabilities, need)
            if self.host_pending and host_can:
                return HOST_ORIGIN
            for attach in inspectors:
                if _declares(self.inspector_capabilities.get(attach), need):
                    return Origin(INSPECTOR, attach)
            if not host_can and inspectors:  # not the host's: it cannot answer it
                return Origin(INSPECTOR, inspectors[0])
        if self.host_pending:
            return HOST_ORIGIN
        if inspectors:
            return Origin(INSPECTOR, inspectors[0])
        return HOST_ORIGIN

    def _notification(self, message: dict[str, Any]) -> Route:
        method = message.get("method")
        params = message.get("params")
        params = params if isinstance(params, dict) else {}
        if method == "notifications/progress":
            token = params.get("progressToken")
            borrowed = self._tokens.get(token) if isinstance(token, str) else None
            if borrowed is not None:
                origin = Origin(INSPECTOR, borrowed.attach)
                if borrowed.attach in self.gone:
                    return Route(origin, to_host=False)
                restored = {
                    **message,
                    "params": {**params, "progressToken": borrowed.original_token},
                }
                return Route(origin, to_host=False, owner=borrowed.attach, restored=restored)
        elif method == "notifications/cancelled":
            key = _key(params.get("requestId"))
            owner = self.server_requests.pop(key, None) if key is not None else None
            if owner is not None and owner.attach is not None:
                if owner.attach in self.gone:
                    return Route(owner, to_host=False)
                return Route(owner, to_host=False, owner=owner.attach)
        return Route(HOST_ORIGIN, broadcast=True)
