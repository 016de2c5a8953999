"""Server notifications that belong to one request, and how two runs of them compare.

A notification belongs to a request when it carries the request's progress token, or
when it arrived while the request was in flight (logging, list_changed,
resources/updated...): then it goes to the oldest request in flight, the same rule in
the recording and live, so concurrent requests pair the same way in both runs.

Modes: ``methods`` (default) counts a different sequence of methods as a change, runs
of progress collapsed (how often a server reports progress is timing); ``strict`` also
counts every value that differs (ignore rules aside) and the exact progress count;
``ignore`` leaves notifications out.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from inspector.replay.diff import IgnoreRule, diff

STRICT, METHODS, IGNORE = "strict", "methods", "ignore"
MODES = (STRICT, METHODS, IGNORE)
PROGRESS = "notifications/progress"

# a notification's own status: "volatile" = values differ, but this mode does not count them
SAME, CHANGED, VOLATILE = "same", "changed", "volatile"


def _key(value: Any) -> Any:
    return (type(value).__name__, value) if isinstance(value, str | int) else None


class Attributor:
    """Follows one run's frames and files each server notification under its request."""

    def __init__(self) -> None:
        self.open: dict[Any, Any] = {}  # request id key -> owner, oldest first
        self.tokens: dict[Any, Any] = {}  # progress token key -> owner (kept after answers)
        self.got: dict[Any, list[dict[str, Any]]] = {}

    def request(self, id_: Any, owner: Any, params: Any) -> None:
        self.open[_key(id_)] = owner
        self.got.setdefault(owner, [])
        meta = params.get("_meta") if isinstance(params, dict) else None
        if isinstance(meta, dict) and _key(meta.get("progressToken")) is not None:
            self.tokens[_key(meta["progressToken"])] = owner

    def finished(self, id_: Any) -> None:
        """The request was answered or cancelled: later notifications are not its own
        (its progress still is)."""
        self.open.pop(_key(id_), None)

    def notification(self, msg: dict[str, Any]) -> None:
        params = msg.get("params")
        if msg.get("method") == PROGRESS:
            token = params.get("progressToken") if isinstance(params, dict) else None
            owner = self.tokens.get(_key(token))
            if owner is not None:
                self.got[owner].append(msg)
            return
        if self.open:
            self.got[next(iter(self.open.values()))].append(msg)

    def of(self, owner: Any) -> list[dict[str, Any]]:
        return self.got.get(owner, [])


@dataclass
class NoticeResult:
    """One request's notifications, recorded vs live."""

    mode: str
    status: str
    recorded: list[str] = field(default_factory=list)
    live: list[str] = field(default_factory=list)
    sequence_differs: bool = False
    changes: list[dict[str, Any]] = field(default_factory=list)
    ignored: int = 0

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "mode": self.mode,
            "status": self.status,
            "recorded": self.recorded,
            "live": self.live,
        }
        if self.sequence_differs:
            data["sequenceDiffers"] = True
        if self.changes:
            data["changes"] = self.changes
        if self.ignored:
            data["ignoredChanges"] = self.ignored
        return data


def sequence(messages: Sequence[dict[str, Any]], mode: str) -> list[str]:
    """The methods in order; in ``methods`` mode a run of progress counts once."""
    out: list[str] = []
    for msg in messages:
        method = str(msg.get("method"))
        if mode != STRICT and method == PROGRESS and out and out[-1] == PROGRESS:
            continue
        out.append(method)
    return out


def compare(
    recorded: Sequence[dict[str, Any]],
    live: Sequence[dict[str, Any]],
    mode: str,
    rules: Sequence[IgnoreRule],
) -> NoticeResult | None:
    """None when neither run had notifications for the request (or mode is ignore)."""
    if mode == IGNORE or not (recorded or live):
        return None
    methods_differ = sequence(recorded, mode) != sequence(live, mode)
    result = NoticeResult(
        mode,
        SAME,
        [str(m.get("method")) for m in recorded],
        [str(m.get("method")) for m in live],
        methods_differ,
    )
    # values: the n-th notification of a method against the n-th live one; "index" is the
    # position in the recorded list (in the live list for an added one)
    by_method: dict[str, list[tuple[int, dict[str, Any]]]] = {}
    for index, msg in enumerate(live):
        by_method.setdefault(str(msg.get("method")), []).append((index, msg))
    seen: dict[str, int] = {}
    for index, msg in enumerate(recorded):
        method = str(msg.get("method"))
        n = seen.get(method, 0)
        seen[method] = n + 1
        lives = by_method.get(method, [])
        if n >= len(lives):
            result.changes.append(
                {
                    "index": index,
                    "method": method,
                    "path": "$",
                    "kind": "removed",
                    "old": msg.get("params"),
                }
            )
            continue
        found = diff(_body(msg), _body(lives[n][1]), rules)
        result.ignored += len(found.ignored)
        result.changes.extend(
            {"index": index, "method": method, **c.to_json()} for c in found.changes
        )
    for method, lives in by_method.items():
        for index, extra in lives[seen.get(method, 0) :]:
            result.changes.append(
                {
                    "index": index,
                    "method": method,
                    "path": "$",
                    "kind": "added",
                    "new": extra.get("params"),
                }
            )
    if methods_differ or (mode == STRICT and result.changes):
        result.status = CHANGED
    elif result.changes:
        result.status = VOLATILE
    return result


def _body(msg: dict[str, Any]) -> dict[str, Any]:
    # ignore paths read like the server-request ones: $.params.progress, $.params.data
    return {"method": msg.get("method"), "params": msg.get("params")}
