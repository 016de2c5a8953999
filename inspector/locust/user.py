"""``McpUser``: a Locust user whose calls are MCP calls over one session each."""

from __future__ import annotations

import json
import shlex
import time
from contextlib import AbstractAsyncContextManager
from typing import Any, ClassVar

import anyio
from locust import User, events, task
from locust.env import Environment

from inspector.commands.connect import Connection
from inspector.engine.session import Session
from inspector.errors import InspectorError
from inspector.load.stats import error_kind
from inspector.load.workload import Call, read_workload, tool_call
from inspector.locust.bridge import LoopThread
from inspector.target import target_from_words
from inspector.wire.jsonrpc import RpcError

_loop: LoopThread | None = None


def loop_thread() -> LoopThread:
    global _loop
    if _loop is None:
        _loop = LoopThread()
    return _loop


class CallFailed(InspectorError):
    """What Locust counts as the failure's reason."""


class _Held:
    """A session entered and exited in one task on the loop (a task group's rule)."""

    def __init__(self, opener: AbstractAsyncContextManager[Session]) -> None:
        self.opener = opener
        self.session: Session | None = None
        self._release = anyio.Event()
        self._ready = anyio.Event()
        self._error: BaseException | None = None

    async def open(self) -> Session:
        asyncio_loop = __import__("asyncio").get_running_loop()
        asyncio_loop.create_task(self._hold())
        await self._ready.wait()
        if self._error is not None:
            raise self._error
        assert self.session is not None
        return self.session

    async def _hold(self) -> None:
        try:
            async with self.opener as session:
                self.session = session
                self._ready.set()
                await self._release.wait()
        except Exception as exc:
            self._error = exc
            self._ready.set()

    async def close(self) -> None:
        self._release.set()


class McpUser(User):
    """One MCP session; its task calls ``calls`` in turn (or lists tools, given none).

    Subclass it and set ``target`` (a URL, or a command line) and ``calls``, or use the
    ready locustfile with ``--mcp-target``."""

    abstract = True
    target: ClassVar[str] = ""
    calls: ClassVar[list[Call]] = []
    timeout: ClassVar[float] = 30.0

    def __init__(self, environment: Environment) -> None:
        super().__init__(environment)
        self._held: _Held | None = None
        self._index = 0

    def on_start(self) -> None:
        words = self.target.split() if self.target.startswith("http") else shlex.split(self.target)
        connection = Connection(target_from_words(words), timeout=max(self.timeout, 30.0))
        self._held = _Held(connection)
        started = time.perf_counter()
        try:
            loop_thread().call(self._held.open())
        except Exception as exc:
            self._fire("connect", started, 0, exc)
            raise
        self._fire("connect", started, 0, None)

    def on_stop(self) -> None:
        if self._held is not None:
            loop_thread().call(self._held.close())

    @task
    def call_next(self) -> None:
        calls = self.calls or [Call("tools/list", {})]
        call = calls[self._index % len(calls)]
        self._index += 1
        self.mcp_call(call)

    def mcp_call(self, call: Call) -> Any:
        """One call, reported to Locust; returns its result (None when it failed)."""
        assert self._held is not None and self._held.session is not None
        session = self._held.session
        started = time.perf_counter()
        try:
            result = loop_thread().call(
                session.request(call.method, dict(call.params), timeout=self.timeout)
            )
        except RpcError as exc:
            self._fire(call.label, started, 0, CallFailed(f"{error_kind(exc)}: {exc.message}"))
            return None
        except Exception as exc:
            self._fire(call.label, started, 0, CallFailed(f"{error_kind(exc)}: {exc}"))
            return None
        size = len(json.dumps(result, default=str))
        failed = isinstance(result, dict) and result.get("isError") is True
        self._fire(call.label, started, size, CallFailed("tool_error") if failed else None)
        return result

    def _fire(self, name: str, started: float, size: int, exc: Exception | None) -> None:
        self.environment.events.request.fire(
            request_type="MCP",
            name=name,
            response_time=(time.perf_counter() - started) * 1000,
            response_length=size,
            exception=exc,
            context={},
        )


def _options(parser: Any) -> None:
    group = parser.add_argument_group("mcp-inspect")
    group.add_argument("--mcp-target", default="", help="the server: a URL or a command line")
    group.add_argument("--mcp-tool", default="", help="the tool to call (else tools/list)")
    group.add_argument("--mcp-args", default="{}", help="the tool's arguments as JSON")
    group.add_argument("--mcp-workload", default="", help="a JSON list of calls (as load's)")
    group.add_argument("--mcp-timeout", type=float, default=30.0, help="one call's bound, s")


_parser_hook: Any = events.init_command_line_parser  # Locust's hooks are untyped
_parser_hook.add_listener(_options)


def configure(user_class: type[McpUser], options: Any) -> None:
    """Set ``user_class`` from the ``--mcp-*`` options."""
    from pathlib import Path

    user_class.target = options.mcp_target
    user_class.timeout = options.mcp_timeout
    if options.mcp_workload:
        user_class.calls = read_workload(Path(options.mcp_workload))
    elif options.mcp_tool:
        user_class.calls = [tool_call(options.mcp_tool, json.loads(options.mcp_args))]
