"""Protocol eras: the one seam where protocol-version handling lives.

The handshake era (2024-11-05 .. 2025-11-25) opens a session with ``initialize``.
The stateless era (2026-07-28) has no handshake: each request carries version, client
info and capabilities in ``params._meta``, ``server/discover`` tells what the server is
(servers must serve it; one that does not know it speaks the handshake era), and a
server that needs input answers ``input_required`` (multi round-trip requests) instead
of sending requests of its own.

An era answers the session's version questions: how to open (``open``), what to add to
each request (``stamp``), what to do with a result before the caller sees it
(``settle``: the MRTR retries), which findings an inbound message earns (``findings``),
and which notifications no longer exist (``gone``). The session tells the transport
whether its version is stateless (``is_stateless``): transports never ask the engine.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from inspector import __version__
from inspector.engine.lint import INPUT_METHODS, MRTR_METHODS, check_stateless_inbound
from inspector.errors import InspectorError
from inspector.wire import jsonrpc
from inspector.wire.events import Finding
from inspector.wire.jsonrpc import RpcError

if TYPE_CHECKING:
    from inspector.engine.session import Session

LATEST_VERSION = "2025-11-25"
HANDSHAKE_VERSIONS = ("2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05")
TOLERATED_VERSIONS = ("2024-10-07",)  # older drafts some servers still answer with
STATELESS_VERSIONS = ("2026-07-28",)  # found by era_detect, or --protocol-version 2026-07-28

META_PROTOCOL_VERSION = "io.modelcontextprotocol/protocolVersion"
META_CLIENT_INFO = "io.modelcontextprotocol/clientInfo"
META_CLIENT_CAPABILITIES = "io.modelcontextprotocol/clientCapabilities"
META_SERVER_INFO = "io.modelcontextprotocol/serverInfo"
TASKS = "io.modelcontextprotocol/tasks"  # the Tasks extension, declared in this era
META_LOG_LEVEL = "io.modelcontextprotocol/logLevel"  # per-request, replaces logging/setLevel
# what the client stamps on every stateless request: the same each time, so row summaries
# leave it out and replay diffs ignore it
ENVELOPE_KEYS = (META_PROTOCOL_VERSION, META_CLIENT_INFO, META_CLIENT_CAPABILITIES, META_LOG_LEVEL)
UNSUPPORTED_PROTOCOL_VERSION = -32022  # the 2026-07-28 error for a version it does not serve
HTTP_ERROR = -32000  # what the HTTP transport answers for an HTTP error status (transports)
MAX_INPUT_ROUNDS = 10  # a server that asks forever must not keep us forever

# requests that change nothing on the server: one whose response stream broke (2026-07-28
# streams cannot be resumed) is sent again, once; a tools/call may have had effects
RESENDABLE = frozenset(
    {
        "server/discover",
        "tools/list",
        "prompts/list",
        "resources/list",
        "resources/templates/list",
        "resources/read",
        "prompts/get",
        "completion/complete",
        "tasks/get",
    }
)

GONE_NOTIFICATIONS = {  # client notifications that 2026-07-28 removed
    "notifications/initialized": "there is no handshake",
    "notifications/roots/list_changed": "roots are asked for per request (input_required)",
}

Resend = Callable[[dict[str, Any]], Awaitable[Any]]

CLIENT_INFO: dict[str, Any] = {
    "name": "mcp-inspect",
    "title": "mcp-inspect",
    "version": __version__,
}


class VersionError(InspectorError):
    """The server speaks a protocol version this client does not."""


@dataclass(frozen=True, slots=True)
class HandshakeEra:
    """initialize -> result -> notifications/initialized."""

    requested: str = LATEST_VERSION
    stateless = False
    checks_inbound = False  # ``findings`` of a server's request or notification: none

    @property
    def supported(self) -> tuple[str, ...]:
        return HANDSHAKE_VERSIONS + TOLERATED_VERSIONS

    async def open(self, session: Session, timeout: float | None = None) -> dict[str, Any]:
        """initialize, check the version, notifications/initialized (``timeout``: what is
        left of the opening's time after a probe that went unanswered)."""
        params = self.initialize_params(session.declared_capabilities(), session.client_info)
        try:
            result = await session.request("initialize", params, timeout=timeout)
        except RpcError as exc:
            if exc.code in (jsonrpc.INVALID_PARAMS, UNSUPPORTED_PROTOCOL_VERSION) and (
                hint := self.rejection_hint(exc.data)
            ):
                raise VersionError(
                    f"the server refused protocol version {self.requested}: {hint}"
                ) from exc
            raise
        try:
            version = self.accept(result)
        except VersionError:
            got = result.get("protocolVersion") if isinstance(result, dict) else None
            session.note(f"unsupported protocol version {got!r}", severity="error")
            raise
        assert isinstance(result, dict)  # accept checked it
        session.opened(version, result, result.get("serverInfo"))
        await session.notify("notifications/initialized")
        session.note(f"initialized: {named(session.server_info)} (protocol {version})")
        return result

    def stamp(
        self,
        params: dict[str, Any] | None,
        capabilities: dict[str, Any],
        client_info: dict[str, Any],
        log_level: str | None = None,
    ) -> dict[str, Any] | None:
        return params

    async def settle(
        self,
        session: Session,
        method: str,
        params: dict[str, Any] | None,
        result: Any,
        resend: Resend,
    ) -> Any:
        return result

    def findings(
        self, message: dict[str, Any], method: str | None, capabilities: dict[str, Any]
    ) -> list[Finding]:
        return []

    def gone(self, method: str) -> str | None:
        """Why the client must not send notification ``method`` in this era (None: it may)."""
        return None

    def resendable(self, method: str, error: RpcError) -> bool:
        """Whether a failed request is sent again (handshake era: never; its streams are
        resumed by the transport instead)."""
        return False

    def initialize_params(
        self, capabilities: dict[str, Any], client_info: dict[str, Any]
    ) -> dict[str, Any]:
        return {
            "protocolVersion": self.requested,
            "capabilities": capabilities,
            "clientInfo": client_info,
        }

    def accept(self, result: Any) -> str:
        """The negotiated version from an initialize result, or ``VersionError``."""
        if not isinstance(result, dict):
            raise VersionError(f"the initialize result is not an object: {result!r:.200}")
        version = result.get("protocolVersion")
        if not isinstance(version, str):
            raise VersionError("the initialize result has no protocolVersion")
        if version not in self.supported:
            raise VersionError(
                f"the server answered with protocol version {version!r}, which mcp-inspect "
                f"does not speak (it speaks {', '.join(HANDSHAKE_VERSIONS)}); "
                f"try --protocol-version with one the server supports"
            )
        return version

    def rejection_hint(self, data: Any) -> str:
        """Explain a -32602 answer to initialize that lists the server's versions."""
        if isinstance(data, dict) and isinstance(data.get("supported"), list):
            ours = [v for v in data["supported"] if v in self.supported]
            stateless = [v for v in data["supported"] if v in STATELESS_VERSIONS]
            if ours:
                offer = f"; retry with --protocol-version {ours[0]}"
            elif stateless:
                offer = (
                    f"; it speaks the stateless protocol: retry with --protocol-version "
                    f"{stateless[0]}, or without the flag (the era is then found by itself)"
                )
            else:
                offer = "; none of them is one mcp-inspect speaks"
            return f"the server supports {listed(data['supported'])}{offer}"
        return ""


@dataclass(frozen=True, slots=True)
class StatelessEra:
    """2026-07-28: no handshake; every request carries its own ``_meta`` envelope."""

    requested: str = STATELESS_VERSIONS[0]
    stateless = True
    checks_inbound = True

    @property
    def supported(self) -> tuple[str, ...]:
        return STATELESS_VERSIONS

    async def open(
        self, session: Session, timeout: float | None = None, *, retried: bool = False
    ) -> dict[str, Any]:
        """``server/discover`` (optional for servers) for server info and capabilities."""
        # headers from the first POST
        session.transport.set_protocol_version(self.requested, stateless=self.stateless)
        try:
            result = await session.request("server/discover", timeout=timeout)
        except RpcError as exc:
            if exc.code == jsonrpc.METHOD_NOT_FOUND:
                # every 2026-07-28 server serves it: one that does not know it speaks the
                # handshake era, over stdio as over HTTP (where it answers an HTTP error)
                raise VersionError(
                    f"the server does not know server/discover ({exc.code}: "
                    f"{_first_line(exc.message)}), which every {self.requested} server "
                    "serves: it speaks only the handshake era; try without "
                    "--protocol-version (mcp-inspect then finds the era itself)"
                ) from exc
            version = listed_stateless(exc)
            if version is not None and not retried:
                return await StatelessEra(version).retry(session, exc, timeout)
            raise self._refusal(exc) from exc
        if not isinstance(result, dict):
            raise VersionError(f"the server/discover result is not an object: {result!r:.200}")
        versions = result.get("supportedVersions")
        if isinstance(versions, list) and self.requested not in versions:
            raise VersionError(
                f"the server supports {listed(versions)}, not "
                f"{self.requested}{_retry_hint(versions)}"
            )
        return self.adopt(session, result)

    async def retry(
        self, session: Session, refused: RpcError, timeout: float | None = None
    ) -> dict[str, Any]:
        """A -32022 refusal listed this version: ask once more at it (SEP-2575: a client
        retries with a version the server supports), never in a loop."""
        session.era = self
        data = refused.data if isinstance(refused.data, dict) else {}
        session.note(
            f"era: the server refused the request with {UNSUPPORTED_PROTOCOL_VERSION} "
            f"(supported: {listed(data.get('supported'))}): retrying server/discover "
            f"at {self.requested}",
            severity="warning",
            era={"step": "retry", "version": self.requested},
        )
        return await self.open(session, timeout, retried=True)

    def adopt(self, session: Session, result: dict[str, Any]) -> dict[str, Any]:
        """Keep what a ``server/discover`` result says: the session is open."""
        meta = result.get("_meta")
        info = meta.get(META_SERVER_INFO) if isinstance(meta, dict) else None
        session.opened(self.requested, result, info)
        session.note(
            f"stateless: {named(session.server_info)} (protocol {self.requested}, no session)"
        )
        return result

    def _refusal(self, exc: RpcError) -> Exception:
        """A VersionError when the answer says the server does not serve this version."""
        data = exc.data if isinstance(exc.data, dict) else {}
        versions = data.get("supported")
        if exc.code == UNSUPPORTED_PROTOCOL_VERSION and isinstance(versions, list):
            return VersionError(
                f"the server refused protocol version {self.requested}: it "
                f"supports {listed(versions)}"
                f"{_retry_hint(versions)}"
            )
        if exc.code in (
            jsonrpc.INVALID_REQUEST,
            jsonrpc.INVALID_PARAMS,
            UNSUPPORTED_PROTOCOL_VERSION,
            HTTP_ERROR,
        ):
            return VersionError(
                f"the server refused protocol version {self.requested} (server/discover "
                f"answered {exc.code}: {exc.message.splitlines()[0] if exc.message else ''}); "
                "it may speak only the handshake era: try without --protocol-version "
                "(mcp-inspect then finds the era itself)"
            )
        return exc

    def stamp(
        self,
        params: dict[str, Any] | None,
        capabilities: dict[str, Any],
        client_info: dict[str, Any],
        log_level: str | None = None,
    ) -> dict[str, Any]:
        """The request's params with the per-request envelope in ``_meta`` (and the log
        level, without which a 2026-07-28 server sends no log messages)."""
        if isinstance(capabilities.get("roots"), dict):  # roots/list_changed is gone
            capabilities = {**capabilities, "roots": {}}
        # the Tasks extension: the client follows whatever task a tools/call answers with
        extensions = capabilities.get("extensions")
        capabilities = {
            **capabilities,
            "extensions": {**(extensions if isinstance(extensions, dict) else {}), TASKS: {}},
        }
        stamped = dict(params or {})
        meta = stamped.get("_meta")
        envelope = {
            **(meta if isinstance(meta, dict) else {}),
            META_PROTOCOL_VERSION: self.requested,
            META_CLIENT_INFO: client_info,
            META_CLIENT_CAPABILITIES: capabilities,
        }
        if log_level is not None:
            envelope[META_LOG_LEVEL] = log_level
        stamped["_meta"] = envelope
        return stamped

    async def settle(
        self,
        session: Session,
        method: str,
        params: dict[str, Any] | None,
        result: Any,
        resend: Resend,
    ) -> Any:
        """Multi round-trip requests: answer ``inputRequests`` through the responders
        and retry (a new id, the answers, the exact ``requestState``) until complete."""
        rejected: dict[str, RpcError] = {}  # keys the user rejected: never asked twice
        for _ in range(MAX_INPUT_ROUNDS):
            if not (
                isinstance(result, dict)
                and result.get("resultType") == "input_required"
                and method in MRTR_METHODS
            ):
                return result
            requests = result.get("inputRequests")
            asks = requests if isinstance(requests, dict) else {}
            again = [key for key in asks if key in rejected]
            if again:  # the server insists on what the user refused: the refusal stands
                refused = rejected[again[0]]
                raise RpcError(
                    refused.code,
                    f"{method}: the server asked again for inputRequests[{again[0]!r}], which "
                    f"was rejected ({refused.message}); not asking again",
                    refused.data,
                )
            session.note(
                f"{method}: the server needs input "
                f"({', '.join(_ask_names(asks)) or 'none, retry only'}); "
                "answering and retrying"
            )
            retry = {
                k: v
                for k, v in (params or {}).items()
                if k not in ("inputResponses", "requestState")
            }
            if asks:
                answers: dict[str, Any] = {}
                for key, ask in asks.items():
                    try:
                        answers[key] = await answer_input(session, key, ask)
                    except RpcError as exc:
                        if exc.code != jsonrpc.USER_REJECTED:
                            raise
                        # an input response is a result, never an error: a refusal is an
                        # answer left out (the spec: the client MAY not fulfil a request;
                        # the server asks again or does without)
                        rejected[key] = exc
                        session.note(
                            f"{method}: inputRequests[{key!r}] rejected ({exc.message}): left "
                            "out of the retry's inputResponses",
                            rejected=key,
                        )
                retry["inputResponses"] = answers
            if "requestState" in result:
                retry["requestState"] = result["requestState"]
            result = await resend(retry)
        raise RpcError(
            jsonrpc.INTERNAL_ERROR,
            f"{method}: still input_required after {MAX_INPUT_ROUNDS} rounds; gave up",
        )

    def findings(
        self, message: dict[str, Any], method: str | None, capabilities: dict[str, Any]
    ) -> list[Finding]:
        return check_stateless_inbound(message, method, capabilities)

    def gone(self, method: str) -> str | None:
        return GONE_NOTIFICATIONS.get(method)

    def resendable(self, method: str, error: RpcError) -> bool:
        """A read-only request whose response stream broke before its response."""
        data = error.data if isinstance(error.data, dict) else {}
        return method in RESENDABLE and data.get("streamBroken") is True


Era = HandshakeEra | StatelessEra


def era_for(version: str) -> Era:
    """The era that speaks ``version`` (the handshake era for every version it knows)."""
    if version in STATELESS_VERSIONS:
        return StatelessEra(version)
    return HandshakeEra(version)


def is_stateless(version: str | None) -> bool:
    """True for a version of the stateless era (callers ask this, not the dates)."""
    return version in STATELESS_VERSIONS


async def answer_input(session: Session, key: str, ask: Any) -> dict[str, Any]:
    """One embedded request answered by the responder the session has for it."""
    method = ask.get("method") if isinstance(ask, dict) else None
    params = ask.get("params") if isinstance(ask, dict) else None
    if method not in INPUT_METHODS:
        raise RpcError(
            jsonrpc.INVALID_PARAMS, f"inputRequests[{key!r}]: cannot answer {method!r:.60}"
        )
    try:
        return await session.respond(str(method), params if isinstance(params, dict) else {})
    except RpcError as exc:
        if exc.code != jsonrpc.METHOD_NOT_FOUND:
            raise
        raise RpcError(
            exc.code,
            f"the server asked for {method} (inputRequests[{key!r}]) but "
            "the client declared no answer for it",
            exc.data,
        ) from exc


def _ask_names(asks: dict[str, Any]) -> list[str]:
    return [str(a.get("method")) if isinstance(a, dict) else "?" for a in asks.values()]


LISTED = 8  # versions named in a note or an error; the rest counted
SHOWN = 64  # characters of one server-given word (a version, a name) in a note


def listed(values: Any) -> str:
    """Server-given versions for a note or an error, bounded whatever the server sent
    (a 50 MB ``supportedVersions`` must not be copied into the log's notes)."""
    if not isinstance(values, list):
        return "none"
    shown = ", ".join(str(v)[:SHOWN] for v in values[:LISTED])
    return shown + (f" ... ({len(values):,} in all)" if len(values) > LISTED else "")


def named(info: dict[str, Any]) -> str:
    """A server's name and version from its info, bounded."""
    return f"{str(info.get('name', '?'))[:SHOWN]} {str(info.get('version', ''))[:SHOWN]}"


def _first_line(text: str | None) -> str:
    return text.splitlines()[0][:160] if text else ""


def listed_stateless(exc: RpcError) -> str | None:
    """The stateless version we speak that a -32022 refusal lists as supported, if any."""
    data = exc.data if isinstance(exc.data, dict) else {}
    supported = data.get("supported")
    if exc.code != UNSUPPORTED_PROTOCOL_VERSION or not isinstance(supported, list):
        return None
    return next((v for v in STATELESS_VERSIONS if v in supported), None)


def _retry_hint(versions: list[Any]) -> str:
    ours = [v for v in versions if v in HANDSHAKE_VERSIONS]
    return f"; retry with --protocol-version {ours[0]}" if ours else ""


def supports_feature(version: str | None, since: str) -> bool:
    """True when ``version`` is at least ``since`` (dates compare as strings)."""
    return version is not None and version >= since
