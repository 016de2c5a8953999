"""The 2026-07-28 side of the proxy's HTTP front: self-contained POSTs, no session.

A POST without ``Mcp-Session-Id`` that names a version past the handshake era (its
``MCP-Protocol-Version`` header, or the ``_meta`` version of its body) is served
statelessly: its routing headers are checked against the body (``-32020``
HeaderMismatch, 400), then it goes to the server behind through one connection that all
such requests share (a stateless server keeps nothing between requests). An id another
host has in flight there is renamed on the way and restored on the answer.

What the server behind speaks is learnt from its answer to ``server/discover`` (which
every 2026-07-28 server serves): a result, and the front serves the era; a refusal that
is no 2026-07-28 error (a handshake-only server's ``-32601``), and the front answers
each such POST as a handshake-era server over HTTP would (400, a JSON-RPC error that is
not a 2026-07-28 one), so a dual-era host falls back to ``initialize``. The server's own
2026-07-28 errors get the statuses the transport gives them (400, 404 for ``-32601``).
"""

from __future__ import annotations

import base64
import binascii
import itertools
import secrets
from collections.abc import Callable
from typing import Any

from inspector.engine.era import (
    HANDSHAKE_VERSIONS,
    META_CLIENT_CAPABILITIES,
    META_PROTOCOL_VERSION,
    TOLERATED_VERSIONS,
)
from inspector.proxy.front_session import HEAD_WAIT, FrontSession, OutStream
from inspector.proxy.httpserve import Request
from inspector.wire import jsonrpc
from inspector.wire.events import WireEvent
from inspector.wire.stateless import NAME_PARAMS

HEADER_MISMATCH = -32020
MISSING_CAPABILITY = -32021
UNSUPPORTED_VERSION = -32022
MODERN_ERRORS = (HEADER_MISMATCH, MISSING_CAPABILITY, UNSUPPORTED_VERSION)
STARTING_HEAD_WAIT = 15.0  # seconds an answer's head waits while the server's era is unknown
NO_SESSION = -32000  # what handshake-era servers answer a POST without a session with
PROBE = "server/discover"
CANCELLED = "notifications/cancelled"
_LEGACY = (*HANDSHAKE_VERSIONS, *TOLERATED_VERSIONS)
REQUIRED_META = (META_PROTOCOL_VERSION, META_CLIENT_CAPABILITIES)  # on every request


def stateless_version(request: Request, message: Any) -> str | None:
    """The version a session-less POST names when it is not a handshake one (None: a
    handshake-era request, or no version named)."""
    named = request.headers.get("mcp-protocol-version") or _meta_version(message)
    if not named or named in _LEGACY:
        return None
    return named


def _meta_version(message: Any) -> str | None:
    params = message.get("params") if isinstance(message, dict) else None
    meta = params.get("_meta") if isinstance(params, dict) else None
    version = meta.get(META_PROTOCOL_VERSION) if isinstance(meta, dict) else None
    return version if isinstance(version, str) else None


def request_refusal(request: Request, message: dict[str, Any]) -> tuple[int, str] | None:
    """Why a 2026-07-28 POST is refused before any server sees it, as (JSON-RPC code,
    text): the spec's server validation (``-32020`` HeaderMismatch: a routing header
    missing or not matching the body; ``Mcp-Param-*`` needs the tool's schema and is not
    checked here) and the ``_meta`` every request carries (``-32602``). None: it passes.
    A server behind on stdio never sees the headers, and a dual-era one would take a
    request without the envelope for the handshake era: the front checks for it."""
    headers = request.headers
    method = message.get("method")
    version = headers.get("mcp-protocol-version")
    if version is None:
        return HEADER_MISMATCH, "Header mismatch: the MCP-Protocol-Version header is missing"
    if jsonrpc.is_response(message):
        return None  # answers carry no routing headers nor envelope
    params = message.get("params")
    meta = params.get("_meta") if isinstance(params, dict) else None
    missing = [k for k in REQUIRED_META if not isinstance(meta, dict) or k not in meta]
    if missing and jsonrpc.is_request(message):
        return jsonrpc.INVALID_PARAMS, f"Invalid params: missing _meta keys: {', '.join(missing)}"
    in_body = _meta_version(message)
    if in_body is not None and in_body != version:
        return HEADER_MISMATCH, (
            f"Header mismatch: MCP-Protocol-Version {version!r} does not match the body's "
            f"{in_body!r}"
        )
    why = _routing_mismatch(headers, method, params)
    return None if why is None else (HEADER_MISMATCH, f"Header mismatch: {why}")


def _routing_mismatch(headers: dict[str, str], method: Any, params: Any) -> str | None:
    sent = headers.get("mcp-method")
    if sent is None:
        return "the Mcp-Method header is missing"
    if sent != method:
        return f"Mcp-Method {sent!r} does not match the body's method {method!r}"
    key = NAME_PARAMS.get(str(method))
    if key is not None and isinstance(params, dict) and isinstance(params.get(key), str):
        name = headers.get("mcp-name")
        if name is None:
            return f"the Mcp-Name header is missing ({method} names {key})"
        if _decoded(name) != params[key]:
            return f"Mcp-Name {name!r} does not match the body's {key} {params[key]!r}"
    return None


def _decoded(value: str) -> str | None:
    """A header value with the spec's ``=?base64?...?=`` encoding undone."""
    if not (value.startswith("=?base64?") and value.endswith("?=")):
        return value
    try:
        return base64.b64decode(value[9:-2], validate=True).decode("utf-8")
    except (binascii.Error, UnicodeDecodeError):
        return None


def refusal_body(code: int, text: str, id_: Any = None) -> bytes:
    return jsonrpc.encode(jsonrpc.error_response(id_, code, text))


def error_status(raw: bytes) -> int:
    """The HTTP status a 2026-07-28 server gives an answer sent alone: 400 for the
    transport's errors, 404 for an unknown method, else 200."""
    message, _ = jsonrpc.decode(raw)
    error = message.get("error") if isinstance(message, dict) else None
    code = error.get("code") if isinstance(error, dict) else None
    if code in MODERN_ERRORS:
        return 400
    if code == jsonrpc.METHOD_NOT_FOUND:
        return 404
    return 200


class StatelessSession(FrontSession):
    """The host end of the connection all stateless POSTs share: ids renamed where two
    hosts use the same one, and the server's era learnt from its ``server/discover``."""

    def __init__(self, sid: str, number: int, on_era: Callable[[str, str], None]) -> None:
        super().__init__(sid, number)
        self.used = True  # no initialize: it ends only when idle for the idle timeout
        self.on_era = on_era  # told ("stateless" or "handshake", why) once it is known
        self.era_known = False
        self.renamed: dict[str | int, Any] = {}  # wire id -> the host's own
        self.probes: set[str | int] = set()  # wire ids of server/discover requests
        self.token_of: dict[str, Any] = {}  # wire progress token -> the host's own
        self._numbers = itertools.count(1)

    def head_wait(self) -> float:
        return HEAD_WAIT if self.era_known else STARTING_HEAD_WAIT

    def admit(self, message: dict[str, Any]) -> dict[str, Any]:
        """The host's request as it goes to the server (its id renamed when another
        request in flight has it)."""
        key = jsonrpc.id_key(message.get("id"))
        if key is None or not jsonrpc.is_request(message):
            return message
        if key in self.pending:
            wire_id = f"{key}~{next(self._numbers)}"
            self.renamed[wire_id] = message.get("id")
            message = {**message, "id": wire_id}
            key = wire_id
        if message.get("method") == PROBE:
            self.probes.add(key)
        return self._own_token(message)

    def _own_token(self, message: dict[str, Any]) -> dict[str, Any]:
        """The request with its progress token renamed when another request in flight has
        it (restored on each progress notification)."""
        params = message.get("params")
        meta = params.get("_meta") if isinstance(params, dict) else None
        token = meta.get("progressToken") if isinstance(meta, dict) else None
        key = jsonrpc.id_key(token)
        holder = self.tokens.get(key) if key is not None else None
        if holder is None or holder.done or not isinstance(params, dict) or meta is None:
            return message
        self.token_of = {t: o for t, o in self.token_of.items() if t in self.tokens}
        wire_token = f"{key}~{next(self._numbers)}"
        self.token_of[wire_token] = token
        return {**message, "params": {**params, "_meta": {**meta, "progressToken": wire_token}}}

    def send(self, raw: bytes, event: WireEvent) -> None:
        message = event.message if raw is event.raw else jsonrpc.decode(raw)[0]
        answer = isinstance(message, dict) and jsonrpc.is_response(message)
        key = jsonrpc.id_key(message.get("id")) if answer else None
        if self.token_of and isinstance(message, dict) and self._progress(message):
            return
        if key is not None and key in self.probes:
            self.probes.discard(key)
            raw = self._probe_answered(message, raw)
        elif answer and "result" in message and not self.era_known:
            self.era_known = True  # a host need not ask server/discover first
            self.on_era("stateless", "a 2026-07-28 request answered")
        if key is not None and key in self.renamed:
            original = self.renamed.pop(key)
            restored, _ = jsonrpc.decode(raw)
            raw = jsonrpc.encode({**restored, "id": original})
            stream = self.pending.pop(key, None)
            if stream is not None:
                stream.put(raw, more=True)
                stream.answered(key)
            return
        super().send(raw, event)

    def _progress(self, message: dict[str, Any]) -> bool:
        """A progress notification of a renamed token: to its request's stream, with the
        host's own token (True: done)."""
        params = message.get("params")
        token = params.get("progressToken") if isinstance(params, dict) else None
        if message.get("method") != "notifications/progress" or not isinstance(token, str):
            return False
        if token not in self.token_of or not isinstance(params, dict):
            return False
        stream = self.tokens.get(token)
        if stream is not None and not stream.done:
            own = {**params, "progressToken": self.token_of[token]}
            stream.put(jsonrpc.encode({**message, "params": own}))
        return True

    def _probe_answered(self, message: dict[str, Any], raw: bytes) -> bytes:
        """The era, from the server's answer to ``server/discover``; a handshake-only
        server's refusal becomes the answer such a server gives over HTTP."""
        error = message.get("error")
        if isinstance(error, dict) and error.get("code") in MODERN_ERRORS:
            return raw
        if isinstance(error, dict):
            why = f"{PROBE} refused ({error.get('code')}: {str(error.get('message'))[:120]})"
            if not self.era_known:
                self.era_known = True
                self.on_era("handshake", why)
            return refusal_body(NO_SESSION, handshake_text(why), message.get("id"))
        if not self.era_known:
            self.era_known = True
            self.on_era("stateless", f"{PROBE} answered")
        return raw

    def status(self, raw: bytes) -> int:
        message, _ = jsonrpc.decode(raw)
        error = message.get("error") if isinstance(message, dict) else None
        if isinstance(error, dict) and error.get("code") == NO_SESSION:
            return 400
        return error_status(raw)

    async def abandoned(self, stream: OutStream) -> None:
        """The host closed ``stream`` before its answer: in 2026-07-28 that is the
        request's cancellation. The server hears it as the era says on stdio, a
        ``notifications/cancelled`` (an HTTP server behind: the transport closes that
        request's stream instead); the front sends it for the host, and says so."""
        keys = [k for k in stream.waiting or () if self.pending.get(k) is stream]
        if self.closed or not keys:
            return
        for key in keys:
            del self.pending[key]
            self.renamed.pop(key, None)
            self.probes.discard(key)
        if self.relay is not None:
            self.relay.wire.note(
                f"host session {self.number}: the host closed the response stream of "
                f"request {', '.join(map(repr, keys))} before its answer (2026-07-28: "
                "that cancels it); notifications/cancelled sent to the server for it",
                link=self.number,
            )
        for key in keys:
            params = {"requestId": key, "reason": "the host closed its response stream"}
            await self.deliver(jsonrpc.encode(jsonrpc.notification(CANCELLED, params)))

    def open_post(self, items: list[Any]) -> OutStream | None:
        stream = super().open_post(items)
        if stream is not None:
            stream.status_of = self.status
            stream.head_wait = self.head_wait()
            stream.eof_ends = True
        return stream


def handshake_text(why: str) -> str:
    return (
        f"Bad Request: the server behind this proxy speaks the handshake era ({why}): "
        "send initialize (no Mcp-Session-Id yet)"
    )


def new_sid() -> str:
    return "stateless-" + secrets.token_hex(16)
