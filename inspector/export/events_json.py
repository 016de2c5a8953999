"""A session's events as one JSON array (for ``jq``), written as a stream.

Each element is the event's line object as the session file stores it (``seq``, ``t``,
``dir``, ``ch``, ``raw``, ``meta``, ``findings``) plus ``message``, the parsed JSON-RPC
message when the frame was one, so ``jq '.[] | select(.message.method == "tools/call")'``
works without parsing ``raw`` again.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import IO

from inspector.logstore.filter_query import LogFilter
from inspector.record.format import event_to_json
from inspector.wire.events import WireEvent


def write_events_json(events: Iterable[WireEvent], out: IO[str], query: str = "") -> int:
    """Write ``events`` (those matching ``query``, in the log's filter language) as a JSON
    array; returns how many."""
    match = LogFilter.parse(query) if query else None
    out.write("[")
    count = 0
    for event in events:
        if match is not None and not match.matches(event):
            continue
        data = event_to_json(event)
        if event.message is not None:
            data["message"] = event.message
        out.write(("\n" if count == 0 else ",\n") + json.dumps(data, ensure_ascii=False))
        count += 1
    out.write("\n]\n")
    return count
