"""Tasks (2025-11-25, experimental): task-augmented tools/call, polled and fetched later."""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from inspector.demo.context import RELATED_TASK, now_iso
from inspector.wire.jsonrpc import INTERNAL_ERROR, INVALID_PARAMS, RpcError

DEFAULT_TTL = 300_000  # ms
MAX_TTL = 3_600_000
POLL_INTERVAL = 500  # ms
LIST_PAGE = 20
TERMINAL = frozenset({"completed", "failed", "cancelled"})


@dataclass
class Task:
    task_id: str
    ttl: int
    status: str = "working"
    status_message: str | None = "The operation is now in progress."
    created_at: str = field(default_factory=now_iso)
    last_updated_at: str = field(default_factory=now_iso)
    created: float = field(default_factory=time.monotonic)
    done: threading.Event = field(default_factory=threading.Event)
    cancel: threading.Event = field(default_factory=threading.Event)
    result: dict[str, Any] | None = None
    error: RpcError | None = None

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"taskId": self.task_id, "status": self.status}
        if self.status_message:
            out["statusMessage"] = self.status_message
        out.update(
            createdAt=self.created_at,
            lastUpdatedAt=self.last_updated_at,
            ttl=self.ttl,
            pollInterval=POLL_INTERVAL,
        )
        return out


class TaskStore:
    """Tasks by id. ``on_status`` gets the task JSON after every status change."""

    def __init__(self, on_status: Callable[[dict[str, Any]], None]) -> None:
        self._tasks: dict[str, Task] = {}
        self._lock = threading.Lock()
        self._on_status = on_status

    def create(self, ttl: Any) -> Task:
        wanted = (
            ttl if isinstance(ttl, int) and not isinstance(ttl, bool) and ttl > 0 else DEFAULT_TTL
        )
        task = Task(task_id=os.urandom(12).hex(), ttl=min(wanted, MAX_TTL))
        with self._lock:
            self._purge()
            self._tasks[task.task_id] = task
        return task

    def _purge(self) -> None:
        """Forget finished tasks whose ttl has passed (called with the lock held)."""
        now = time.monotonic()
        for task_id, task in list(self._tasks.items()):
            if task.status in TERMINAL and now - task.created > task.ttl / 1000:
                del self._tasks[task_id]

    def get(self, task_id: Any) -> Task:
        with self._lock:
            self._purge()
            task = self._tasks.get(task_id) if isinstance(task_id, str) else None
        if task is None:
            raise RpcError(INVALID_PARAMS, f"Failed to retrieve task: Task not found: {task_id}")
        return task

    def _set(self, task: Task, status: str, message: str | None) -> bool:
        with self._lock:
            if task.status in TERMINAL or (
                task.status == status and task.status_message == message
            ):
                return False
            task.status, task.status_message = status, message
            task.last_updated_at = now_iso()
            snapshot = task.to_json()
        self._on_status(snapshot)
        return True

    def input_required(self, task: Task, waiting: bool) -> None:
        if waiting:
            self._set(task, "input_required", "Waiting for the client to answer a request.")
        else:
            self._set(task, "working", "The operation is now in progress.")

    def finish(self, task: Task, result: dict[str, Any] | None, error: RpcError | None) -> None:
        """Record the outcome; a tool result with isError makes the task ``failed``."""
        failed = error is not None or bool(result and result.get("isError"))
        with self._lock:
            if task.status not in TERMINAL:
                task.result, task.error = result, error
        message = (
            error.message
            if error
            else ("The tool reported an error." if failed else "The operation completed.")
        )
        self._set(task, "failed" if failed else "completed", message)
        task.done.set()

    def cancel(self, task_id: Any) -> dict[str, Any]:
        task = self.get(task_id)
        task.cancel.set()
        if not self._set(task, "cancelled", "The task was cancelled by request."):
            raise RpcError(
                INVALID_PARAMS, f"Cannot cancel task {task_id}: it is already {task.status}"
            )
        task.done.set()
        return task.to_json()

    def list(self, cursor: Any) -> dict[str, Any]:
        with self._lock:
            self._purge()
            tasks = [t.to_json() for t in self._tasks.values()]
        start = 0
        if cursor is not None:
            if not (isinstance(cursor, str) and cursor.startswith("t") and cursor[1:].isdigit()):
                raise RpcError(INVALID_PARAMS, f"invalid cursor {cursor!r}")
            start = int(cursor[1:])
        out: dict[str, Any] = {"tasks": tasks[start : start + LIST_PAGE]}
        if start + LIST_PAGE < len(tasks):
            out["nextCursor"] = f"t{start + LIST_PAGE}"
        return out

    def wait_result(self, task_id: Any, stop: threading.Event) -> dict[str, Any]:
        """Block until the task is terminal, then return what tools/call would have."""
        task = self.get(task_id)
        while not task.done.wait(0.1):
            if stop.is_set():
                raise RpcError(INTERNAL_ERROR, "tasks/result was cancelled")
        if task.status == "cancelled":
            raise RpcError(
                INTERNAL_ERROR,
                f"Task {task.task_id} was cancelled",
                {"taskId": task.task_id, "status": "cancelled"},
            )
        if task.error is not None:
            raise task.error
        meta = {RELATED_TASK: {"taskId": task.task_id}}
        return {**(task.result or {}), "_meta": meta}
