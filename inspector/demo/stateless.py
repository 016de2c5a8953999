"""The demo at 2026-07-28 (``--eras all``): ``server/discover``, the per-request envelope,
and the fields every result carries in that era.

A request whose ``params._meta`` names a protocol version is a stateless request: the
envelope (version, client capabilities and info, log level) is adopted for it, a version
the demo does not serve is ``-32022`` listing those it does, and its result gains
``resultType`` (and ``ttlMs``/``cacheScope`` where the result may be cached).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from inspector.demo import methods
from inspector.demo.context import LEVELS, VERSIONS
from inspector.wire.jsonrpc import RpcError
from inspector.wire.stateless import complete_result

if TYPE_CHECKING:
    from inspector.demo.server import Call, DemoServer

STATELESS = "2026-07-28"
SUPPORTED = (STATELESS, *reversed(VERSIONS))
UNSUPPORTED_PROTOCOL_VERSION = -32022
META_PROTOCOL_VERSION = "io.modelcontextprotocol/protocolVersion"
META_CLIENT_CAPABILITIES = "io.modelcontextprotocol/clientCapabilities"
META_CLIENT_INFO = "io.modelcontextprotocol/clientInfo"
META_LOG_LEVEL = "io.modelcontextprotocol/logLevel"
META_SERVER_INFO = "io.modelcontextprotocol/serverInfo"


def requested_version(params: dict[str, Any]) -> str | None:
    """The protocol version a request's envelope names (``None``: not a stateless request)."""
    meta = params.get("_meta")
    version = meta.get(META_PROTOCOL_VERSION) if isinstance(meta, dict) else None
    return version if isinstance(version, str) else None


REMOVED = frozenset(  # methods 2026-07-28 no longer has: method not found
    {"initialize", "ping", "logging/setLevel", "resources/subscribe", "resources/unsubscribe"}
)
HEADER_MISMATCH = -32020
INVALID_PARAMS = -32602


def refusal(method: str, params: dict[str, Any], header: str | None = None) -> RpcError | None:
    """What is wrong with a stateless request before it is handled (``header``: the HTTP
    ``MCP-Protocol-Version``), as the error to answer; ``None``: nothing."""
    meta = params.get("_meta")
    meta = meta if isinstance(meta, dict) else {}
    missing = [k for k in (META_PROTOCOL_VERSION, META_CLIENT_CAPABILITIES) if k not in meta]
    if missing:
        return RpcError(INVALID_PARAMS, f"Invalid params: missing _meta keys: {', '.join(missing)}")
    version = meta[META_PROTOCOL_VERSION]
    if header is not None and header != version:
        return RpcError(
            HEADER_MISMATCH, "MCP-Protocol-Version header does not match _meta.protocolVersion"
        )
    if version != STATELESS:
        return RpcError(
            UNSUPPORTED_PROTOCOL_VERSION,
            f"Unsupported protocol version: {version}",
            {"supported": [STATELESS], "requested": str(version)},
        )
    if method in REMOVED or (method not in methods.HANDLERS and method != "server/discover"):
        return RpcError(-32601, f"Method not found: {method}")
    return None


def adopt(server: DemoServer, params: dict[str, Any]) -> None:
    """Take a stateless request's envelope (``refusal`` found nothing wrong with it)."""
    meta = params.get("_meta") or {}
    state = server.state
    capabilities = meta.get(META_CLIENT_CAPABILITIES)
    info = meta.get(META_CLIENT_INFO)
    level = meta.get(META_LOG_LEVEL)
    with state.lock:
        state.protocol_version = STATELESS
        state.client_capabilities = capabilities if isinstance(capabilities, dict) else {}
        state.client_info = info if isinstance(info, dict) else {}
        # no logging/setLevel in this era: no level asked means no log messages
        state.log_level = level if level in LEVELS else "emergency"


def finish(method: str, result: Any) -> Any:
    """A stateless request's result, with what the era requires of every result."""
    return complete_result(method, result)


def discover(server: DemoServer, call: Call) -> dict[str, Any]:
    """``server/discover``: the versions served, capabilities, info and instructions."""
    return {
        "supportedVersions": list(SUPPORTED),
        "capabilities": methods.capabilities(STATELESS),
        "instructions": methods.INSTRUCTIONS,
        "_meta": {META_SERVER_INFO: methods.server_info(server.state, STATELESS)},
    }
