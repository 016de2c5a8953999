"""Jobs run soon by a few long-lived tasks of a task group, instead of a task each.

An HTTP transport runs each request's exchange concurrently with the caller and with the
others. A task each (``start_soon``) cost about a twentieth of the proxy's CPU per relayed
call: anyio's task handle and bookkeeping, made and torn down for every POST. Here a task
that finished its job waits for the next one (a bare asyncio future), and a new task is
started only when none waits: the tasks grow to the number of jobs in flight at once.
The jobs are the task group's as before: its cancellation ends them, a job's uncaught
error is the group's (jobs catch their own: ``_run``)."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable

from anyio.abc import TaskGroup

Job = Callable[[], Awaitable[None]]
IDLE_KEPT = 32  # tasks kept waiting for a job; one more that finds nothing to do ends


class Workers:
    """Runs jobs soon, on tasks of ``task_group`` reused from one job to the next."""

    def __init__(self, task_group: TaskGroup, idle_kept: int = IDLE_KEPT) -> None:
        self._tg = task_group
        self._idle: list[asyncio.Future[Job | None]] = []  # tasks waiting, the latest last
        self._idle_kept = idle_kept
        self._closed = False

    def close(self) -> None:
        """No more jobs: the tasks waiting for one end (a task group that waits for its
        tasks to end by themselves is not held by them)."""
        self._closed = True
        idle, self._idle = self._idle, []
        for waiting in idle:
            if not waiting.done():
                waiting.set_result(None)

    def run_soon(self, job: Job) -> None:
        """Start ``job`` on the next turn of the loop, as ``start_soon`` would."""
        while self._idle:
            waiting = self._idle.pop()
            if not waiting.done():  # not cancelled meanwhile
                waiting.set_result(job)
                return
        self._tg.start_soon(self._work, job)

    async def _work(self, job: Job) -> None:
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:  # not on asyncio: a task for this job only
            await job()
            return
        next_job: Job | None = job
        while next_job is not None:
            await next_job()
            if self._closed or len(self._idle) >= self._idle_kept:
                return
            waiting: asyncio.Future[Job | None] = loop.create_future()
            self._idle.append(waiting)
            try:
                next_job = await waiting
            finally:
                # cancelled while waiting (the group ends): not a task to give jobs to
                if (not waiting.done() or waiting.cancelled()) and waiting in self._idle:
                    self._idle.remove(waiting)
