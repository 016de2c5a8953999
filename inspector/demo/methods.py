"""Handlers for each JSON-RPC method the demo server answers."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from inspector import __version__
from inspector.demo import media, prompts, resources, skills, tools
from inspector.demo.context import (
    LATEST,
    LEVELS,
    VERSIONS,
    Cancelled,
    DemoState,
    ToolContext,
    at_least,
    error_result,
)
from inspector.wire.jsonrpc import INVALID_PARAMS, METHOD_NOT_FOUND, RpcError

if TYPE_CHECKING:
    from inspector.demo.server import Call, DemoServer

TOOLS_PAGE = 10
INSTRUCTIONS = (
    "A demo server for mcp-inspect. Every tool, resource and prompt exists to exercise a "
    "part of the protocol: try show_media for content types, slow_count for progress and "
    "cancellation, ask_llm / book_table / list_roots for requests to the client, "
    "toggle_extra_tool for list_changed, and generate_report for tasks."
)


def _str(params: dict[str, Any], key: str) -> str:
    value = params.get(key)
    if not isinstance(value, str):
        raise RpcError(INVALID_PARAMS, f"Invalid params: {key!r} must be a string")
    return value


def _dict(params: dict[str, Any], key: str) -> dict[str, Any]:
    value = params.get(key)
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise RpcError(INVALID_PARAMS, f"Invalid params: {key!r} must be an object")
    return value


def capabilities(version: str) -> dict[str, Any]:
    """What the demo serves at ``version`` (tasks from 2025-11-25, in the handshake era)."""
    caps: dict[str, Any] = {
        "logging": {},
        "completions": {},
        "prompts": {"listChanged": True},
        "resources": {"subscribe": True, "listChanged": True},
        "tools": {"listChanged": True},
        "extensions": {skills.EXTENSION: {}},
    }
    if at_least(version, "2025-11-25") and version in VERSIONS:
        caps["tasks"] = {"list": {}, "cancel": {}, "requests": {"tools": {"call": {}}}}
    return caps


def server_info(state: DemoState, version: str) -> dict[str, Any]:
    info: dict[str, Any] = {"name": "mcp-inspect-demo"}
    if at_least(version, "2025-06-18"):
        info["title"] = "mcp-inspect demo server"
    info["version"] = __version__ + ("+changed" if state.changed else "")
    if at_least(version, "2025-11-25"):
        info["description"] = "Exercises every part of the Model Context Protocol"
        info["icons"] = [{"src": media.png_data_uri(), "mimeType": "image/png", "sizes": ["32x32"]}]
    return info


def initialize(server: DemoServer, call: Call) -> dict[str, Any]:
    params, state = call.params, server.state
    wanted = _str(params, "protocolVersion")
    version = wanted if wanted in VERSIONS else LATEST
    with state.lock:
        state.protocol_version = version
        state.client_capabilities = _dict(params, "capabilities")
        state.client_info = _dict(params, "clientInfo")
    server.stderr(f"initialize: client asked {wanted}, speaking {version}")
    caps = capabilities(version)
    info = server_info(state, version)
    return {
        "protocolVersion": version,
        "capabilities": caps,
        "serverInfo": info,
        "instructions": INSTRUCTIONS,
    }


def ping(server: DemoServer, call: Call) -> dict[str, Any]:
    return {}


def set_level(server: DemoServer, call: Call) -> dict[str, Any]:
    level = call.params.get("level")
    if level not in LEVELS:
        raise RpcError(INVALID_PARAMS, f"Invalid params: level must be one of {list(LEVELS)}")
    server.state.log_level = level
    return {}


def tools_list(server: DemoServer, call: Call) -> dict[str, Any]:
    version = server.state.protocol_version
    defs = [t.definition(version) for t in tools.catalog(server.state)]
    page, cursor = resources.paginate(defs, call.params.get("cursor"), TOOLS_PAGE)
    return {"tools": page, **({"nextCursor": cursor} if cursor else {})}


def run_tool(spec: tools.ToolSpec, args: dict[str, Any], ctx: ToolContext) -> dict[str, Any]:
    problem = tools.check_arguments(spec.input_schema, args)
    if problem is not None:
        return error_result(f"Invalid arguments for {spec.name}: {problem}")
    return spec.handler(tools.with_defaults(spec.input_schema, args), ctx)


def tools_call(server: DemoServer, call: Call) -> dict[str, Any]:
    name = _str(call.params, "name")
    spec = tools.find(server.state, name)
    if spec is None:
        raise RpcError(INVALID_PARAMS, f"Unknown tool: {name}")
    args = _dict(call.params, "arguments")
    token = _dict(call.params, "_meta").get("progressToken")
    tasks_on = at_least(server.state.protocol_version, "2025-11-25")
    if tasks_on and "task" in call.params:
        if not spec.task_support:
            raise RpcError(METHOD_NOT_FOUND, f"Tool {name} does not support tasks")
        return _start_task(server, spec, args, token, _dict(call.params, "task"))
    if tasks_on and spec.task_support == "required":
        raise RpcError(
            METHOD_NOT_FOUND,
            f"Tool {name} must be called as a task (execution.taskSupport: required)",
        )
    ctx = ToolContext(server, call.id, token, call.cancel)
    return run_tool(spec, args, ctx)


def _start_task(
    server: DemoServer,
    spec: tools.ToolSpec,
    args: dict[str, Any],
    token: Any,
    task_params: dict[str, Any],
) -> dict[str, Any]:
    store = server.tasks
    task = store.create(task_params.get("ttl"))
    ctx = ToolContext(
        server,
        None,
        token,
        task.cancel,
        task.task_id,
        lambda waiting: store.input_required(task, waiting),
    )

    def work() -> None:
        try:
            store.finish(task, run_tool(spec, args, ctx), None)
        except Cancelled:
            pass
        except RpcError as exc:
            store.finish(task, None, exc)
        except Exception as exc:
            store.finish(task, None, RpcError(-32603, f"Internal error: {exc}"))

    threading.Thread(target=work, daemon=True, name=f"demo-task-{task.task_id}").start()
    server.stderr(f"task {task.task_id} started for {spec.name}")
    return {
        "task": task.to_json(),
        "_meta": {
            "io.modelcontextprotocol/model-immediate-response": f"{spec.name} is running as a task"
        },
    }


def _tasks_version(server: DemoServer) -> None:
    if not at_least(server.state.protocol_version, "2025-11-25"):
        raise RpcError(METHOD_NOT_FOUND, "Method not found: tasks need protocol 2025-11-25")


def tasks_get(server: DemoServer, call: Call) -> dict[str, Any]:
    _tasks_version(server)
    return server.tasks.get(call.params.get("taskId")).to_json()


def tasks_result(server: DemoServer, call: Call) -> dict[str, Any]:
    _tasks_version(server)
    return server.tasks.wait_result(call.params.get("taskId"), call.cancel)


def tasks_list(server: DemoServer, call: Call) -> dict[str, Any]:
    _tasks_version(server)
    return server.tasks.list(call.params.get("cursor"))


def tasks_cancel(server: DemoServer, call: Call) -> dict[str, Any]:
    _tasks_version(server)
    return server.tasks.cancel(call.params.get("taskId"))


def resources_list(server: DemoServer, call: Call) -> dict[str, Any]:
    return resources.list_resources(server.state, call.params.get("cursor"))


def templates_list(server: DemoServer, call: Call) -> dict[str, Any]:
    return resources.list_templates(server.state, call.params.get("cursor"))


def resources_read(server: DemoServer, call: Call) -> dict[str, Any]:
    uri = _str(call.params, "uri")
    return skills.read(uri) or resources.read(server.state, uri)


def skills_list(server: DemoServer, call: Call) -> dict[str, Any]:
    return skills.list_skills()


def skills_get(server: DemoServer, call: Call) -> dict[str, Any]:
    return skills.get_skill(call.params.get("uri"))


def subscribe(server: DemoServer, call: Call) -> dict[str, Any]:
    uri = _str(call.params, "uri")
    resources.read(server.state, uri)  # -32002 for unknown resources
    with server.state.lock:
        server.state.subscriptions.add(uri)
    if uri == resources.COUNTER_URI:
        server.start_ticker()
    return {}


def unsubscribe(server: DemoServer, call: Call) -> dict[str, Any]:
    uri = _str(call.params, "uri")
    with server.state.lock:
        server.state.subscriptions.discard(uri)
    return {}


def prompts_list(server: DemoServer, call: Call) -> dict[str, Any]:
    return prompts.list_prompts(server.state)


def prompts_get(server: DemoServer, call: Call) -> dict[str, Any]:
    arguments = _dict(call.params, "arguments")
    return prompts.get_prompt(server.state, _str(call.params, "name"), arguments)


def complete(server: DemoServer, call: Call) -> dict[str, Any]:
    ref, argument = _dict(call.params, "ref"), _dict(call.params, "argument")
    name, value = _str(argument, "name"), argument.get("value", "")
    if not isinstance(value, str):
        raise RpcError(INVALID_PARAMS, "Invalid params: argument.value must be a string")
    context = _dict(_dict(call.params, "context"), "arguments")
    if ref.get("type") == "ref/prompt":
        found = prompts.complete_prompt(server.state, _str(ref, "name"), name, value)
    elif ref.get("type") == "ref/resource":
        found = resources.complete_template(server.state, _str(ref, "uri"), name, value, context)
    else:
        raise RpcError(INVALID_PARAMS, f"Invalid params: unknown ref type {ref.get('type')!r}")
    return {"completion": found}


HANDLERS: dict[str, Callable[[DemoServer, Call], Any]] = {
    "initialize": initialize,
    "ping": ping,
    "logging/setLevel": set_level,
    "tools/list": tools_list,
    "tools/call": tools_call,
    "resources/list": resources_list,
    "resources/templates/list": templates_list,
    "resources/read": resources_read,
    "resources/subscribe": subscribe,
    "resources/unsubscribe": unsubscribe,
    "prompts/list": prompts_list,
    "prompts/get": prompts_get,
    "completion/complete": complete,
    "tasks/get": tasks_get,
    "tasks/result": tasks_result,
    "tasks/list": tasks_list,
    "tasks/cancel": tasks_cancel,
    "skills/list": skills_list,
    "skills/get": skills_get,
}
