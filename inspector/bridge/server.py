"""The bridge as an MCP server over stdio, on the project's own JSON-RPC layer
(:mod:`inspector.wire.jsonrpc`, as the demo server is).

Why not the official SDK: the inspector's whole point is owning the wire, the engine
already speaks every era this server needs to answer (``initialize`` of each handshake
version, ``-32601`` to the 2026-07-28 ``server/discover`` probe so clients fall back),
and a stdio server of four methods is a small loop; the SDK would make ``mcp`` (with
pydantic, starlette...) a dependency of every install for it.

One JSON-RPC message per line on stdin and stdout (stdout carries nothing else: the
servers the bridge starts get their own pipes); each request runs in its own task, so a
slow ``call`` does not hold up ``log``; ``notifications/cancelled`` cancels it.
"""

from __future__ import annotations

import json
import sys
from typing import IO, Any

import anyio
from anyio.abc import TaskGroup

from inspector import __version__
from inspector.bridge.connections import BridgeError, Connections
from inspector.bridge.inspect_tools import InspectTools
from inspector.bridge.schema import Tool
from inspector.bridge.session_tools import SessionTools
from inspector.bridge.targets import store_only
from inspector.engine.era import HANDSHAKE_VERSIONS, LATEST_VERSION
from inspector.wire.jsonrpc import (
    INTERNAL_ERROR,
    INVALID_PARAMS,
    INVALID_REQUEST,
    METHOD_NOT_FOUND,
    PARSE_ERROR,
    RpcError,
    decode,
    encode,
    error_response,
    response,
)

INSTRUCTIONS = (
    "mcp-inspect's inspector for debugging MCP servers: connect to one (a command line or "
    "URL), list and call its tools, then read the wire log of the failing exchange (log "
    "with filter 'is:error' or seq). Every connection is recorded; replay checks a fix. "
    "`mcp-inspect mcp --skill` prints the workflow."
)


class BridgeServer:
    """Reads requests from ``inp``, writes answers to ``out``; ``run`` ends at EOF."""

    def __init__(self, inp: IO[bytes], out: IO[bytes], *, record: bool = True) -> None:
        self._in = inp
        self._out = out
        self._record = record
        self._write_lock = anyio.Lock()
        self._running: dict[Any, anyio.CancelScope] = {}
        self.tools: dict[str, Tool] = {}

    async def run(self) -> None:
        async with anyio.create_task_group() as group:
            connections = Connections(group, store_only, record=self._record)
            self._connect_tools(connections)
            try:
                await self._read(group)
            finally:
                with anyio.CancelScope(shield=True):
                    await connections.close_all()
                group.cancel_scope.cancel()

    def _connect_tools(self, connections: Connections) -> None:
        for tool in [*SessionTools(connections).tools(), *InspectTools(connections).tools()]:
            self.tools[tool.name] = tool

    async def _read(self, group: TaskGroup) -> None:
        while True:
            line = await anyio.to_thread.run_sync(self._in.readline, abandon_on_cancel=True)
            if not line:
                return
            if not line.strip():
                continue
            message, problem = decode(line)
            if problem is not None:
                await self._send(error_response(None, PARSE_ERROR, f"Parse error: {problem}"))
                continue
            if not isinstance(message, dict):
                await self._send(error_response(None, INVALID_REQUEST, "Invalid Request"))
                continue
            method = message.get("method")
            if "id" in message and isinstance(method, str):
                group.start_soon(self._answer, message)
            elif method == "notifications/cancelled":
                params = message.get("params") or {}
                scope = self._running.get(params.get("requestId"))
                if scope is not None:
                    scope.cancel()

    async def _send(self, message: Any) -> None:
        data = encode(message) + b"\n"
        async with self._write_lock:
            await anyio.to_thread.run_sync(self._write, data)

    def _write(self, data: bytes) -> None:
        self._out.write(data)
        self._out.flush()

    async def _answer(self, message: dict[str, Any]) -> None:
        req_id, method = message["id"], message["method"]
        params = message.get("params") if isinstance(message.get("params"), dict) else {}
        with anyio.CancelScope() as scope:
            self._running[req_id] = scope
            try:
                reply = response(req_id, await self._handle(method, params or {}))
            except RpcError as exc:
                reply = error_response(req_id, exc.code, exc.message)
            except Exception as exc:  # never let one request end the bridge
                reply = error_response(req_id, INTERNAL_ERROR, f"{type(exc).__name__}: {exc}")
            finally:
                self._running.pop(req_id, None)
            await self._send(reply)

    async def _handle(self, method: str, params: dict[str, Any]) -> Any:
        if method == "initialize":
            asked = params.get("protocolVersion")
            version = asked if asked in HANDSHAKE_VERSIONS else LATEST_VERSION
            return {
                "protocolVersion": version,
                "capabilities": {"tools": {"listChanged": False}},
                "serverInfo": {
                    "name": "mcp-inspect",
                    "title": "mcp-inspect bridge",
                    "version": __version__,
                },
                "instructions": INSTRUCTIONS,
            }
        if method == "ping":
            return {}
        if method == "tools/list":
            return {"tools": [tool.listed() for tool in self.tools.values()]}
        if method == "tools/call":
            return await self._call(params)
        raise RpcError(METHOD_NOT_FOUND, f"Method not found: {method}")

    async def _call(self, params: dict[str, Any]) -> dict[str, Any]:
        name = params.get("name")
        tool = self.tools.get(name) if isinstance(name, str) else None
        if tool is None:
            raise RpcError(
                INVALID_PARAMS, f"Unknown tool: {name!r} (tools: {', '.join(self.tools)})"
            )
        arguments = params.get("arguments") or {}
        if not isinstance(arguments, dict):
            return _error_result("arguments must be an object")
        try:
            structured = await tool.handler(arguments)
        except BridgeError as exc:
            return _error_result(str(exc))
        except (ValueError, TypeError) as exc:
            return _error_result(f"{name}: bad arguments: {exc}")
        text = json.dumps(structured, ensure_ascii=False, separators=(",", ":"))
        return {"content": [{"type": "text", "text": text}], "structuredContent": structured}


def _error_result(message: str) -> dict[str, Any]:
    return {"content": [{"type": "text", "text": message}], "isError": True}


def serve(record: bool = True) -> None:
    """Serve on this process's stdin and stdout until stdin closes."""
    server = BridgeServer(sys.stdin.buffer, sys.stdout.buffer, record=record)
    anyio.run(server.run)
