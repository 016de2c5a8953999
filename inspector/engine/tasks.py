"""Tasks: call a tool as a task, poll it, fetch its result, cancel; in both eras.

2025-11-25 (experimental core tasks): the client asks with ``task`` on ``tools/call``, polls
``tasks/get``, fetches ``tasks/result``. 2026-07-28 (the ``io.modelcontextprotocol/tasks``
extension, declared on every stateless request): the server decides, answering
``tools/call`` with ``resultType: "task"``; ``tasks/get`` carries the result or error once
terminal, an ``input_required`` task's ``inputRequests`` are answered with ``tasks/update``,
``tasks/cancel`` is only an acknowledgement, and there is no ``tasks/list``.

    tasks = TaskManager(session)
    state = await tasks.call_tool("slow_count", {"seconds": 2}, ttl=60_000)
    state = await tasks.follow(state.task_id)     # tasks/get at pollInterval, then tasks/result
    state.result                                   # the CallToolResult (or state.error)
    state = await tasks.run("slow_count", {})      # both: created, then followed in the
                                                   # background for the session's life

The manager keeps the last known state of every task it has seen (created here,
listed, or announced by ``notifications/tasks/status``) and tells listeners about
each change, so a view can redraw without polling on its own. Headless: no Textual.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from itertools import count
from time import monotonic
from typing import Any

import anyio

from inspector.engine.era import TASKS, answer_input
from inspector.engine.pending import ProgressCallback
from inspector.engine.session import Session
from inspector.wire.jsonrpc import INTERNAL_ERROR, RpcError

log = logging.getLogger(__name__)

TERMINAL = frozenset({"completed", "failed", "cancelled"})
STATUSES = ("working", "input_required", "completed", "failed", "cancelled")
RELATED_TASK = "io.modelcontextprotocol/related-task"
IMMEDIATE = "io.modelcontextprotocol/model-immediate-response"
EXTENSION = TASKS  # the 2026-07-28 Tasks extension
DEFAULT_POLL = 1.0  # seconds, when the server suggests no pollInterval
MIN_POLL = 0.05  # a server asking for 0 ms must not make us spin
MAX_POLL = 30.0
MAX_PAGES = 1000
IMMEDIATE_PREFIX = "no-task-"  # a call the server answered at once (2026-07-28)

Listener = Callable[["TaskState"], None]


@dataclass
class TaskState:
    """What we know of one task: the server's Task object plus what we fetched."""

    task_id: str
    status: str = "working"
    status_message: str | None = None
    created_at: str | None = None
    last_updated_at: str | None = None
    ttl: int | None = None
    poll_interval: float | None = None  # seconds
    tool: str | None = None
    arguments: dict[str, Any] | None = None
    immediate: str | None = None  # the model-immediate-response hint, if any
    result: dict[str, Any] | None = None
    error: RpcError | None = None
    raw: dict[str, Any] = field(default_factory=dict)
    seen: float = field(default_factory=monotonic)  # when we first heard of it
    progress: float | None = None
    total: float | None = None
    progress_message: str | None = None

    @property
    def terminal(self) -> bool:
        return self.status in TERMINAL

    @property
    def fetched(self) -> bool:
        """The final outcome is known (a result or an error from tasks/result)."""
        return self.result is not None or self.error is not None

    def update(self, task: dict[str, Any]) -> None:
        """Take in a Task object (from tasks/get, tasks/list, cancel or a notification)."""
        self.raw = dict(task)
        status = task.get("status")
        if isinstance(status, str):
            self.status = status
        message = task.get("statusMessage")
        self.status_message = message if isinstance(message, str) else None
        for key, attr in (("createdAt", "created_at"), ("lastUpdatedAt", "last_updated_at")):
            value = task.get(key)
            if isinstance(value, str):
                setattr(self, attr, value)
        ttl = task.get("ttl", task.get("ttlMs"))  # 2025-11-25 / the 2026-07-28 extension
        self.ttl = ttl if isinstance(ttl, int) and not isinstance(ttl, bool) else None
        interval = task.get("pollInterval", task.get("pollIntervalMs"))
        if isinstance(interval, int | float) and not isinstance(interval, bool):
            self.poll_interval = interval / 1000.0
        # the extension inlines the outcome in a terminal task
        if self.status == "completed" and isinstance(task.get("result"), dict):
            self.result, self.error = dict(task["result"]), None
        elif self.status == "failed" and isinstance(task.get("error"), dict):
            self.error = RpcError.from_error(task["error"])


def is_task_result(result: Any) -> bool:
    """A 2026-07-28 ``CreateTaskResult`` (the extension's ``resultType: "task"``)."""
    return (
        isinstance(result, dict)
        and result.get("resultType") == "task"
        and isinstance(result.get("taskId"), str)
    )


def server_has_extension(capabilities: dict[str, Any]) -> bool:
    """The server declared the Tasks extension (``capabilities.extensions``)."""
    extensions = capabilities.get("extensions")
    return isinstance(extensions, dict) and isinstance(extensions.get(EXTENSION), dict)


def task_support(tool: dict[str, Any]) -> str:
    """A tool's ``execution.taskSupport``: ``forbidden`` (default), ``optional``, ``required``."""
    execution = tool.get("execution")
    value = execution.get("taskSupport") if isinstance(execution, dict) else None
    return value if value in ("optional", "required") else "forbidden"


def server_accepts_tool_tasks(capabilities: dict[str, Any]) -> bool:
    """The server declared ``tasks.requests.tools.call`` (or, at 2026-07-28, the Tasks
    extension: tools/call is the one method it covers)."""
    if server_has_extension(capabilities):
        return True
    tasks = capabilities.get("tasks")
    requests = tasks.get("requests") if isinstance(tasks, dict) else None
    tools = requests.get("tools") if isinstance(requests, dict) else None
    return isinstance(tools, dict) and isinstance(tools.get("call"), dict)


def can_run_as_task(capabilities: dict[str, Any], tool: dict[str, Any]) -> bool:
    """The spec lets us add ``task`` to this tool's calls (capability and taskSupport)."""
    return server_accepts_tool_tasks(capabilities) and task_support(tool) != "forbidden"


def must_run_as_task(capabilities: dict[str, Any], tool: dict[str, Any]) -> bool:
    return server_accepts_tool_tasks(capabilities) and task_support(tool) == "required"


class TaskManager:
    """Tasks on one session: create, poll, fetch, list and cancel; listeners see changes."""

    def __init__(
        self,
        session: Session,
        *,
        default_poll: float = DEFAULT_POLL,
        result_timeout: float | None = None,
    ) -> None:
        self.session = session
        self.default_poll = default_poll
        # tasks/result blocks until the task ends: give it the session's hard maximum.
        self.result_timeout = result_timeout if result_timeout is not None else session.max_timeout
        self.tasks: dict[str, TaskState] = {}
        self._listeners: list[Listener] = []
        self._tokens: dict[str, TaskState] = {}
        self._token_ids = count(1)
        self._fetching: set[str] = set()
        self._on_progress_callbacks: dict[str, ProgressCallback | None] = {}
        self._answered: dict[str, set[str]] = {}  # 2026-07-28: inputRequests keys answered
        session.on_notification("notifications/tasks/status", self._on_status)
        session.on_notification("notifications/progress", self._on_progress)

    # -- capabilities ------------------------------------------------------------------

    @property
    def extension(self) -> bool:
        """Tasks are the 2026-07-28 extension's (server-directed), not 2025-11-25's."""
        return self.session.era.stateless

    @property
    def can_list(self) -> bool:
        if self.extension:  # the extension has no tasks/list
            return False
        tasks = self.session.server_capabilities.get("tasks")
        return isinstance(tasks, dict) and isinstance(tasks.get("list"), dict)

    @property
    def can_cancel(self) -> bool:
        if self.extension:
            return server_has_extension(self.session.server_capabilities)
        tasks = self.session.server_capabilities.get("tasks")
        return isinstance(tasks, dict) and isinstance(tasks.get("cancel"), dict)

    def can_run(self, tool: dict[str, Any]) -> bool:
        return can_run_as_task(self.session.server_capabilities, tool)

    # -- listeners ---------------------------------------------------------------------

    def add_listener(self, listener: Listener) -> None:
        self._listeners.append(listener)

    def remove_listener(self, listener: Listener) -> None:
        if listener in self._listeners:
            self._listeners.remove(listener)

    def _changed(self, state: TaskState) -> None:
        for listener in list(self._listeners):
            try:
                listener(state)
            except Exception:  # a view's bug must not stop the polling
                log.exception("task listener failed")

    def _state(self, task: dict[str, Any]) -> TaskState | None:
        task_id = task.get("taskId")
        if not isinstance(task_id, str):
            return None
        state = self.tasks.get(task_id)
        if state is None:
            state = self.tasks[task_id] = TaskState(task_id)
        state.update(task)
        return state

    # -- requests ----------------------------------------------------------------------

    async def call_tool(
        self,
        name: str,
        arguments: dict[str, Any] | None = None,
        *,
        ttl: int | None = None,
        on_progress: ProgressCallback | None = None,
    ) -> TaskState:
        """``tools/call`` with ``task``; returns the created task (raises ``RpcError``).

        2026-07-28: the server decides; one that answers at once gives a finished state
        (``immediate_id``) holding the result."""
        task_param: dict[str, Any] = {} if ttl is None else {"ttl": ttl}
        token = f"task-progress-{next(self._token_ids)}"
        params: dict[str, Any] = {
            "name": name,
            "arguments": arguments or {},
            "task": task_param,
            "_meta": {"progressToken": token},
        }
        if self.extension:
            del params["task"]  # server-directed: the declared extension is the whole ask
        result = await self.session.request("tools/call", params)
        if self.extension and not is_task_result(result):
            return self._answered_at_once(name, arguments, result)
        state = self.adopt(result, name, arguments)
        # The progress token stays valid for the task's whole life (spec: task progress).
        self._tokens[token] = state
        self._on_progress_callbacks[token] = on_progress
        return state

    async def run(
        self, name: str, arguments: dict[str, Any] | None = None, *, ttl: int | None = None
    ) -> TaskState:
        """Create the task (raises ``RpcError``), then follow it to its outcome in the
        background, for as long as the session lives; listeners see every change."""
        state = await self.call_tool(name, arguments, ttl=ttl)
        self.session.start_soon(self._follow_in_background, state.task_id)
        return state

    async def _follow_in_background(self, task_id: str) -> None:
        try:
            await self.follow(task_id)
        except RpcError as exc:  # tasks/get failed or the connection went: the state says
            log.info("following task %s stopped: %s", task_id, exc.message)  # what it knew

    def adopt(self, result: Any, name: str, arguments: dict[str, Any] | None = None) -> TaskState:
        """The task a ``tools/call`` answered with (2025-11-25 ``task``, or the 2026-07-28
        extension's flat ``resultType: "task"``), kept and announced; ``RpcError`` when
        the answer holds none."""
        if is_task_result(result):
            task = result
        else:
            task = result.get("task") if isinstance(result, dict) else None
        state = self._state(task) if isinstance(task, dict) else None
        if state is None:
            raise RpcError(
                INTERNAL_ERROR,
                f"tools/call with a task did not return a CreateTaskResult: {result!r}",
                result,
            )
        state.tool, state.arguments = name, dict(arguments or {})
        meta = result.get("_meta") if isinstance(result, dict) else None
        hint = meta.get(IMMEDIATE) if isinstance(meta, dict) else None
        state.immediate = hint if isinstance(hint, str) else None
        self._changed(state)
        return state

    def _answered_at_once(
        self, name: str, arguments: dict[str, Any] | None, result: Any
    ) -> TaskState:
        state = TaskState(f"{IMMEDIATE_PREFIX}{next(self._token_ids)}", status="completed")
        state.status_message = "the server answered at once (it made no task)"
        state.tool, state.arguments = name, dict(arguments or {})
        state.result = result if isinstance(result, dict) else {"value": result}
        self.tasks[state.task_id] = state
        self._changed(state)
        return state

    async def get(self, task_id: str) -> TaskState:
        """``tasks/get``: the task's current status (2026-07-28: and, once terminal, its
        result or error)."""
        result = await self.session.request("tasks/get", {"taskId": task_id})
        state = self._state({**(result if isinstance(result, dict) else {}), "taskId": task_id})
        assert state is not None
        self._changed(state)
        return state

    async def result(self, task_id: str) -> TaskState:
        """``tasks/result``: blocks until the task ends; the outcome lands on the state.
        (2026-07-28 has no tasks/result: the task is polled to its end instead.)"""
        state = self.tasks.setdefault(task_id, TaskState(task_id))
        if self.extension:
            return state if state.terminal else await self.follow(task_id)
        self._fetching.add(task_id)
        try:
            result = await self.session.request(
                "tasks/result", {"taskId": task_id}, timeout=self.result_timeout
            )
            state.result = result if isinstance(result, dict) else {"value": result}
            state.error = None
        except RpcError as exc:
            state.error = exc
        finally:
            self._fetching.discard(task_id)
        self._changed(state)
        return state

    async def list(self) -> list[TaskState]:
        """``tasks/list``, every page; each task's state is updated."""
        states: list[TaskState] = []
        cursor: str | None = None
        seen: set[str] = set()
        for _ in range(MAX_PAGES):
            params = {"cursor": cursor} if cursor is not None else {}
            result = await self.session.request("tasks/list", params)
            for task in (result.get("tasks") or []) if isinstance(result, dict) else []:
                state = self._state(task) if isinstance(task, dict) else None
                if state is not None:
                    states.append(state)
                    self._changed(state)
            cursor = result.get("nextCursor") if isinstance(result, dict) else None
            if not isinstance(cursor, str) or not cursor or cursor in seen:
                break
            seen.add(cursor)
        return states

    async def cancel(self, task_id: str) -> TaskState:
        """``tasks/cancel``; the answer is the task, now ``cancelled`` (2026-07-28: only
        an acknowledgement; the task's status is asked for after it)."""
        if self.extension:
            await self.session.request("tasks/cancel", {"taskId": task_id})
            return await self.get(task_id)
        result = await self.session.request("tasks/cancel", {"taskId": task_id})
        state = self._state({**(result if isinstance(result, dict) else {}), "taskId": task_id})
        assert state is not None
        self._changed(state)
        return state

    async def follow(self, task_id: str, *, max_wait: float | None = None) -> TaskState:
        """Poll ``tasks/get`` at the server's pollInterval until the task ends, then fetch
        the result. On ``input_required`` it calls ``tasks/result`` early (the spec's way
        for the server to deliver its requests) and keeps polling meanwhile."""
        state = self.tasks.setdefault(task_id, TaskState(task_id))
        limit = max_wait if max_wait is not None else self.session.max_timeout
        async with anyio.create_task_group() as tg:
            with anyio.move_on_after(limit):
                while not state.terminal:
                    await anyio.sleep(self._interval(state))
                    if state.terminal:  # a status notification may have said so
                        break
                    state = await self.get(task_id)
                    if state.status == "input_required" and self.extension:
                        tg.start_soon(self._update, state)
                    elif state.status == "input_required" and task_id not in self._fetching:
                        self._fetching.add(task_id)
                        tg.start_soon(self.result, task_id)
            if not state.terminal:
                tg.cancel_scope.cancel()  # gave up waiting: stop an early tasks/result too
            elif not state.fetched and task_id not in self._fetching and not self.extension:
                await self.result(task_id)
        return state

    async def _update(self, state: TaskState) -> None:
        """2026-07-28: answer an ``input_required`` task's new ``inputRequests`` (each key
        once: a poll repeats the outstanding ones) with ``tasks/update``."""
        requests = state.raw.get("inputRequests")
        asks = requests if isinstance(requests, dict) else {}
        answered = self._answered.setdefault(state.task_id, set())
        fresh = {key: ask for key, ask in asks.items() if key not in answered}
        if not fresh:
            return
        answered.update(fresh)
        responses = {key: await answer_input(self.session, key, ask) for key, ask in fresh.items()}
        await self.session.request(
            "tasks/update", {"taskId": state.task_id, "inputResponses": responses}
        )

    def _interval(self, state: TaskState) -> float:
        wanted = state.poll_interval if state.poll_interval is not None else self.default_poll
        return min(MAX_POLL, max(MIN_POLL, wanted))

    # -- notifications -----------------------------------------------------------------

    def _on_status(self, params: dict[str, Any]) -> None:
        state = self._state(params)
        if state is not None:
            self._changed(state)

    def _on_progress(self, params: dict[str, Any]) -> None:
        token = params.get("progressToken")
        state = self._tokens.get(token) if isinstance(token, str) else None
        if state is None:
            return
        progress, total = params.get("progress"), params.get("total")
        if isinstance(progress, int | float):
            state.progress = float(progress)
        state.total = float(total) if isinstance(total, int | float) else None
        message = params.get("message")
        state.progress_message = message if isinstance(message, str) else None
        callback = self._on_progress_callbacks.get(str(token))
        if callback is not None and state.progress is not None:
            try:
                callback(state.progress, state.total, state.progress_message)
            except Exception:
                log.exception("task progress callback failed")
        self._changed(state)
