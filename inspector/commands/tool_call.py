"""``--cli --method tools/call``, checked on both sides of the wire.

Before sending: the tools are listed (the schema is needed to coerce ``--tool-arg``
anyway, and a recording then holds ``tools/list`` for ``replay --serve``); an unknown
tool name, an unknown or missing argument and a value of the wrong type are reported
locally (exit 2, in the schema's words) and nothing is sent. After: the result's
``structuredContent`` is checked against the tool's ``outputSchema`` (exit 8 when it
does not match; the result is still printed). ``--no-validate`` skips both checks and
sends the arguments as given (``--tool-arg`` values still coerced when the tool is listed).

The checks themselves live in :mod:`inspector.forms` (one home with the TUI's forms).
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from inspector.commands.exits import CliError, ExitCode
from inspector.commands.options import PROG
from inspector.forms import strict_json

if TYPE_CHECKING:
    from inspector.engine.client import McpClient

NAMES_SHOWN = 20  # tool names listed in an "unknown tool" error


@dataclass
class ToolCall:
    """What will be sent, and the tool as listed (None: the listing failed)."""

    name: str
    arguments: dict[str, Any]
    tool: dict[str, Any] | None


def split_pairs(pairs: list[str], flag: str) -> dict[str, str]:
    """``key=value`` words as a dict; a word without ``=`` is a usage error."""
    out: dict[str, str] = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key:
            raise CliError("usage", f"{flag} expects key=value, got {pair!r}", ExitCode.USAGE)
        out[key] = value
    return out


def json_arguments(text: str | None) -> dict[str, Any]:
    """``--tool-args-json``: a JSON object, or a usage error saying what is wrong."""
    if not text:
        return {}
    try:
        loaded = strict_json.loads(text)
    except ValueError as exc:  # a syntax error, or JSON only to Python (NaN, 5,000 deep)
        raise CliError(
            "usage", f"--tool-args-json is not valid JSON: {exc}; nothing was sent", ExitCode.USAGE
        ) from exc
    if not isinstance(loaded, dict):
        raise CliError("usage", "--tool-args-json must be a JSON object", ExitCode.USAGE)
    return loaded


async def listed_tool(client: McpClient, name: str) -> tuple[dict[str, Any] | None, list[str]]:
    """The tool called ``name`` and every listed name; (None, []) when the server could not
    list its tools (a JSON-RPC error: the call goes out unchecked, with a note saying so)."""
    from inspector.engine.request_errors import ConnectionClosedError, RequestTimeoutError
    from inspector.wire.jsonrpc import RpcError

    try:
        tools = await client.list_tools()
    except (ConnectionClosedError, RequestTimeoutError):
        raise
    except RpcError as exc:
        from inspector.commands.failures import HTTP_FAILURE  # start-up: failures only

        if exc.code == HTTP_FAILURE and isinstance(exc.data, dict) and "status" in exc.data:
            raise  # the transport's HTTP failure, not the server's answer: the call would fail too
        sys.stderr.write(
            f"{PROG}: tools/list failed ({exc.message}, code {exc.code}): "
            f"calling {name!r} without checking its arguments\n"
        )
        return None, []
    names = [str(t.get("name")) for t in tools if isinstance(t, dict)]
    for tool in tools:
        if isinstance(tool, dict) and tool.get("name") == name:
            return tool, names
    return None, names


def unknown_tool(name: str, names: list[str]) -> CliError:
    import difflib  # start-up: only for a name no tool has

    close = difflib.get_close_matches(name, names, n=3)
    shown = ", ".join(sorted(names)[:NAMES_SHOWN]) + (" ..." if len(names) > NAMES_SHOWN else "")
    message = (
        f"tools/call: the server has no tool {name!r}"
        + (f"; did you mean {' or '.join(repr(c) for c in close)}?" if close else "")
        + (f" (it lists {len(names)}: {shown})" if names else " (it lists no tools)")
        + "; nothing was sent (--no-validate sends it anyway)"
    )
    return CliError("unknown-tool", message, ExitCode.USAGE, tool=name, tools=names)


async def prepare_call(
    client: McpClient, name: str, tool_args: list[str], tool_args_json: str | None, check: bool
) -> ToolCall:
    """List the tools, coerce ``--tool-arg`` by the tool's schema and, with ``check``,
    report an unknown tool or invalid arguments instead of sending them."""
    tool, names = await listed_tool(client, name)
    if tool is None and names and check:  # listed, and not there
        raise unknown_tool(name, names)
    schema = (tool or {}).get("inputSchema") or {}
    # Start-up: coercion and validation load jsonschema (~60 ms), which only tools/call needs.
    from inspector.forms.arguments import check_arguments
    from inspector.forms.coerce import coerce_cli_arg
    from inspector.forms.output import issue_path

    arguments = json_arguments(tool_args_json)
    for key, text in split_pairs(tool_args, "--tool-arg").items():
        try:
            arguments[key] = coerce_cli_arg(schema, key, text)
        except strict_json.NotJson as exc:
            raise CliError(
                "usage", f"--tool-arg {key}: {exc}; nothing was sent", ExitCode.USAGE, argument=key
            ) from exc
    if check and tool is not None:
        issues = check_arguments(schema, arguments)
        if issues:
            listed = "; ".join(f"{issue_path(i)}: {i.message}" for i in issues)
            raise CliError(
                "invalid-arguments",
                f"tools/call {name}: the arguments do not match the tool's inputSchema, "
                f"nothing was sent: {listed} (fix them, or --no-validate sends them as they are)",
                ExitCode.USAGE,
                tool=name,
                issues=[{"path": issue_path(i), "message": i.message} for i in issues],
                arguments=arguments,
            )
    return ToolCall(name, arguments, tool)


def output_problem(call: ToolCall, result: Any) -> CliError | None:
    """The result's ``structuredContent`` against the tool's ``outputSchema``: an error
    (exit 8) when it does not match, reported after the result is printed."""
    if call.tool is None:
        return None
    from inspector.forms.output import check_output, issue_path

    checked = check_output(call.tool.get("outputSchema"), result)
    if not checked.failed:
        return None
    return CliError(
        "output-schema",
        f"tools/call {call.name}: {checked.describe()} (the result is on stdout)",
        ExitCode.OUTPUT_SCHEMA,
        tool=call.name,
        issues=[{"path": issue_path(i), "message": i.message} for i in checked.issues],
    )


def task_mode(client: McpClient, call: ToolCall, asked: bool) -> bool:
    """Whether the call goes out as a task: ``--task``, or by itself (said on stderr) for
    a tool whose ``execution.taskSupport`` is ``required`` (a plain call must fail)."""
    from inspector.engine.tasks import can_run_as_task, must_run_as_task

    caps = client.session.server_capabilities
    if asked:
        if call.tool is not None and not can_run_as_task(caps, call.tool):
            sys.stderr.write(
                f"{PROG}: --task: the server does not offer {call.name!r} as a task "
                "(no tasks.requests.tools.call capability, or taskSupport forbidden); "
                "sending it as a task anyway\n"
            )
        return True
    if call.tool is not None and must_run_as_task(caps, call.tool):
        sys.stderr.write(
            f"{PROG}: {call.name!r} must be called as a task (execution.taskSupport: "
            "required): calling it as a task and polling it to its end\n"
        )
        return True
    return False


async def call_as_task(client: McpClient, call: ToolCall) -> dict[str, Any]:
    """``tools/call`` with ``task``, followed (tasks/get at the server's pollInterval,
    then tasks/result) to its end; each status change is a line on stderr."""
    from inspector.engine.tasks import TaskManager, TaskState

    tasks = TaskManager(client.session)
    shown: list[str] = []

    def said(state: TaskState) -> None:
        line = state.status + (f": {state.status_message}" if state.status_message else "")
        if not shown or shown[-1] != line:
            shown.append(line)
            sys.stderr.write(f"{PROG}: task {state.task_id}: {line}\n")

    tasks.add_listener(said)
    state = await tasks.call_tool(call.name, call.arguments)
    state = await tasks.follow(state.task_id)
    if not state.terminal:
        raise CliError(
            "timeout",
            f"tools/call {call.name}: task {state.task_id} still {state.status} after "
            f"{client.session.max_timeout:g} s (raise it with --max-timeout)",
            ExitCode.TIMEOUT,
            taskId=state.task_id,
        )
    if state.error is not None:
        raise state.error
    return state.result or {}
