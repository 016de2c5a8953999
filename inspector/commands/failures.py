"""How the command line fails: one JSON line on stderr and a documented exit code.

An engine or transport failure becomes a :class:`CliError` (a kind, a message and an
exit code) in one place, so ``--cli``, ``replay`` and the subcommands to come report
the same failure the same way. The exit codes are mapped from the error tree
(:mod:`inspector.errors`) by :data:`EXIT_CODES`: a failure takes the row of its
nearest class there; :func:`classify_failure` then refines a few rows by what the
failure carries (an HTTP status, error -32042, an expired session). The exit codes,
``CliError`` and the JSON line themselves are in :mod:`inspector.commands.exits` (a
usage error is reported without loading the error tree).
"""

from __future__ import annotations

from asyncio import CancelledError
from typing import Any

from inspector.auth.errors import AuthError, OptionError, PrivateKeyError, StoreError
from inspector.collection.model import CollectionFileError
from inspector.commands.exits import CliError as CliError
from inspector.commands.exits import ExitCode as ExitCode
from inspector.commands.exits import report_error as report_error
from inspector.commands.exits import write_error as write_error
from inspector.commands.options import UsageError
from inspector.config import ConfigError
from inspector.engine.era import VersionError
from inspector.engine.request_errors import (
    ConnectionClosedError,
    RequestTimeoutError,
    first_failure,
)
from inspector.errors import InspectorError
from inspector.forms.strict_json import NotJson
from inspector.record.format import SessionFileError
from inspector.replay.diff import PathError
from inspector.skills.client import SkillNotFoundError, SkillVerificationError
from inspector.wire.jsonrpc import URL_ELICITATION_REQUIRED, RpcError
from inspector.wire.transport import TransportError

HTTP_FAILURE = -32000  # code of the transports' synthesized per-request HTTP failures
BODY_EXCERPT = 300  # characters of an HTTP error body in the error JSON


def _http_error(message: str, status: int, **details: Any) -> CliError:
    """An HTTP error status: 401/403 mean authorization is needed, the rest are HTTP errors."""
    if status in (401, 403):
        if "authorization needed" not in message:
            message = f"authorization needed: {message}"
        return CliError("auth", message, ExitCode.AUTH, httpStatus=status, **details)
    return CliError("http", message, ExitCode.HTTP, httpStatus=status, **details)


def url_elicitation_required(exc: RpcError) -> CliError:
    """Error -32042: the URLs the user must open first, in the message and as ``urls``.

    One shot cannot wait for the browser flow: open them, then run the command again."""
    data = exc.data if isinstance(exc.data, dict) else {}
    items = [e for e in data.get("elicitations") or [] if isinstance(e, dict)]
    urls = [str(e.get("url")) for e in items if e.get("url")]
    listed = (
        "; ".join(f"{e.get('url')} ({e.get('message', '')})" for e in items if e.get("url"))
        or "none given"
    )
    message = (
        f"{exc.message} -- URL elicitation required (-32042): open "
        f"{'this URL' if len(urls) == 1 else 'these URLs'} to complete it, then run "
        f"the command again: {listed}"
    )
    return CliError(
        "url-elicitation-required",
        message,
        ExitCode.PROTOCOL,
        rpcCode=exc.code,
        urls=urls,
        data=exc.data,
    )


# The error tree's exit codes: error class -> (kind, exit code). A failure takes the row
# of its nearest class (its own, else its parent's...); a new error needs a row only when
# its code is not its parent's. InspectorError's row is the fallback for ours, OSError's
# for the system's; anything else is "internal".
EXIT_CODES: dict[type[BaseException], tuple[str, int]] = {
    InspectorError: ("internal", ExitCode.CONNECTION),
    UsageError: ("usage", ExitCode.USAGE),
    ConfigError: ("usage", ExitCode.USAGE),
    PathError: ("usage", ExitCode.USAGE),
    CollectionFileError: ("usage", ExitCode.USAGE),
    SessionFileError: ("file", ExitCode.USAGE),
    TransportError: ("connection", ExitCode.CONNECTION),
    VersionError: ("protocol-version", ExitCode.PROTOCOL),
    RpcError: ("protocol", ExitCode.PROTOCOL),
    ConnectionClosedError: ("connection", ExitCode.CONNECTION),
    RequestTimeoutError: ("timeout", ExitCode.TIMEOUT),
    OSError: ("connection", ExitCode.CONNECTION),
    AuthError: ("auth", ExitCode.AUTH),
    StoreError: ("usage", ExitCode.USAGE),
    OptionError: ("usage", ExitCode.USAGE),
    PrivateKeyError: ("usage", ExitCode.USAGE),
    NotJson: ("usage", ExitCode.USAGE),
    SkillVerificationError: ("skill-verification", ExitCode.PROTOCOL),
    SkillNotFoundError: ("skill-not-found", ExitCode.PROTOCOL),
}


def exit_row(exc_type: type[BaseException]) -> tuple[str, int]:
    """The (kind, exit code) row of the nearest class of ``exc_type`` in :data:`EXIT_CODES`."""
    for cls in exc_type.__mro__:
        if cls in EXIT_CODES:
            return EXIT_CODES[cls]
    return ("internal", ExitCode.CONNECTION)


def classify_failure(exc: BaseException, session_expired: bool = False) -> CliError:
    """Map an engine/transport failure to a CLI error kind and exit code.

    ``session_expired``: the HTTP transport saw a 404 to a request carrying its session
    id; one call cannot be re-run on a new session, so that is a connection failure."""
    if isinstance(exc, CliError):
        return exc
    kind, code = exit_row(type(exc))
    if isinstance(exc, ConnectionClosedError):
        return _connection_closed(exc, session_expired)
    if isinstance(exc, RpcError) and not isinstance(exc, RequestTimeoutError):
        return _rpc_failure(exc, kind, code)
    if isinstance(exc, TransportError):
        status = getattr(exc, "status", None)
        if isinstance(status, int):
            return _http_error(str(exc), status)
    if kind == "internal":
        return CliError(kind, f"{type(exc).__name__}: {exc}", code)
    message = exc.message if isinstance(exc, RpcError) else str(exc)
    return CliError(kind, message, code)


def _connection_closed(exc: ConnectionClosedError, session_expired: bool) -> CliError:
    """The connection ended: the server's exit code and stderr, or the HTTP status."""
    lost = exc.lost
    details: dict[str, Any] = {}
    if lost.exit_code is not None:
        details["serverExitCode"] = lost.exit_code
    if lost.stderr_tail:
        details["stderr"] = lost.stderr_tail
    if lost.stdout_noise:
        details["stdout"] = lost.stdout_noise
    if session_expired:
        return CliError(
            "session-expired",
            "the server's session expired (HTTP 404 to a "
            "request carrying its session id); run the command again to start "
            "a new session",
            ExitCode.CONNECTION,
            httpStatus=lost.http_status,
        )
    if lost.http_status is not None and lost.http_status >= 400:
        return _http_error(lost.message, lost.http_status, **details)
    return CliError("connection", exc.message, ExitCode.CONNECTION, **details)


def _rpc_failure(exc: RpcError, kind: str, code: int) -> CliError:
    """A JSON-RPC error: the server's, or the transport's HTTP failure presented as one."""
    data = exc.data if isinstance(exc.data, dict) else {}
    status = data.get("status")
    if exc.code == HTTP_FAILURE and "status" in data:  # the transport's, not the server's
        body = data.get("body")
        excerpt = {"body": body[:BODY_EXCERPT]} if isinstance(body, str) and body else {}
        if isinstance(status, int) and status >= 300:  # 3xx: a redirect not followed
            return _http_error(exc.message, status, **excerpt)
        if isinstance(status, int):  # answered, but not with the response (no stream...)
            return CliError(
                "protocol", exc.message, ExitCode.PROTOCOL, httpStatus=status, **excerpt
            )
        # no status: the exchange broke below HTTP (a reset, a cut stream)
        return CliError("connection", exc.message, ExitCode.CONNECTION, **excerpt)
    if exc.code == URL_ELICITATION_REQUIRED:
        return url_elicitation_required(exc)
    return CliError(kind, exc.message, code, rpcCode=exc.code, data=exc.data)


def unwrap_failure(exc: BaseException) -> BaseException | None:
    """The failure inside task-group wrappers; None for KeyboardInterrupt and friends."""
    exc = first_failure(exc)
    if isinstance(exc, KeyboardInterrupt | SystemExit | GeneratorExit | CancelledError):
        return None  # Ctrl+C arrives as a cancellation: let it end the run (exit 130)
    return exc
