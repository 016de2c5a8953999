"""What a recorded session tells about its server: the initialize result and the
latest complete listing of tools, resources, templates and prompts (pages joined).

A recording of the 2026-07-28 stateless era has no initialize: its ``server/discover``
answer stands in for it, in the initialize result's shape (``serverInfo`` from the
result's ``_meta``, ``protocolVersion`` from the request's envelope), and ``stateless``
says so."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from inspector.engine.era import META_PROTOCOL_VERSION, META_SERVER_INFO, STATELESS_VERSIONS
from inspector.engine.kinds import BY_LIST_METHOD
from inspector.logstore.store import EventSource
from inspector.wire.events import Kind

OPENINGS = ("initialize", "server/discover")


@dataclass
class RecordedCatalog:
    """A kind missing from ``lists`` was never listed in the recording (not "empty");
    ``errors`` holds the error message of a listing the server refused."""

    initialize: dict[str, Any] | None = None
    lists: dict[str, list[dict[str, Any]]] = field(default_factory=dict)
    errors: dict[str, str] = field(default_factory=dict)
    stateless: bool = False  # opened with server/discover (2026-07-28), no session

    def recorded(self, kind: str) -> bool:
        """Whether the session listed ``kind`` at all (successfully or not)."""
        return kind in self.lists or kind in self.errors


def rebuild_catalog(source: EventSource, stop: int | None = None) -> RecordedCatalog:
    """Scan responses; a list request without a cursor starts a new listing."""
    catalog = RecordedCatalog()
    building: dict[str, list[dict[str, Any]]] = {}
    end = len(source) if stop is None else min(stop, len(source))
    for i in range(end):
        kind_of_event = source.kind(i)
        if kind_of_event not in (Kind.RESPONSE, Kind.ERROR):
            continue
        method = source.method(i)
        if method not in OPENINGS and method not in BY_LIST_METHOD:
            continue
        message = source.event(i).message
        if kind_of_event is Kind.ERROR:
            if method in BY_LIST_METHOD:
                error = message.get("error") if isinstance(message, dict) else None
                text = error.get("message") if isinstance(error, dict) else None
                catalog.errors[BY_LIST_METHOD[str(method)].name] = str(text or "error")
            continue
        result = message.get("result") if isinstance(message, dict) else None
        if not isinstance(result, dict):
            continue
        if method == "initialize":
            catalog.initialize = result
            catalog.stateless = False
            continue
        if method == "server/discover":
            catalog.initialize = _as_initialize(source, i, result)
            catalog.stateless = True
            continue
        kind, key = BY_LIST_METHOD[str(method)].name, BY_LIST_METHOD[str(method)].key
        request_index = source.find_request(i)
        cursor = None
        if request_index is not None:
            request = source.event(request_index).message
            params = request.get("params") if isinstance(request, dict) else None
            cursor = params.get("cursor") if isinstance(params, dict) else None
        if cursor is None or kind not in building:
            building[kind] = []
        building[kind].extend(item for item in result.get(key) or [] if isinstance(item, dict))
        if not result.get("nextCursor"):
            catalog.lists[kind] = building[kind]  # a complete listing
            catalog.errors.pop(kind, None)  # a later success wins
    for kind, items in building.items():
        catalog.lists.setdefault(kind, items)  # an unfinished one is better than none
    return catalog


def _as_initialize(source: EventSource, index: int, result: dict[str, Any]) -> dict[str, Any]:
    """A ``server/discover`` result in the initialize result's shape."""
    meta = result.get("_meta")
    info = meta.get(META_SERVER_INFO) if isinstance(meta, dict) else None
    version: Any = None
    request_index = source.find_request(index)
    if request_index is not None:
        request = source.event(request_index).message
        params = request.get("params") if isinstance(request, dict) else None
        envelope = params.get("_meta") if isinstance(params, dict) else None
        version = envelope.get(META_PROTOCOL_VERSION) if isinstance(envelope, dict) else None
    return {
        **result,
        "serverInfo": info if isinstance(info, dict) else {},
        "protocolVersion": version if isinstance(version, str) else STATELESS_VERSIONS[0],
    }
