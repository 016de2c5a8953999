"""Which era a server speaks, found without ``--protocol-version``.

The probe is the 2026-07-28 ``server/discover`` (the spec's backward-compatibility
rule, and the official SDK's ``mode='auto'``): a discover result that lists the
stateless version opens the stateless era at once (no extra round trip: discover *is*
the stateless opening); an ``UnsupportedProtocolVersionError`` naming only versions we
do not speak is an incompatibility; every other answer (a JSON-RPC error such as
-32601, an HTTP 4xx without a modern error body, no answer within ``PROBE_TIMEOUT``) is a
handshake-era server, opened with ``initialize`` on the same connection. A lost
connection is an outage, never a verdict.

The verdict is remembered per target (``EraMemory``, a file in the state folder): a
target remembered as handshake-era is opened with ``initialize`` straight away, and
probed again only if that fails. Each step leaves a note on the wire saying what was
asked, what came back, and what was chosen (meta ``era``). A transport whose session is
opened by someone else's handshake (``handshake_only``: an inspector attached to a proxy)
is opened with ``initialize`` and never probed: the probe would reach the host's server.
"""

from __future__ import annotations

import hashlib
import json
import os
from time import monotonic
from typing import TYPE_CHECKING, Any, Protocol

from inspector.engine.era import (
    HANDSHAKE_VERSIONS,
    STATELESS_VERSIONS,
    UNSUPPORTED_PROTOCOL_VERSION,
    HandshakeEra,
    StatelessEra,
    VersionError,
    listed,
    listed_stateless,
)
from inspector.engine.request_errors import RequestTimeoutError, ServerExitedOnProbe
from inspector.wire.jsonrpc import RpcError

if TYPE_CHECKING:
    from inspector.engine.session import Session

PROBE_TIMEOUT = 10.0  # the official SDK's discover probe timeout: silence means handshake-era
PROBE = "server/discover"
AUTH_STATUSES = (401, 403)  # the authorization failed: the answer says nothing of the era


class EraMemory(Protocol):
    """Where verdicts are kept between runs (keys are opaque digests of a target)."""

    def recall(self, key: str) -> str | None: ...

    def remember(self, key: str, version: str) -> None: ...

    def forget(self, key: str) -> None: ...


def target_key(info: dict[str, Any]) -> str:
    """A digest naming one server configuration: the transport's whole target (stdio:
    command, arguments, environment, working folder; HTTP: the URL and header names). A
    digest, so a URL's token or a command's secret never reaches the state file."""
    info = {k: v for k, v in info.items() if k != "detected_by"}
    if info.get("transport") == "stdio" and not info.get("cwd"):
        info["cwd"] = os.getcwd()  # a relative command path means another server elsewhere
    if info.get("transport") == "sse":  # the auto-detected HTTP+SSE fallback: same server
        info["transport"] = "http"
    text = json.dumps(info, sort_keys=True, default=str)
    return hashlib.sha256(text.encode()).hexdigest()[:32]


async def open_detected(session: Session, memory: EraMemory | None) -> dict[str, Any]:
    """Open ``session`` in the newest era its server speaks (see the module docstring)."""
    if session.transport.handshake_only:
        _choose(
            session,
            "handshake",
            "era: handshake (the proxy answers initialize with its host's handshake), no probe",
            by="transport",
        )
        session.era = HandshakeEra()
        return await session.era.open(session)
    key = target_key(session.transport.target_info())
    known = memory.recall(key) if memory is not None else None
    if known in HANDSHAKE_VERSIONS:
        _choose(
            session,
            "handshake",
            f"era: handshake (remembered for this target: server/discover was refused "
            f"before); initialize at {HandshakeEra().requested}, no probe",
            by="remembered",
        )
        session.era = HandshakeEra()
        try:
            return await session.era.open(session)
        except (RpcError, VersionError) as exc:
            if session.lost is not None:
                raise
            session.note(
                f"era: initialize failed ({exc}) where the handshake was remembered; "
                "probing the era again",
                severity="warning",
            )
            if memory is not None:
                memory.forget(key)
    try:
        result = await _probe(session, remembered=known in STATELESS_VERSIONS)
    except RpcError as exc:
        lost = session.lost
        if lost is not None and not lost.expected and session.transport.kind == "stdio":
            # a server that exits (or closes its stdout) on server/discover, which every
            # stateless server must serve, is handshake-era: its next start opens it
            # with initialize
            if memory is not None:
                memory.remember(key, HANDSHAKE_VERSIONS[0])
            session.note(
                f"era: the server ended during the {PROBE} probe: remembered as handshake-era, "
                "so the next start opens it with initialize (no probe)",
                severity="warning",
                era={"step": "exited", "era": "handshake"},
            )
            raise ServerExitedOnProbe(lost) from exc
        raise
    if memory is not None and session.protocol_version is not None:
        memory.remember(key, session.protocol_version)
    return result


def probing(session: Session) -> bool:
    """Whether the era probe is in flight (a connection lost now may be a strict server
    ending on it: not news yet, the front may start it again)."""
    if session.pinned or session.transport.kind != "stdio":
        return False
    return any(p.method == PROBE for p in session.pending.values())


def note_restart(session: Session, why: ServerExitedOnProbe) -> None:
    """Say, on the new session's log, why the server was started a second time."""
    session.note(
        f"era: the server ended during the {PROBE} probe ({why.lost.message}): started it "
        "again, opening with initialize (a strict handshake-era server)",
        severity="warning",
        era={"step": "restarted", "era": "handshake"},
    )


async def _probe(session: Session, *, remembered: bool = False) -> dict[str, Any]:
    """``server/discover`` at the newest stateless version; fall back to ``initialize``."""
    stateless = StatelessEra()
    session.era = stateless
    session.transport.set_protocol_version(stateless.requested, stateless=True)
    session.note(
        f"era: stateless (remembered for this target): {PROBE} at {stateless.requested} opens it"
        if remembered
        else f"era: no --protocol-version: probing with {PROBE} at {stateless.requested} "
        "(a handshake-era server refuses it; then initialize follows)",
        era={"step": "probe", "version": stateless.requested, "remembered": remembered},
    )
    started = monotonic()
    # the probe and a fallback initialize share the opening's time (the user's timeout):
    # a probe that goes unanswered takes at most half of it
    timeout = min(PROBE_TIMEOUT, _opening_limit(session) / 2)
    try:
        result = await session.request(PROBE, timeout=timeout)
    except RpcError as exc:
        if session.lost is not None or _http_status(exc) in AUTH_STATUSES:
            raise  # an outage, or an authorization that failed, is not an era verdict
        version = listed_stateless(exc)
        if version is not None:  # -32022 naming a stateless version: ask again at it
            return await StatelessEra(version).retry(session, exc, timeout)
        why = _refusal(exc, timeout)
        took = monotonic() - started
        return await _fall_back(session, why, took, unanswered=why.startswith("not answered"))
    took = monotonic() - started
    versions = result.get("supportedVersions") if isinstance(result, dict) else None
    if not isinstance(versions, list) or stateless.requested not in versions:
        # no DiscoverResult (supportedVersions is required), or one naming only
        # handshake versions: a legacy advertisement, as the official SDK reads it
        said = listed(versions)
        return await _fall_back(session, f"answered with no stateless version ({said})", took)
    assert isinstance(result, dict)
    _choose(
        session,
        "stateless",
        f"era: stateless {stateless.requested}: {PROBE} answered in {took * 1000:.0f} ms "
        f"(supportedVersions: {listed(versions)})",
        by=PROBE,
        ms=round(took * 1000, 1),
    )
    return stateless.adopt(session, result)


def _refusal(exc: RpcError, timeout: float) -> str:
    """What the refusal said, for the note; raises when it proves an incompatibility."""
    if isinstance(exc, RequestTimeoutError):
        return f"not answered within {timeout:g} s"
    if exc.code == UNSUPPORTED_PROTOCOL_VERSION:
        data = exc.data if isinstance(exc.data, dict) else {}
        supported = data.get("supported")
        ours = (*HANDSHAKE_VERSIONS, *STATELESS_VERSIONS)
        if isinstance(supported, list) and supported and not any(v in ours for v in supported):
            raise VersionError(
                f"the server supports only {listed(supported)}, none of which "
                f"mcp-inspect speaks (it speaks {', '.join(STATELESS_VERSIONS)} and "
                f"{', '.join(HANDSHAKE_VERSIONS)})"
            ) from exc
    status = _http_status(exc)
    shown = exc.message.splitlines()[0][:160] if exc.message else ""
    if status is not None and not shown.startswith("HTTP"):
        shown = f"HTTP {status}: {shown}"
    return f"refused ({exc.code}: {shown})"


def _opening_limit(session: Session) -> float:
    """The time the whole opening may take: the timeout, or a shorter hard maximum."""
    return min(session.timeout, session.max_timeout)


async def _fall_back(
    session: Session, why: str, took: float, *, unanswered: bool = False
) -> dict[str, Any]:
    """The handshake on the same connection, the transport told to forget the probe.
    After an unanswered probe, initialize gets what is left of the opening's time."""
    handshake = HandshakeEra()
    session.era = handshake
    session.transport.reset_protocol_version()
    _choose(
        session,
        "handshake",
        f"era: handshake: {PROBE} {why} after {took * 1000:.0f} ms; "
        f"falling back to initialize at {handshake.requested}",
        by=PROBE,
        answer=why,
        ms=round(took * 1000, 1),
    )
    limit = _opening_limit(session)
    try:
        return await handshake.open(session, max(limit - took, 0.1) if unanswered else None)
    except RequestTimeoutError as exc:
        if not unanswered:
            raise
        # neither the probe nor initialize was answered: the user's limit, as one
        hard = session.max_timeout < session.timeout
        raise RequestTimeoutError("server/discover then initialize", limit, hard) from exc
    except (RpcError, VersionError) as exc:
        # a probe answered late may have locked the server in the stateless era: the
        # handshake is then refused with the modern error naming the stateless version
        cause = exc if isinstance(exc, RpcError) else exc.__cause__
        data = cause.data if isinstance(cause, RpcError) and isinstance(cause.data, dict) else {}
        supported = data.get("supported")
        if (
            not isinstance(cause, RpcError)
            or cause.code != UNSUPPORTED_PROTOCOL_VERSION
            or not isinstance(supported, list)
            or not any(v in STATELESS_VERSIONS for v in supported)
        ):
            raise
    stateless = StatelessEra()
    session.era = stateless
    session.transport.set_protocol_version(stateless.requested, stateless=True)
    session.note(
        f"era: initialize refused with {UNSUPPORTED_PROTOCOL_VERSION} naming "
        f"{stateless.requested}: probing once more",
        severity="warning",
    )
    return await stateless.open(session)


def _http_status(exc: RpcError) -> int | None:
    """The HTTP status of a failure the HTTP transport turned into an error response."""
    status = exc.data.get("status") if isinstance(exc.data, dict) else None
    return status if isinstance(status, int) else None


def _choose(session: Session, era: str, text: str, **meta: Any) -> None:
    session.note(text, era={"step": "chosen", "era": era, **meta})
