"""Typed MCP calls on top of a session: lists (all pages), calls, reads, completions."""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

from inspector.engine.session import ProgressCallback, Session

log = logging.getLogger(__name__)

MAX_PAGES = 1000  # a server that loops its cursors must not loop us forever
LIST_KINDS = {"tools": ("tools/list", "tools"), "resources": ("resources/list", "resources"),
              "resource_templates": ("resources/templates/list", "resourceTemplates"),
              "prompts": ("prompts/list", "prompts")}
LIST_CHANGED = {"notifications/tools/list_changed": ("tools",),
                "notifications/resources/list_changed": ("resources", "resource_templates"),
                "notifications/prompts/list_changed": ("prompts",)}
LOG_LEVELS = ("debug", "info", "notice", "warning", "error", "critical", "alert", "emergency")


class McpClient:
    """The typed MCP calls a user fires from the inspector; results stay plain dicts."""

    def __init__(self, session: Session) -> None:
        self.session = session
        self._list_watchers: dict[str, list[Callable[[list[dict[str, Any]]], Any]]] = {}

    async def list_all(self, kind: str) -> list[dict[str, Any]]:
        """Every item of a ``*/list`` method, following ``nextCursor`` page by page."""
        method, key = LIST_KINDS[kind]
        items: list[dict[str, Any]] = []
        cursor: str | None = None
        seen: set[str] = set()
        for _ in range(MAX_PAGES):
            params = {"cursor": cursor} if cursor is not None else None
            result = await self.session.request(method, params)
            page = result.get(key) if isinstance(result, dict) else None
            items.extend(item for item in page or [] if isinstance(item, dict))
            cursor = result.get("nextCursor") if isinstance(result, dict) else None
            if not isinstance(cursor, str) or not cursor:
                break
            if cursor in seen:
                self.session.note(f"{method}: the server repeated cursor {cursor!r}; "
                                  "stopped paging", severity="warning")
                break
            seen.add(cursor)
        return items

    async def list_tools(self) -> list[dict[str, Any]]:
        return await self.list_all("tools")

    async def list_resources(self) -> list[dict[str, Any]]:
        return await self.list_all("resources")

    async def list_resource_templates(self) -> list[dict[str, Any]]:
        return await self.list_all("resource_templates")

    async def list_prompts(self) -> list[dict[str, Any]]:
        return await self.list_all("prompts")

    async def call_tool(self, name: str, arguments: dict[str, Any] | None = None, *,
                        on_progress: ProgressCallback | None = None,
                        timeout: float | None = None,
                        task: dict[str, Any] | None = None) -> dict[str, Any]:
        params: dict[str, Any] = {"name": name, "arguments": arguments or {}}
        if task is not None:
            params["task"] = task
        result: dict[str, Any] = await self.session.request(
            "tools/call", params, on_progress=on_progress, timeout=timeout)
        return result

    async def read_resource(self, uri: str) -> dict[str, Any]:
        result: dict[str, Any] = await self.session.request("resources/read", {"uri": uri})
        return result

    async def subscribe(self, uri: str) -> dict[str, Any]:
        result: dict[str, Any] = await self.session.request("resources/subscribe", {"uri": uri})
        return result

    async def unsubscribe(self, uri: str) -> dict[str, Any]:
        result: dict[str, Any] = await self.session.request("resources/unsubscribe",
                                                            {"uri": uri})
        return result

    async def get_prompt(self, name: str,
                         arguments: dict[str, str] | None = None) -> dict[str, Any]:
        params: dict[str, Any] = {"name": name}
        if arguments:
            params["arguments"] = arguments
        result: dict[str, Any] = await self.session.request("prompts/get", params)
        return result

    async def complete(self, ref: dict[str, Any], name: str, value: str,
                       context_args: dict[str, str] | None = None) -> dict[str, Any]:
        params: dict[str, Any] = {"ref": ref, "argument": {"name": name, "value": value}}
        if context_args:
            params["context"] = {"arguments": context_args}
        result: dict[str, Any] = await self.session.request("completion/complete", params)
        return result

    async def set_logging_level(self, level: str) -> dict[str, Any]:
        result: dict[str, Any] = await self.session.request("logging/setLevel",
                                                            {"level": level})
        return result

    async def ping(self) -> dict[str, Any]:
        result: dict[str, Any] = await self.session.request("ping")
        return result

    # -- list_changed ------------------------------------------------------------------

    def watch_list(self, kind: str, callback: Callable[[list[dict[str, Any]]], Any]) -> None:
        """Re-list ``kind`` whenever the server says it changed, and hand over the new list."""
        if not self._list_watchers:
            for method in LIST_CHANGED:
                self.session.on_notification(method, self._make_relister(method))
        self._list_watchers.setdefault(kind, []).append(callback)

    def _make_relister(self, method: str) -> Callable[[dict[str, Any]], None]:
        def on_changed(params: dict[str, Any]) -> None:
            for kind in LIST_CHANGED[method]:
                if self._list_watchers.get(kind):
                    self.session.start_soon(self._relist, kind)
        return on_changed

    async def _relist(self, kind: str) -> None:
        try:
            items = await self.list_all(kind)
        except Exception as exc:
            self.session.note(f"re-listing {kind} after list_changed failed: {exc}",
                              severity="warning")
            return
        for callback in self._list_watchers.get(kind, []):
            try:
                outcome = callback(items)
                if hasattr(outcome, "__await__"):
                    await outcome
            except Exception:
                log.exception("list watcher failed")
