"""The tools that open, list and use connections: connect, disconnect, list, call, read,
get_prompt, request."""

from __future__ import annotations

from typing import Any

from inspector.bridge.answers import ANSWERS_SCHEMA
from inspector.bridge.bounded import DEFAULT_MAX_CHARS, bounded_list, shrink
from inspector.bridge.connections import BridgeError, Connections, Live
from inspector.bridge.exchange import exchange, failure_message
from inspector.bridge.schema import (
    CONNECTION,
    FINDINGS,
    MAX_CHARS,
    Tool,
    any_object,
    anything,
    integer,
    obj,
    string,
)
from inspector.bridge.targets import auth_failure, target_of
from inspector.engine.era import is_stateless
from inspector.engine.kinds import CATALOG_KINDS, KIND
from inspector.engine.session import Session

LIST_LIMIT = 100  # items a list page holds by default
LINE = 120  # characters of a description in a default listing

EXCHANGE_OUTPUT = obj(
    ("result", "latency_ms", "size", "truncated", "findings"),
    result=anything("The server's result (shrunk when over max_chars: see whole)."),
    latency_ms={"type": "number", "description": "Milliseconds from send to answer."},
    size=integer("Characters of the whole result as JSON."),
    truncated={"type": "boolean", "description": "Whether result was shrunk."},
    whole=string("How to page the whole result when it was shrunk."),
    seq=integer("The answer's frame in the connection's log."),
    findings=FINDINGS,
    serverRequests={
        "type": "array",
        "description": "The server's own requests during the call and how they were answered.",
        "items": obj(method=string("The request."), answer=string("How it was answered.")),
    },
    outputSchema={
        **obj(
            status=string("not checked, matches, missing or mismatch."),
            issues={"type": "array", "items": string("One mismatch: path and message.")},
        ),
        "description": "The result's structuredContent checked against the tool's outputSchema.",
    },
    argumentIssues={
        "type": "array",
        "description": "Where the arguments do not match the tool's inputSchema (sent anyway).",
        "items": string("One problem: path and message."),
    },
)


def one_line(text: Any) -> str | None:
    if not isinstance(text, str):
        return None
    line = " ".join(text.split())
    return line if len(line) <= LINE else line[: LINE - 3] + "..."


class SessionTools:
    """connect ... request, over one set of connections."""

    def __init__(self, connections: Connections) -> None:
        self.connections = connections

    def tools(self) -> list[Tool]:
        return [
            Tool(
                "connect",
                "Connect to an MCP server and open a session (recorded to a session file). "
                "target: a command line ('python server.py'), a URL (with headers), or a "
                "server name of a config file (config). Returns a connection id for the "
                "other tools, the server's info, protocol version, capabilities and counts.",
                obj(
                    (),
                    target=string("A command line, an http(s) URL, or a config server name."),
                    headers={
                        "type": "object",
                        "description": "HTTP headers to send (e.g. Authorization).",
                        "additionalProperties": {"type": "string"},
                    },
                    env={
                        "type": "object",
                        "description": "Environment variables for a stdio server.",
                        "additionalProperties": {"type": "string"},
                    },
                    cwd=string("Working directory for a stdio server."),
                    config=string("A config file (mcp.json style) naming servers."),
                ),
                obj(
                    ("connection", "serverInfo", "capabilities", "counts"),
                    connection=string("The connection id."),
                    target=string("What was connected to."),
                    serverInfo=any_object("The server's name, version..."),
                    protocolVersion=string("The protocol version agreed."),
                    era=string("handshake (initialize) or stateless (2026-07-28)."),
                    capabilities=any_object("The server's capabilities."),
                    instructions=string("The server's instructions, if any."),
                    counts=any_object("Items per kind (tools, resources...); null: failed."),
                    recording=string("The session file this connection is recorded to."),
                    watch=string("The command a person runs to watch it live in the TUI."),
                ),
                self.connect,
            ),
            Tool(
                "disconnect",
                "Close a connection: the session ends and a stdio server's processes stop. "
                "Its session file stays (see recording in connect).",
                obj(("connection",), connection=CONNECTION),
                obj(
                    ("connection", "closed"),
                    connection=string("The connection id."),
                    closed={"type": "boolean", "description": "Always true."},
                    recording=string("The session file (open it with mcp-inspect replay)."),
                ),
                self.disconnect,
            ),
            Tool(
                "connections",
                "The open connections: id, target, server, protocol version, whether the "
                "server is still there, frames logged, recording and watch command.",
                obj(),
                obj(
                    ("connections",),
                    connections={
                        "type": "array",
                        "items": obj(
                            ("connection", "target", "open"),
                            connection=string("The connection id."),
                            target=string("What it connects to."),
                            server=string("The server's name and version."),
                            protocolVersion=string("The protocol version agreed."),
                            open={"type": "boolean", "description": "False: the server is gone."},
                            lost=string("Why the connection was lost, when it was."),
                            frames=integer("Frames in its log."),
                            recording=string("Its session file."),
                            watch=string("The command a person runs to watch it."),
                        ),
                    },
                ),
                self.connections_open,
            ),
            Tool(
                "list",
                "List a connection's tools, resources, resource_templates or prompts: names "
                "and one-line descriptions by default (paged with cursor and limit); "
                "full=true, or name, gives whole items (schemas included).",
                obj(
                    ("connection",),
                    connection=CONNECTION,
                    kind=string(
                        "What to list (default tools).", enum=[k.name for k in CATALOG_KINDS]
                    ),
                    full={"type": "boolean", "description": "Whole items, not one-liners."},
                    name=string("Only the item with this name (or URI): given whole."),
                    cursor=integer(
                        "Where the page starts (next_cursor of the last page).", minimum=0
                    ),
                    limit=integer("Items per page (default 100).", minimum=1),
                    max_chars=MAX_CHARS,
                ),
                obj(
                    ("kind", "total", "items"),
                    kind=string("What was listed."),
                    total=integer("Items in the whole list."),
                    items={"type": "array", "items": any_object("One item.")},
                    next_cursor=integer("The next page's cursor (absent: the last page)."),
                    truncated={"type": "boolean", "description": "Items were shrunk."},
                    findings=FINDINGS,
                ),
                self.list,
            ),
            Tool(
                "call",
                "Call a tool. Returns the result, latency_ms, the outputSchema check, the "
                "protocol findings and the seq of the answer in the log; arguments that do "
                "not match the inputSchema are reported (and sent anyway: the server's "
                "answer to them is the test). Server requests during the call are answered "
                "by answers (declined by default).",
                obj(
                    ("connection", "tool"),
                    connection=CONNECTION,
                    tool=string("The tool's name."),
                    arguments=any_object("The tool's arguments (default {})."),
                    answers=ANSWERS_SCHEMA,
                    max_chars=MAX_CHARS,
                ),
                EXCHANGE_OUTPUT,
                self.call,
            ),
            Tool(
                "read",
                "Read a resource by URI (resources/read).",
                obj(
                    ("connection", "uri"),
                    connection=CONNECTION,
                    uri=string("The resource's URI."),
                    max_chars=MAX_CHARS,
                ),
                EXCHANGE_OUTPUT,
                self.read,
            ),
            Tool(
                "get_prompt",
                "Get a prompt with its arguments (prompts/get).",
                obj(
                    ("connection", "name"),
                    connection=CONNECTION,
                    name=string("The prompt's name."),
                    arguments={
                        "type": "object",
                        "description": "The prompt's arguments (strings).",
                        "additionalProperties": {"type": "string"},
                    },
                    max_chars=MAX_CHARS,
                ),
                EXCHANGE_OUTPUT,
                self.get_prompt,
            ),
            Tool(
                "request",
                "Send any JSON-RPC request (method and params) and get its result: for "
                "methods the other tools do not cover (ping, completion/complete, "
                "logging/setLevel, a vendor method...).",
                obj(
                    ("connection", "method"),
                    connection=CONNECTION,
                    method=string("The JSON-RPC method."),
                    params=any_object("The params object (default none)."),
                    answers=ANSWERS_SCHEMA,
                    max_chars=MAX_CHARS,
                ),
                EXCHANGE_OUTPUT,
                self.request,
            ),
        ]

    # -- connect, disconnect ---------------------------------------------------------------

    async def connect(self, args: dict[str, Any]) -> dict[str, Any]:
        target = target_of(args)
        try:
            live = await self.connections.open(target)
        except BridgeError:
            raise
        except Exception as exc:
            auth = auth_failure(target, exc)
            if auth is not None:
                raise auth from exc
            raise BridgeError(
                f"could not connect to {target.describe()}: "
                f"{failure_message_text(exc)}; check the command or URL and that the "
                "server starts on its own"
            ) from exc
        session, _ = live.ready()
        counts, errors = await self._counts(live)
        out: dict[str, Any] = {
            "connection": live.id,
            "target": target.describe(),
            "serverInfo": shrink(session.server_info),  # icons may be data: URIs
            "protocolVersion": session.protocol_version,
            "era": "stateless" if is_stateless(session.protocol_version) else "handshake",
            "capabilities": session.server_capabilities,
            "counts": counts,
        }
        if session.instructions:
            out["instructions"] = session.instructions
        if errors:
            out["listErrors"] = errors
        if live.recording is not None:
            out["recording"] = str(live.recording)
        if live.watch is not None:
            out["watch"] = f"mcp-inspect attach {live.watch}"
        return out

    async def _counts(self, live: Live) -> tuple[dict[str, int | None], dict[str, str]]:
        session, client = live.ready()
        counts: dict[str, int | None] = {}
        errors: dict[str, str] = {}
        for kind in CATALOG_KINDS:
            if kind.capability not in session.server_capabilities:
                continue
            try:
                items = await client.list_all(kind.name)
                counts[kind.name] = len(items)
                if kind.name == "tools":
                    live.tools = items
            except Exception as exc:
                counts[kind.name] = None
                errors[kind.name] = str(failure_message(live, kind.method, exc))
        return counts, errors

    async def disconnect(self, args: dict[str, Any]) -> dict[str, Any]:
        live = self.connections.get(args.get("connection"))
        await self.connections.close(live)
        out: dict[str, Any] = {"connection": live.id, "closed": True}
        if live.recording is not None:
            out["recording"] = str(live.recording)
        return out

    async def connections_open(self, args: dict[str, Any]) -> dict[str, Any]:
        rows = []
        for live in self.connections.open_ones.values():
            session = live.session
            row: dict[str, Any] = {
                "connection": live.id,
                "target": live.target.describe(),
                "open": session is not None and not session.closed and session.lost is None,
                "frames": len(live.store),
            }
            if session is not None:
                info = session.server_info
                row["server"] = f"{info.get('name', '?')} {info.get('version', '')}".strip()
                if session.protocol_version:
                    row["protocolVersion"] = session.protocol_version
                if session.lost is not None:
                    row["lost"] = session.lost.describe()
            if live.recording is not None:
                row["recording"] = str(live.recording)
            if live.watch is not None:
                row["watch"] = f"mcp-inspect attach {live.watch}"
            rows.append(row)
        return {"connections": rows}

    # -- list ------------------------------------------------------------------------------

    async def list(self, args: dict[str, Any]) -> dict[str, Any]:
        live = self.connections.get(args.get("connection"))
        name = str(args.get("kind") or "tools")
        kind = KIND.get(name)
        if kind is None:
            raise BridgeError(f"kind {name!r}: use one of {', '.join(KIND)}")
        _, client = live.ready()
        start = len(live.store)
        try:
            items = await client.list_all(kind.name)
        except Exception as exc:
            raise failure_message(live, kind.method, exc) from exc
        if kind.name == "tools":
            live.tools = items
        from inspector.bridge.exchange import findings_between

        findings = findings_between(live.store, start, len(live.store))
        wanted = args.get("name")
        if wanted is not None:
            items = [i for i in items if i.get(kind.identity) == wanted or i.get("name") == wanted]
            if not items:
                raise BridgeError(
                    f"{live.id} lists no {kind.name} named {wanted!r}; "
                    f"list {{connection: {live.id!r}, kind: {kind.name!r}}} shows the names"
                )
        offset = max(0, int(args.get("cursor") or 0))
        limit = max(1, int(args.get("limit") or LIST_LIMIT))
        page = items[offset : offset + limit]
        full = bool(args.get("full")) or wanted is not None
        shown = page if full else [self._brief(kind.identity, i) for i in page]
        max_chars = int(args.get("max_chars") or DEFAULT_MAX_CHARS)
        bounded_items, cut = bounded_list(shown, max_chars)
        out: dict[str, Any] = {
            "kind": kind.name,
            "total": len(items),
            "items": bounded_items,
            "truncated": cut,
            "findings": findings,
        }
        if offset + limit < len(items):
            out["next_cursor"] = offset + limit
        return out

    @staticmethod
    def _brief(identity: str, item: dict[str, Any]) -> dict[str, Any]:
        brief: dict[str, Any] = {identity: item.get(identity)}
        if identity != "name" and "name" in item:
            brief["name"] = item.get("name")
        line = one_line(item.get("description"))
        if line:
            brief["description"] = line
        return brief

    # -- call, read, get_prompt, request ---------------------------------------------------

    async def call(self, args: dict[str, Any]) -> dict[str, Any]:
        live = self.connections.get(args.get("connection"))
        _, client = live.ready()
        name = args.get("tool")
        if not isinstance(name, str):
            raise BridgeError("call needs tool: the tool's name")
        arguments = args.get("arguments") or {}
        if not isinstance(arguments, dict):
            raise BridgeError("arguments must be an object")
        tool = await self._tool(live, name)
        from inspector.forms.arguments import check_arguments
        from inspector.forms.output import check_output, issue_path

        issues = check_arguments(tool.get("inputSchema") or {}, arguments)

        async def send(session: Session) -> Any:
            return await client.call_tool(name, arguments)

        out = await exchange(
            live, "tools/call", send, _max_chars(args), answers=args.get("answers")
        )
        if issues:
            out["argumentIssues"] = [f"{issue_path(i)}: {i.message}" for i in issues]
        result = out["result"] if not out["truncated"] else None
        if result is not None:
            checked = check_output(tool.get("outputSchema"), result)
            out["outputSchema"] = {
                "status": str(checked.status),
                "issues": [f"{issue_path(i)}: {i.message}" for i in checked.issues],
            }
        else:
            out["outputSchema"] = {"status": "not checked (result too big to check here)"}
        return out

    async def _tool(self, live: Live, name: str) -> dict[str, Any]:
        _, client = live.ready()
        if live.tools is None:  # listed once, again after notifications/tools/list_changed
            try:
                live.tools = await client.list_tools()
            except Exception as exc:
                raise failure_message(live, "tools/list", exc) from exc
        tools = live.tools
        for tool in tools:
            if tool.get("name") == name:
                return tool
        import difflib

        names = [str(t.get("name")) for t in tools]
        close = difflib.get_close_matches(name, names, n=3)
        hint = f"; did you mean {' or '.join(close)}?" if close else ""
        raise BridgeError(
            f"{live.id} has no tool {name!r}{hint} (it lists {len(names)}: "
            f"{', '.join(names[:20])}); nothing was sent"
        )

    async def read(self, args: dict[str, Any]) -> dict[str, Any]:
        live = self.connections.get(args.get("connection"))
        _, client = live.ready()
        uri = str(args.get("uri") or "")

        async def send(session: Session) -> Any:
            return await client.read_resource(uri)

        return await exchange(live, "resources/read", send, _max_chars(args))

    async def get_prompt(self, args: dict[str, Any]) -> dict[str, Any]:
        live = self.connections.get(args.get("connection"))
        _, client = live.ready()
        name = str(args.get("name") or "")
        arguments = args.get("arguments") or None

        async def send(session: Session) -> Any:
            return await client.get_prompt(name, arguments)

        return await exchange(live, "prompts/get", send, _max_chars(args))

    async def request(self, args: dict[str, Any]) -> dict[str, Any]:
        live = self.connections.get(args.get("connection"))
        method = args.get("method")
        if not isinstance(method, str) or not method:
            raise BridgeError("request needs method, e.g. 'ping'")
        params = args.get("params")
        if params is not None and not isinstance(params, dict):
            raise BridgeError("params must be an object")

        async def send(session: Session) -> Any:
            return await session.request(method, params)

        return await exchange(live, method, send, _max_chars(args), answers=args.get("answers"))


def _max_chars(args: dict[str, Any]) -> int:
    value = args.get("max_chars")
    return max(200, int(value)) if isinstance(value, int) else DEFAULT_MAX_CHARS


def failure_message_text(exc: BaseException) -> str:
    from inspector.engine.request_errors import ConnectionClosedError, first_failure

    exc = first_failure(exc)
    if isinstance(exc, ConnectionClosedError):
        return exc.lost.describe()
    return f"{exc}" or type(exc).__name__
