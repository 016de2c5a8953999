"""Protocol findings: shape checks on single messages (the session adds flow checks)."""

from __future__ import annotations

import re
from typing import Any

from inspector.engine.kinds import CATALOG_KINDS
from inspector.wire.events import Finding
from inspector.wire.transport import ToolHeaders

_VALID_ID_TYPES = (str, int)


def check_message(message: Any) -> list[Finding]:
    """Findings for one parsed JSON-RPC message or batch (never raises)."""
    if isinstance(message, list):
        if not message:
            return [Finding("empty-batch", "empty JSON-RPC batch", "error")]
        found: list[Finding] = [
            Finding("batch", "JSON-RPC batch (only 2025-03-26 allows them)", "info")
        ]
        for index, item in enumerate(message):
            for f in check_message(item):
                found.append(Finding(f.code, f"item {index}: {f.message}", f.severity))
        return found
    if not isinstance(message, dict):
        return [
            Finding(
                "not-object",
                f"a JSON-RPC message must be an object, got {type(message).__name__}",
                "error",
            )
        ]
    found = []
    if message.get("jsonrpc") != "2.0":
        found.append(
            Finding(
                "jsonrpc-version",
                f'"jsonrpc" must be "2.0", got {message.get("jsonrpc")!r:.40}',
                "error",
            )
        )
    has_method = "method" in message
    has_result = "result" in message
    has_error = "error" in message
    if has_method:
        if not isinstance(message["method"], str):
            found.append(Finding("method-type", "method must be a string", "error"))
        if has_result or has_error:
            found.append(
                Finding("mixed", "a message with a method must not carry result or error", "error")
            )
        params = message.get("params")
        if "params" in message and not isinstance(params, dict | list):
            found.append(Finding("params-type", "params must be an object", "error"))
        if "id" in message and not _valid_id(message["id"]):
            found.append(
                Finding(
                    "id-type",
                    f"request id must be a string or integer, got {message['id']!r:.40}",
                    "error",
                )
            )
    elif has_result and has_error:
        found.append(
            Finding("result-and-error", "a response must not have both result and error", "error")
        )
    elif has_result or has_error:
        if "id" not in message:
            found.append(Finding("missing-id", "a response must have an id", "error"))
        elif message["id"] is None and not has_error:
            found.append(Finding("null-id", "a result response must not have a null id", "error"))
        elif message["id"] is not None and not _valid_id(message["id"]):
            found.append(Finding("id-type", "response id must be a string or integer", "error"))
        if has_error:
            err = message["error"]
            if (
                not isinstance(err, dict)
                or not isinstance(err.get("code"), int)
                or not isinstance(err.get("message"), str)
            ):
                found.append(
                    Finding(
                        "error-shape", "error must be {code: integer, message: string}", "error"
                    )
                )
    else:
        found.append(
            Finding("no-shape", "neither a request, a notification nor a response", "error")
        )
    return found


def _valid_id(value: Any) -> bool:
    return isinstance(value, _VALID_ID_TYPES) and not isinstance(value, bool)


# -- the stateless era (2026-07-28) ------------------------------------------------------

MRTR_METHODS = frozenset({"tools/call", "prompts/get", "resources/read"})
INPUT_METHODS = {
    "elicitation/create": "elicitation",
    "sampling/createMessage": "sampling",
    "roots/list": "roots",
}  # method -> the client capability it needs
CACHEABLE_METHODS = frozenset({*(kind.method for kind in CATALOG_KINDS), "resources/read"})
SUBSCRIPTION_ID_KEY = "io.modelcontextprotocol/subscriptionId"
_CHANGE_NOTIFICATIONS = frozenset(
    {
        "notifications/tools/list_changed",
        "notifications/prompts/list_changed",
        "notifications/resources/list_changed",
        "notifications/resources/updated",
    }
)


def check_stateless_inbound(
    message: dict[str, Any], method: str | None, capabilities: dict[str, Any]
) -> list[Finding]:
    """Findings for one message a server sent in answer to stateless requests.

    ``method`` is the method of the request a response answers (None when unknown);
    ``capabilities`` are the client capabilities that request declared."""
    if "method" in message:
        name = message.get("method")
        if "id" in message:
            return [
                Finding(
                    "stateless-server-request",
                    f"a 2026-07-28 server must not send "
                    f"requests ({name!r}); it asks with an input_required result "
                    "(multi round-trip requests)",
                    "error",
                )
            ]
        meta = (
            message.get("params", {}).get("_meta")
            if isinstance(message.get("params"), dict)
            else None
        )
        if name in _CHANGE_NOTIFICATIONS and not (
            isinstance(meta, dict) and SUBSCRIPTION_ID_KEY in meta
        ):
            return [
                Finding(
                    "stateless-unsubscribed",
                    f"{name} outside a subscriptions/listen stream (no subscriptionId in _meta)",
                    "warning",
                )
            ]
        return []
    result = message.get("result")
    if method is None or not isinstance(result, dict):
        return []
    found: list[Finding] = []
    result_type = result.get("resultType")
    if result_type is None:
        found.append(
            Finding(
                "result-type",
                'a 2026-07-28 result must carry resultType (read as "complete")',
                "warning",
            )
        )
    elif result_type == "input_required":
        found.extend(_check_input_required(result, method, capabilities))
    if method == "server/discover":
        found.extend(_check_discover(result))
    elif method == "tools/list":
        found.extend(check_tool_headers(result))
    if method in CACHEABLE_METHODS and result_type != "input_required":
        missing = [key for key in ("ttlMs", "cacheScope") if key not in result]
        if missing:
            found.append(
                Finding(
                    "cacheable",
                    f"a 2026-07-28 {method} result must carry {' and '.join(missing)}",
                    "warning",
                )
            )
    return found


def _check_input_required(
    result: dict[str, Any], method: str, capabilities: dict[str, Any]
) -> list[Finding]:
    if method not in MRTR_METHODS:
        return [
            Finding(
                "input-required-method",
                f"input_required is not allowed on {method} "
                f"(only {', '.join(sorted(MRTR_METHODS))})",
                "error",
            )
        ]
    requests = result.get("inputRequests")
    if requests is None and "requestState" not in result:
        return [
            Finding(
                "input-required-empty",
                "input_required without inputRequests or requestState",
                "error",
            )
        ]
    found: list[Finding] = []
    if "requestState" in result and not isinstance(result["requestState"], str):
        found.append(Finding("request-state-type", "requestState must be a string", "error"))
    if requests is None:
        return found
    if not isinstance(requests, dict):
        return [*found, Finding("input-requests-type", "inputRequests must be an object", "error")]
    for key, request in requests.items():
        name = request.get("method") if isinstance(request, dict) else None
        if name not in INPUT_METHODS:
            found.append(
                Finding(
                    "input-request-method",
                    f"inputRequests[{key!r}]: "
                    f"{name!r:.60} is not elicitation/create, "
                    "sampling/createMessage or roots/list",
                    "error",
                )
            )
        elif INPUT_METHODS[name] not in capabilities:
            found.append(
                Finding(
                    "undeclared-capability",
                    f"inputRequests[{key!r}]: {name} "
                    f"but the request did not declare {INPUT_METHODS[name]}",
                    "error",
                )
            )
    return found


def _check_discover(result: dict[str, Any]) -> list[Finding]:
    found: list[Finding] = []
    versions = result.get("supportedVersions")
    if not isinstance(versions, list) or not all(isinstance(v, str) for v in versions):
        found.append(
            Finding(
                "discover-versions",
                "server/discover: supportedVersions must be a list of strings",
                "error",
            )
        )
    if not isinstance(result.get("capabilities"), dict):
        found.append(
            Finding(
                "discover-capabilities", "server/discover: capabilities must be an object", "error"
            )
        )
    return found


# -- x-mcp-header (2026-07-28 Streamable HTTP: tool arguments mirrored into headers) -------

X_MCP_HEADER = "x-mcp-header"
_TOKEN = re.compile(r"^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$")
_HEADER_TYPES = ("string", "integer", "boolean")


def x_mcp_headers(schema: Any) -> tuple[dict[tuple[str, ...], str], list[str]]:
    """The ``x-mcp-header`` annotations of a tool's inputSchema: property path -> header
    name part (``Mcp-Param-{name}``), and the problems that make the tool invalid."""
    found: dict[tuple[str, ...], str] = {}
    problems: list[str] = []
    _walk_headers(schema, (), True, found, problems)
    seen: dict[str, str] = {}
    for name in found.values():
        if name.lower() in seen:
            problems.append(f"x-mcp-header {name!r} is not unique (case-insensitively)")
        seen[name.lower()] = name
    return found, problems


def tool_headers(tools: list[dict[str, Any]]) -> tuple[ToolHeaders, dict[str, list[str]]]:
    """The listed tools' valid ``x-mcp-header`` annotations (what HTTP mirrors into
    ``Mcp-Param-*`` headers on tools/call), and the tools whose annotations are invalid
    with why (an HTTP client must not offer those)."""
    headers: ToolHeaders = {}
    rejected: dict[str, list[str]] = {}
    for tool in tools:
        name = str(tool.get("name"))
        annotations, problems = x_mcp_headers(tool.get("inputSchema"))
        if problems:
            rejected[name] = problems
        elif annotations:
            headers[name] = annotations
    return headers, rejected


def _walk_headers(
    node: Any,
    path: tuple[str, ...],
    reachable: bool,
    found: dict[tuple[str, ...], str],
    problems: list[str],
) -> None:
    if isinstance(node, list):
        for item in node:
            _walk_headers(item, path, False, found, problems)
        return
    if not isinstance(node, dict):
        return
    if X_MCP_HEADER in node:
        name = node[X_MCP_HEADER]
        where = "/".join(path) or "(root)"
        if not reachable or not path:
            problems.append(f"x-mcp-header at {where} is not reachable through properties only")
        elif not isinstance(name, str) or not _TOKEN.fullmatch(name):
            problems.append(f"x-mcp-header {name!r:.40} at {where} is not an HTTP token")
        elif node.get("type") not in _HEADER_TYPES:
            problems.append(
                f"x-mcp-header {name!r} at {where} is on a "
                f"{node.get('type')!r} (only string, integer, boolean)"
            )
        else:
            found[path] = name
    for key, value in node.items():
        if key == "properties" and isinstance(value, dict):
            for prop, sub in value.items():
                _walk_headers(sub, (*path, str(prop)), reachable, found, problems)
        elif key not in (X_MCP_HEADER, "default", "examples", "const", "enum"):
            _walk_headers(value, path, False, found, problems)


def check_tool_headers(result: dict[str, Any]) -> list[Finding]:
    """Findings for tools/list items whose x-mcp-header annotations are invalid."""
    found: list[Finding] = []
    tools = result.get("tools")
    for tool in tools if isinstance(tools, list) else []:
        if isinstance(tool, dict):
            for problem in x_mcp_headers(tool.get("inputSchema"))[1]:
                found.append(
                    Finding(
                        "x-mcp-header",
                        f"tool {tool.get('name')!r:.60}: "
                        f"{problem} (HTTP clients must drop the tool)",
                        "error",
                    )
                )
    return found
