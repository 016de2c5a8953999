"""One-shot headless calls (``--cli``): connect, initialize, one method, JSON out.

Built on the same engine as the TUI and never imports Textual. Output: one JSON
object on stdout; on failure one JSON line on stderr and a documented exit code.
"""

from __future__ import annotations

import json
import sys
from asyncio import CancelledError
from dataclasses import dataclass, field
from typing import Any

from inspector.engine.client import LOG_LEVELS, McpClient
from inspector.engine.era import LATEST_VERSION, VersionError
from inspector.engine.jsonrpc import URL_ELICITATION_REQUIRED, RpcError
from inspector.engine.responders import Responders
from inspector.engine.session import (
    ConnectionClosedError,
    RequestTimeoutError,
    Session,
    first_failure,
)
from inspector.target import Target, build_transport
from inspector.transports.base import TransportError


class ExitCode:
    """Documented exit codes of ``mcp-inspect --cli`` (see README)."""

    OK = 0
    TOOL_ERROR = 1  # tools/call returned isError: true (replay: differences found)
    USAGE = 2  # bad flags, missing file, bad config
    CONNECTION = 3  # could not start or reach the server, or it went away
    PROTOCOL = 4  # the server answered with a JSON-RPC error, or a version we do not speak
    TIMEOUT = 5  # no answer within --timeout
    HTTP = 6  # an HTTP error status (4xx/5xx other than auth)
    AUTH = 7  # 401/403: authorization is needed


METHODS = ("tools/list", "tools/call", "resources/list", "resources/read",
           "resources/templates/list", "prompts/list", "prompts/get", "logging/setLevel",
           "ping", "completion/complete", "resources/subscribe", "resources/unsubscribe",
           "initialize")


class CliError(Exception):
    def __init__(self, kind: str, message: str, code: int, **details: Any) -> None:
        super().__init__(message)
        self.kind = kind
        self.message = message
        self.code = code
        self.details = details

    def to_json(self) -> dict[str, Any]:
        return {"error": {"kind": self.kind, "message": self.message, "exitCode": self.code,
                          **self.details}}


@dataclass
class CliRequest:
    """What the user asked for on the command line."""

    method: str
    tool_name: str | None = None
    tool_args: list[str] = field(default_factory=list)  # "key=value" pairs
    tool_args_json: str | None = None
    uri: str | None = None
    prompt_name: str | None = None
    prompt_args: list[str] = field(default_factory=list)
    log_level: str | None = None
    timeout: float = 60.0
    max_timeout: float = 600.0
    protocol_version: str = LATEST_VERSION


def split_pairs(pairs: list[str], flag: str) -> dict[str, str]:
    out: dict[str, str] = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key:
            raise CliError("usage", f"{flag} expects key=value, got {pair!r}", ExitCode.USAGE)
        out[key] = value
    return out


async def tool_arguments(client: McpClient, request: CliRequest) -> dict[str, Any]:
    """--tool-args-json merged with --tool-arg pairs coerced by the tool's input schema."""
    arguments: dict[str, Any] = {}
    if request.tool_args_json:
        try:
            loaded = json.loads(request.tool_args_json)
        except json.JSONDecodeError as exc:
            raise CliError("usage", f"--tool-args-json is not valid JSON: {exc}",
                           ExitCode.USAGE) from exc
        if not isinstance(loaded, dict):
            raise CliError("usage", "--tool-args-json must be a JSON object", ExitCode.USAGE)
        arguments.update(loaded)
    pairs = split_pairs(request.tool_args, "--tool-arg")
    if pairs:
        schema: dict[str, Any] = {}
        tools = await client.list_tools()
        for tool in tools:
            if tool.get("name") == request.tool_name:
                schema = tool.get("inputSchema") or {}
                break
        from inspector.forms.coerce import coerce_cli_arg

        for key, text in pairs.items():
            arguments[key] = coerce_cli_arg(schema, key, text)
    return arguments


async def perform(client: McpClient, request: CliRequest) -> Any:
    """Run the one method and return its result."""
    method = request.method
    if method == "initialize":
        return client.session.initialize_result
    if method == "tools/list":
        return {"tools": await client.list_tools()}
    if method == "resources/list":
        return {"resources": await client.list_resources()}
    if method == "resources/templates/list":
        return {"resourceTemplates": await client.list_resource_templates()}
    if method == "prompts/list":
        return {"prompts": await client.list_prompts()}
    if method == "ping":
        return await client.ping()
    if method == "tools/call":
        if not request.tool_name:
            raise CliError("usage", "tools/call needs --tool-name", ExitCode.USAGE)
        arguments = await tool_arguments(client, request)
        return await client.call_tool(request.tool_name, arguments)
    if method in ("resources/read", "resources/subscribe", "resources/unsubscribe"):
        if not request.uri:
            raise CliError("usage", f"{method} needs --uri", ExitCode.USAGE)
        if method == "resources/read":
            return await client.read_resource(request.uri)
        if method == "resources/subscribe":
            return await client.subscribe(request.uri)
        return await client.unsubscribe(request.uri)
    if method == "prompts/get":
        if not request.prompt_name:
            raise CliError("usage", "prompts/get needs --prompt-name", ExitCode.USAGE)
        return await client.get_prompt(request.prompt_name,
                                       split_pairs(request.prompt_args, "--prompt-args"))
    if method == "logging/setLevel":
        if request.log_level not in LOG_LEVELS:
            raise CliError("usage", f"logging/setLevel needs --log-level, one of "
                           f"{', '.join(LOG_LEVELS)}", ExitCode.USAGE)
        return await client.set_logging_level(request.log_level)
    raise CliError("usage", f"unsupported --method {method!r}; use one of "
                   f"{', '.join(METHODS)}", ExitCode.USAGE)


HTTP_FAILURE = -32000  # code of the transports' synthesized per-request HTTP failures
BODY_EXCERPT = 300  # characters of an HTTP error body in the error JSON


def _http_error(message: str, status: int, **details: Any) -> CliError:
    """An HTTP error status: 401/403 mean authorization is needed, the rest are HTTP errors."""
    if status in (401, 403):
        if "authorization needed" not in message:
            message = f"authorization needed: {message}"
        return CliError("auth", message, ExitCode.AUTH,
                        httpStatus=status, **details)
    return CliError("http", message, ExitCode.HTTP, httpStatus=status, **details)


def url_elicitation_required(exc: RpcError) -> CliError:
    """Error -32042: the URLs the user must open first, in the message and as ``urls``.

    One shot cannot wait for the browser flow: open them, then run the command again."""
    data = exc.data if isinstance(exc.data, dict) else {}
    items = [e for e in data.get("elicitations") or [] if isinstance(e, dict)]
    urls = [str(e.get("url")) for e in items if e.get("url")]
    listed = "; ".join(f"{e.get('url')} ({e.get('message', '')})" for e in items
                       if e.get("url")) or "none given"
    message = (f"{exc.message} -- URL elicitation required (-32042): open "
               f"{'this URL' if len(urls) == 1 else 'these URLs'} to complete it, then run "
               f"the command again: {listed}")
    return CliError("url-elicitation-required", message, ExitCode.PROTOCOL, rpcCode=exc.code,
                    urls=urls, data=exc.data)


def classify_failure(exc: BaseException, session_expired: bool = False) -> CliError:
    """Map an engine/transport failure to a CLI error kind and exit code.

    ``session_expired``: the HTTP transport saw a 404 to a request carrying its session
    id; one call cannot be re-run on a new session, so that is a connection failure."""
    if isinstance(exc, CliError):
        return exc
    if isinstance(exc, RequestTimeoutError):
        return CliError("timeout", exc.message, ExitCode.TIMEOUT)
    if isinstance(exc, ConnectionClosedError):
        lost = exc.lost
        details: dict[str, Any] = {}
        if lost.exit_code is not None:
            details["serverExitCode"] = lost.exit_code
        if lost.stderr_tail:
            details["stderr"] = lost.stderr_tail
        if session_expired:
            return CliError("session-expired", "the server's session expired (HTTP 404 to a "
                            "request carrying its session id); run the command again to start "
                            "a new session", ExitCode.CONNECTION, httpStatus=lost.http_status)
        if lost.http_status is not None and lost.http_status >= 400:
            return _http_error(lost.message, lost.http_status, **details)
        return CliError("connection", exc.message, ExitCode.CONNECTION, **details)
    if isinstance(exc, VersionError):
        return CliError("protocol-version", str(exc), ExitCode.PROTOCOL)
    if isinstance(exc, RpcError):
        data = exc.data if isinstance(exc.data, dict) else {}
        status = data.get("status")
        if exc.code == HTTP_FAILURE and "status" in data:  # the transport's, not the server's
            body = data.get("body")
            excerpt = {"body": body[:BODY_EXCERPT]} if isinstance(body, str) and body else {}
            if isinstance(status, int) and status >= 400:
                return _http_error(exc.message, status, **excerpt)
            if isinstance(status, int):  # answered, but not with the response (no stream...)
                return CliError("protocol", exc.message, ExitCode.PROTOCOL, httpStatus=status,
                                **excerpt)
            # no status: the exchange broke below HTTP (a reset, a cut stream)
            return CliError("connection", exc.message, ExitCode.CONNECTION, **excerpt)
        if exc.code == URL_ELICITATION_REQUIRED:
            return url_elicitation_required(exc)
        return CliError("protocol", exc.message, ExitCode.PROTOCOL, rpcCode=exc.code,
                        data=exc.data)
    if isinstance(exc, TransportError):
        status = getattr(exc, "status", None)
        if isinstance(status, int):
            code = ExitCode.AUTH if status in (401, 403) else ExitCode.HTTP
            return CliError("auth" if code == ExitCode.AUTH else "http", str(exc), code,
                            httpStatus=status)
        return CliError("connection", str(exc), ExitCode.CONNECTION)
    if isinstance(exc, OSError):
        return CliError("connection", str(exc), ExitCode.CONNECTION)
    return CliError("internal", f"{type(exc).__name__}: {exc}", ExitCode.CONNECTION)


async def run(target: Target, request: CliRequest, responders: Responders,
              recorder: Any = None) -> int:
    """Connect, initialize, perform, print. Returns the exit code."""
    transport = None
    try:
        transport = build_transport(target, timeout=request.timeout)
        session = Session(transport, responders=responders, timeout=request.timeout,
                          max_timeout=request.max_timeout, recorder=recorder,
                          protocol_version=request.protocol_version)
        async with session:
            await session.initialize()
            result = await perform(McpClient(session), request)
    except BaseException as exc:
        failure = _unwrap(exc)
        if failure is None:
            raise
        error = classify_failure(failure, bool(getattr(transport, "session_expired", False)))
        sys.stderr.write(json.dumps(error.to_json(), ensure_ascii=False) + "\n")
        return error.code
    sys.stdout.write(json.dumps(result, indent=2, ensure_ascii=False) + "\n")
    if request.method == "tools/call" and isinstance(result, dict) and result.get("isError"):
        return ExitCode.TOOL_ERROR
    return ExitCode.OK


def _unwrap(exc: BaseException) -> BaseException | None:
    """The failure inside task-group wrappers; None for KeyboardInterrupt and friends."""
    exc = first_failure(exc)
    if isinstance(exc, KeyboardInterrupt | SystemExit | GeneratorExit | CancelledError):
        return None  # Ctrl+C arrives as a cancellation: let it end the run (exit 130)
    return exc
