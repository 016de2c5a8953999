"""One asyncio loop in a native thread, and a gevent-friendly way to wait on it.

Locust patches the standard library for gevent at import. The engine's loop runs in a
native thread with what gevent replaced given back where it would wait on the main
thread's hub: a selector over the real ``epoll``, the real ``subprocess.Popen`` and
``os.waitpid`` (a server process is started and reaped on that thread, through a pidfd
watcher), so nothing of the engine waits on a hub it is not on."""

from __future__ import annotations

import asyncio
import importlib.util
import os
import subprocess
import sys
import types
import warnings
from collections.abc import Coroutine
from concurrent.futures import Future
from typing import Any, TypeVar

import gevent
import gevent.event
from gevent import monkey

from inspector.transports import lifeline

T = TypeVar("T")


def real_selectors() -> types.ModuleType:
    """A private copy of ``selectors`` built over the unpatched ``select``."""
    import select as patched

    real = types.ModuleType("select")
    real.__dict__.update(patched.__dict__)
    for name in ("select", "poll", "epoll"):
        original = monkey.get_original("select", name)
        if original is not None:
            setattr(real, name, original)
    spec = importlib.util.find_spec("selectors")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    saved = sys.modules["select"]
    sys.modules["select"] = real
    try:
        spec.loader.exec_module(module)
    finally:
        sys.modules["select"] = saved
    return module


def unpatch_processes() -> None:
    """The real ``subprocess.Popen`` and ``os.waitpid``: gevent's wait through the main
    hub's child watcher. Locust starts no processes from its greenlets."""
    for name, original in dict(monkey.saved.get("subprocess", {})).items():
        setattr(subprocess, name, original)
    if monkey.is_object_patched("os", "waitpid"):
        os.waitpid = monkey.get_original("os", "waitpid")
    lifeline.start_servers_here()  # its socket and reader thread would be gevent's


class LoopThread:
    """The asyncio loop every MCP session of this process runs on."""

    def __init__(self) -> None:
        unpatch_processes()
        self.loop = asyncio.SelectorEventLoop(real_selectors().DefaultSelector())
        # a real OS thread: under gevent's patches threading.Thread would be a greenlet
        start = monkey.get_original("_thread", "start_new_thread")
        start(self._run, ())

    def _run(self) -> None:
        asyncio.set_event_loop(self.loop)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DeprecationWarning)
            watcher = asyncio.PidfdChildWatcher()
            watcher.attach_loop(self.loop)
            asyncio.set_child_watcher(watcher)
        self.loop.run_forever()

    def call(self, coro: Coroutine[Any, Any, T]) -> T:
        """Run ``coro`` on the loop; the calling greenlet waits, other greenlets run."""
        future: Future[T] = asyncio.run_coroutine_threadsafe(coro, self.loop)
        done = gevent.event.AsyncResult()
        waker = gevent.get_hub().loop.async_()
        waker.start(lambda: done.set(None))
        future.add_done_callback(lambda _: waker.send())
        try:
            if not future.done():
                done.get()
            return future.result()
        finally:
            waker.close()
