"""Typed MCP calls on top of a session: lists (all pages), calls, reads, completions.

In the stateless era (2026-07-28) change notifications arrive only on a
``subscriptions/listen`` stream: watching a list opens one (for every list the server
says can change), and resource subscriptions re-open it with the new URI set.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import anyio

from inspector.engine.cache import ResultCache
from inspector.engine.kinds import KIND, LIST_CHANGED, changed_by
from inspector.engine.lint import tool_headers
from inspector.engine.lists import ListFollower, Watcher
from inspector.engine.pending import ProgressCallback
from inspector.engine.request_errors import RequestCancelledError
from inspector.engine.session import Session
from inspector.engine.tasks import TaskManager, is_task_result
from inspector.wire import jsonrpc
from inspector.wire.jsonrpc import RequestId, RpcError
from inspector.wire.transport import TransportError

MAX_PAGES = 1000  # a server that loops its cursors must not loop us forever
LISTEN_FLAGS = {
    "tools": "toolsListChanged",
    "prompts": "promptsListChanged",
    "resources": "resourcesListChanged",
}  # capability -> subscription filter key
LISTEN_RETRIES = 5  # listen streams that end without delivering anything, then give up
LISTEN_RETRY_DELAY = 1.0
HEADER_MISMATCH = -32020  # 2026-07-28 HTTP: the headers do not match the body
LOG_LEVELS = ("debug", "info", "notice", "warning", "error", "critical", "alert", "emergency")


class McpClient:
    """The typed MCP calls a user fires from the inspector; results stay plain dicts."""

    def __init__(self, session: Session) -> None:
        self.session = session
        self.lists = ListFollower(
            self.list_all,
            session.start_soon,
            lambda text: session.note(text, severity="warning"),
        )
        self._subscribed: list[str] = []  # stateless: resource URIs on the listen stream
        # resources subscribed to on this session (either era), as the server accepted
        self.subscriptions: set[str] = set()
        self._listen_id: RequestId | None = None
        self._listening = False
        self.listen_closed = False  # the user cancelled the listen stream: not re-opened
        self._tasks: TaskManager | None = None  # tasks the server chose to make (2026-07-28)
        self.cache = ResultCache()  # 2026-07-28 list pages reused while fresh (ttlMs)
        for method in LIST_CHANGED:  # registered first: dropped before any re-listing
            session.on_notification(method, self._drop_cached(method))

    async def list_all(self, kind: str) -> list[dict[str, Any]]:
        """Every item of a ``*/list`` method, following ``nextCursor`` page by page."""
        method, key = KIND[kind].method, KIND[kind].key
        items: list[dict[str, Any]] = []
        cursor: str | None = None
        seen: set[str] = set()
        for _ in range(MAX_PAGES):
            params = {"cursor": cursor} if cursor is not None else None
            result = await self._page(method, params)
            page = result.get(key) if isinstance(result, dict) else None
            items.extend(item for item in page or [] if isinstance(item, dict))
            cursor = result.get("nextCursor") if isinstance(result, dict) else None
            if not isinstance(cursor, str) or not cursor:
                break
            if cursor in seen:
                self.session.note(
                    f"{method}: the server repeated cursor {cursor!r}; stopped paging",
                    severity="warning",
                )
                break
            seen.add(cursor)
        if kind == "tools" and self.session.era.stateless:
            items = self._drop_invalid_header_tools(items)
        return items

    async def _page(self, method: str, params: dict[str, Any] | None) -> Any:
        """One page of a list; at 2026-07-28 a fresh cached page (``ttlMs``) is reused,
        and the log says so, with its age, instead of a request."""
        key = str((params or {}).get("cursor") or "")
        if not self.session.era.stateless:
            return await self.session.request(method, params)
        cached = self.cache.fresh(method, key)
        if cached is not None:
            self.session.note(
                f"{method}{' (cursor ' + key + ')' if key else ''}: cached result reused, "
                f"{cached.age * 1000:.0f} ms old of its ttlMs {cached.ttl_ms} "
                f"(cacheScope {cached.scope}); nothing sent",
                cached={
                    "method": method,
                    "cursor": key or None,
                    "age_ms": round(cached.age * 1000),
                    "ttl_ms": cached.ttl_ms,
                    "scope": cached.scope,
                },
            )
            return cached.value
        result = await self.session.request(method, params)
        self.cache.store(method, key, result)
        return result

    def _drop_cached(self, method: str) -> Callable[[dict[str, Any]], None]:
        def drop(params: dict[str, Any]) -> None:
            for kind in changed_by(method):
                self.cache.drop(KIND[kind].method)

        return drop

    def _drop_invalid_header_tools(self, tools: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """Over HTTP, tools with invalid x-mcp-header annotations must not be offered (the
        wire log and its findings still show them); valid annotations become headers."""
        transport = self.session.transport
        if not transport.mirrors_tool_headers:
            return tools
        headers, rejected = tool_headers(tools)
        transport.set_tool_headers(headers)
        for name, problems in rejected.items():
            self.session.note(f"tool {name!r} left out: {'; '.join(problems)}", severity="warning")
        return [t for t in tools if str(t.get("name")) not in rejected]

    async def list_tools(self) -> list[dict[str, Any]]:
        return await self.list_all("tools")

    async def list_resources(self) -> list[dict[str, Any]]:
        return await self.list_all("resources")

    async def list_resource_templates(self) -> list[dict[str, Any]]:
        return await self.list_all("resource_templates")

    async def list_prompts(self) -> list[dict[str, Any]]:
        return await self.list_all("prompts")

    async def call_tool(
        self,
        name: str,
        arguments: dict[str, Any] | None = None,
        *,
        on_progress: ProgressCallback | None = None,
        timeout: float | None = None,
        task: dict[str, Any] | None = None,
    ) -> dict[str, Any]:
        params: dict[str, Any] = {"name": name, "arguments": arguments or {}}
        if task is not None:
            params["task"] = task
        try:
            result: dict[str, Any] = await self.session.request(
                "tools/call", params, on_progress=on_progress, timeout=timeout
            )
        except RpcError as exc:
            if exc.code != HEADER_MISMATCH or not self.session.era.stateless:
                raise
            # the Mcp-Param-* headers come from the tool's inputSchema: re-list, retry once
            self.session.note(
                f"tools/call {name}: header mismatch; re-listing tools for "
                "their x-mcp-header annotations and retrying"
            )
            self.cache.drop("tools/list")  # a cached list is what went wrong
            await self.list_tools()
            result = await self.session.request(
                "tools/call", params, on_progress=on_progress, timeout=timeout
            )
        if task is None and is_task_result(result):  # 2026-07-28: the server made a task
            result = await self._follow_task(name, result)
        return result

    async def _follow_task(self, name: str, created: dict[str, Any]) -> dict[str, Any]:
        """A task the server chose to make (the Tasks extension), polled to its end: the
        call's caller gets the final result, or the task's error."""
        if self._tasks is None:
            self._tasks = TaskManager(self.session)
        state = self._tasks.adopt(created, name)
        self.session.note(
            f"tools/call {name}: the server answered with task {state.task_id} "
            f"({state.status}); polling tasks/get until it ends"
        )
        state = await self._tasks.follow(state.task_id)
        if not state.terminal:
            raise RpcError(
                jsonrpc.REQUEST_TIMEOUT,
                f"tools/call {name}: task {state.task_id} still {state.status} after "
                f"{self.session.max_timeout:g} s",
            )
        if state.error is not None:
            raise state.error
        if state.result is None:
            raise RpcError(
                jsonrpc.INTERNAL_ERROR,
                f"tools/call {name}: task {state.task_id} ended {state.status}"
                + (f" ({state.status_message})" if state.status_message else "")
                + " with no result",
            )
        return state.result

    async def read_resource(
        self, uri: str, *, on_progress: ProgressCallback | None = None
    ) -> dict[str, Any]:
        result: dict[str, Any] = await self.session.request(
            "resources/read", {"uri": uri}, on_progress=on_progress
        )
        return result

    async def subscribe(self, uri: str) -> dict[str, Any]:
        if self.session.era.stateless:  # resourceSubscriptions on the listen stream
            if uri not in self._subscribed:
                self._subscribed.append(uri)
            self.listen_closed = False  # the user's own change: the stream is wanted
            await self._relisten()
            self.subscriptions.add(uri)
            return {}
        result: dict[str, Any] = await self.session.request("resources/subscribe", {"uri": uri})
        self.subscriptions.add(uri)
        return result

    async def unsubscribe(self, uri: str) -> dict[str, Any]:
        if self.session.era.stateless:
            if uri in self._subscribed:
                self._subscribed.remove(uri)
            self.listen_closed = False
            await self._relisten()
            self.subscriptions.discard(uri)
            return {}
        result: dict[str, Any] = await self.session.request("resources/unsubscribe", {"uri": uri})
        self.subscriptions.discard(uri)
        return result

    async def get_prompt(
        self,
        name: str,
        arguments: dict[str, str] | None = None,
        *,
        on_progress: ProgressCallback | None = None,
    ) -> dict[str, Any]:
        params: dict[str, Any] = {"name": name}
        if arguments:
            params["arguments"] = arguments
        result: dict[str, Any] = await self.session.request(
            "prompts/get", params, on_progress=on_progress
        )
        return result

    async def complete(
        self, ref: dict[str, Any], name: str, value: str, context_args: dict[str, str] | None = None
    ) -> dict[str, Any]:
        params: dict[str, Any] = {"ref": ref, "argument": {"name": name, "value": value}}
        if context_args:
            params["context"] = {"arguments": context_args}
        result: dict[str, Any] = await self.session.request("completion/complete", params)
        return result

    async def set_logging_level(self, level: str) -> dict[str, Any]:
        if self.session.era.stateless:  # no logging/setLevel: the level rides each request
            self.session.log_level = level
            return {}
        result: dict[str, Any] = await self.session.request("logging/setLevel", {"level": level})
        return result

    async def ping(self) -> dict[str, Any]:
        if self.session.era.stateless:  # ping is gone at 2026-07-28; discover answers alike
            self.session.note("ping does not exist at 2026-07-28: sending server/discover")
            found: dict[str, Any] = await self.session.request("server/discover")
            return found
        result: dict[str, Any] = await self.session.request("ping")
        return result

    # -- list_changed ------------------------------------------------------------------

    def watch_list(self, kind: str, watcher: Watcher) -> None:
        """Re-list ``kind`` whenever the server says it changed (coalesced: see
        ``ListFollower``) and hand each new list, with what changed, to ``watcher``."""
        if not self.lists.watched():
            for method in LIST_CHANGED:
                self.session.on_notification(method, self._make_relister(method))
        self.lists.watch(kind, watcher)
        if self.session.era.stateless:
            self._listen_soon()

    async def refresh_list(self, kind: str) -> None:
        """Fetch ``kind`` for its watchers now (or once more after the fetch in flight)."""
        await self.lists.refresh(kind)

    def _make_relister(self, method: str) -> Callable[[dict[str, Any]], None]:
        def on_changed(params: dict[str, Any]) -> None:
            for kind in changed_by(method):
                if kind in self.lists.watched():
                    self.lists.changed(kind)

        return on_changed

    # -- subscriptions/listen (the stateless era) --------------------------------------

    def listen_filter(self) -> dict[str, Any]:
        """What the listen stream opts in to: every list the server says can change, and
        the subscribed resources."""
        caps = self.session.server_capabilities
        wanted: dict[str, Any] = {}
        for capability, key in LISTEN_FLAGS.items():
            declared = caps.get(capability)
            if isinstance(declared, dict) and declared.get("listChanged"):
                wanted[key] = True
        if self._subscribed:
            wanted["resourceSubscriptions"] = list(self._subscribed)
        return wanted

    def reopen_listen(self) -> None:
        """Open the listen stream again after the user closed it (cancelled it)."""
        self.listen_closed = False
        self._listen_soon()

    def _listen_soon(self) -> None:
        if self.listen_closed:
            return  # the user closed it: only the user re-opens it
        if not self._listening:
            self._listening = True
            self.session.start_soon(self._listen_loop)

    async def _relisten(self) -> None:
        """Re-open the listen stream with the current filter (the old one is cancelled)."""
        if self._listen_id is not None and await self.session.cancel(
            self._listen_id, "re-listening with a new subscription filter", by_user=False
        ):
            return  # the loop sees the cancellation and listens again at once
        self._listen_soon()

    async def _listen_loop(self) -> None:
        """Hold one ``subscriptions/listen`` request open; its notifications reach the
        watchers like any notification. A stream that ends is re-opened (there is no
        replay), and the watched lists re-fetched; a server that keeps ending it
        without delivering anything is given up on."""
        quiet_ends = 0
        try:
            while self.session.lost is None and quiet_ends < LISTEN_RETRIES:
                wanted = self.listen_filter()
                if not wanted:
                    return
                self._listen_id = self.session.next_id()
                delivered = _Counter(self.session)
                try:
                    await self.session.request(
                        "subscriptions/listen",
                        {"notifications": wanted},
                        timeout=math.inf,
                        request_id=self._listen_id,
                    )
                except RequestCancelledError as exc:
                    if exc.by_user:
                        self.listen_closed = True
                        self.session.note(
                            "subscriptions/listen cancelled by the user: closed, so lists and "
                            "subscribed resources no longer update by themselves until it is "
                            "re-opened (a subscription change re-opens it too)",
                            severity="warning",
                        )
                        return
                    continue  # a new filter: listen again at once
                except RpcError as exc:
                    if self.session.lost is not None:
                        return
                    if exc.code == jsonrpc.METHOD_NOT_FOUND:
                        self.session.note(
                            "the server does not serve subscriptions/listen: "
                            "lists will not update by themselves",
                            severity="warning",
                        )
                        return
                    self.session.note(
                        f"subscriptions/listen failed: {exc.message}", severity="warning"
                    )
                except TransportError as exc:  # the server went away; its reader will say so
                    self.session.note(
                        f"subscriptions/listen could not be sent: {exc}", severity="warning"
                    )
                    return
                finally:
                    self._listen_id = None
                    delivered.stop()
                quiet_ends = 0 if delivered.count else quiet_ends + 1
                await anyio.sleep(LISTEN_RETRY_DELAY * max(quiet_ends, 1))
                for kind in self.lists.watched():  # what changed meanwhile is lost
                    self.lists.changed(kind)
            if quiet_ends >= LISTEN_RETRIES:
                self.session.note(
                    f"subscriptions/listen ended {quiet_ends} times without "
                    "delivering anything; not listening again",
                    severity="warning",
                )
        finally:
            self._listening = False


class _Counter:
    """Counts the change notifications that arrive while a listen stream is open."""

    def __init__(self, session: Session) -> None:
        self.count = 0
        self._session = session
        self._methods = [*LIST_CHANGED, "notifications/resources/updated"]
        for method in self._methods:
            session.on_notification(method, self._seen)

    def _seen(self, params: dict[str, Any]) -> None:
        self.count += 1

    def stop(self) -> None:
        self._session.off_notification(self._seen)
