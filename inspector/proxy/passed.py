"""The catalog as it passed through a proxy: the lists others asked for, as answered.

An inspector attached to a proxy sees the host's traffic (``observed`` events). When the
host lists tools, resources, templates or prompts, the server's answer is the catalog the
host works with: the inspector shows that one, instead of asking again, and keeps
following the host's later listings. Pages are joined (a listing without a cursor starts
a new one); a listing is kept once its last page has passed.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable
from typing import Any

from inspector.engine.kinds import BY_LIST_METHOD, KIND
from inspector.proxy.attach import OBSERVED
from inspector.wire import jsonrpc
from inspector.wire.events import ATTACH_KEY, SIDE_KEY, Direction, WireEvent

Listing = Callable[[str, list[dict[str, Any]]], None]


class PassedCatalog:
    """Follows the listings that pass (``observe`` each event); ``lists`` holds the last
    complete one of each kind; ``on_listing(kind, items)`` hears each as it completes."""

    def __init__(self) -> None:
        self.lists: dict[str, list[dict[str, Any]]] = {}
        self.on_listing: Listing | None = None
        self._asked: dict[Hashable, str] = {}  # (side, attach, link, id) -> kind
        self._building: dict[tuple[Hashable, str], list[dict[str, Any]]] = {}

    def clear(self) -> None:
        """Forget every listing (the proxy is another one)."""
        self.lists.clear()
        self._asked.clear()
        self._building.clear()

    def observe(self, event: WireEvent) -> None:
        meta = event.meta
        message = event.message
        if not meta.get(OBSERVED) or not isinstance(message, dict) or "id" not in message:
            return
        id_ = message.get("id")
        if isinstance(id_, list | dict):
            return
        who = (meta.get(SIDE_KEY), meta.get(ATTACH_KEY), meta.get("link"))
        key = (*who, type(id_).__name__, id_)
        if event.direction is Direction.OUT and jsonrpc.is_request(message):
            method = message.get("method")
            if method in BY_LIST_METHOD:
                kind = BY_LIST_METHOD[str(method)].name
                self._asked[key] = kind
                params = message.get("params")
                if not (isinstance(params, dict) and params.get("cursor")):
                    self._building[(who, kind)] = []  # a new listing starts
            return
        if event.direction is not Direction.IN or not jsonrpc.is_response(message):
            return
        kind_asked = self._asked.pop(key, None)
        if kind_asked is None:
            return
        result = message.get("result")
        if not isinstance(result, dict):
            self._building.pop((who, kind_asked), None)  # refused: the old list stands
            return
        items = self._building.setdefault((who, kind_asked), [])
        field = KIND[kind_asked].key
        items.extend(i for i in result.get(field) or [] if isinstance(i, dict))
        if result.get("nextCursor"):
            return
        del self._building[(who, kind_asked)]
        self.lists[kind_asked] = items
        if self.on_listing is not None:
            self.on_listing(kind_asked, items)
