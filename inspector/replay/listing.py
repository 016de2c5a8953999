"""A recorded listing (``tools/list`` and its next pages) replayed as one exchange.

Page by page, one tool removed on page 1 shifts every later page and each page reads
as changed. Here the recorded pages are joined, the live server is listed to its last
page (its own cursors), and the two lists are compared by name
(:func:`inspector.compare.catalog.compare_lists`): each change classified breaking,
compatible or cosmetic, as ``mcp-inspect diff`` does.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from inspector.compare.catalog import compare_lists
from inspector.engine.client import MAX_PAGES
from inspector.engine.kinds import BY_LIST_METHOD
from inspector.engine.session import ConnectionClosedError, RequestTimeoutError, Session
from inspector.replay.diff import IgnoreRule, diff
from inspector.replay.plan import Step
from inspector.wire.jsonrpc import RpcError

if TYPE_CHECKING:
    from inspector.replay.run import ReplayOptions


def _result(step: Step) -> dict[str, Any] | None:
    result = step.response.get("result") if step.response else None
    return result if isinstance(result, dict) else None


def _cursor(params: Any) -> Any:
    return params.get("cursor") if isinstance(params, dict) else None


def starts_listing(steps: Sequence[Step], at: int) -> bool:
    """``steps[at]`` is a list request without a cursor, answered with a result, and not
    sent together with other requests (those are replayed as a group)."""
    step = steps[at]
    alone = not step.group or all(
        other.group != step.group for other in steps[max(at - 1, 0) : at + 2] if other is not step
    )
    return (
        step.method in BY_LIST_METHOD
        and not step.notification
        and alone
        and _cursor(step.params) is None
        and _result(step) is not None
    )


def next_pages(steps: Sequence[Step], start: int) -> list[int]:
    """The indices of the recorded requests that fetched the next pages of the listing
    ``steps[start]`` began: each sent with the cursor the page before it returned."""
    found: list[int] = []
    at, step = start, steps[start]
    while True:
        cursor = (_result(step) or {}).get("nextCursor")
        if not isinstance(cursor, str) or not cursor:
            return found
        nxt = next(
            (
                j
                for j in range(at + 1, len(steps))
                if steps[j].method == step.method and _cursor(steps[j].params) == cursor
            ),
            None,
        )
        if nxt is None or _result(steps[nxt]) is None:
            return found
        found.append(nxt)
        at, step = nxt, steps[nxt]


def recorded_items(pages: Sequence[Step]) -> list[dict[str, Any]]:
    key = BY_LIST_METHOD[pages[0].method].key
    items: list[dict[str, Any]] = []
    for page in pages:
        items.extend(i for i in (_result(page) or {}).get(key) or [] if isinstance(i, dict))
    return items


async def live_listing(
    session: Session, method: str, params: Any
) -> tuple[dict[str, Any], list[dict[str, Any]], int]:
    """The live listing to its last page: the first page's result, every item, pages."""
    key = BY_LIST_METHOD[method].key
    first: dict[str, Any] = {}
    items: list[dict[str, Any]] = []
    cursor: str | None = None
    seen: set[str] = set()
    pages = 0
    base = {k: v for k, v in params.items() if k != "cursor"} if isinstance(params, dict) else {}
    for _ in range(MAX_PAGES):
        sent = {**base, "cursor": cursor} if cursor is not None else (base or None)
        result = await session.request(method, sent)
        pages += 1
        page = result if isinstance(result, dict) else {}
        first = first or page
        items.extend(i for i in page.get(key) or [] if isinstance(i, dict))
        cursor = page.get("nextCursor")
        if not isinstance(cursor, str) or not cursor or cursor in seen:
            break
        seen.add(cursor)
    return first, items, pages


def compare_listing(
    method: str,
    recorded_first: dict[str, Any],
    recorded: list[dict[str, Any]],
    live_first: dict[str, Any],
    live: list[dict[str, Any]],
    rules: Sequence[IgnoreRule],
) -> tuple[list[dict[str, Any]], int]:
    """The counted changes (JSON, each with its level and rule) and how many were
    ignored: the items by name, the rest of the first pages as ``diff`` compares them."""
    kind = BY_LIST_METHOD[method]
    changes: list[dict[str, Any]] = []
    ignored = 0
    for difference in compare_lists(kind.name, recorded, live, ("result", kind.key)):
        if any(rule.matches(difference.path) for rule in rules):
            ignored += 1
        else:
            changes.append(difference.to_json())
    rest = diff(
        {"result": {k: v for k, v in recorded_first.items() if k != kind.key}},
        {"result": {k: v for k, v in live_first.items() if k != kind.key}},
        rules,
    )
    changes.extend(change.to_json() for change in rest.changes)
    return changes, ignored + len(rest.ignored)


@dataclass
class Listed:
    """How a replayed listing went: ``live`` None when no live answer came (``reason``
    says why); ``failed`` when the live listing answered with an error."""

    recorded: dict[str, Any]
    live: dict[str, Any] | None = None
    changes: list[dict[str, Any]] = field(default_factory=list)
    ignored: int = 0
    reason: str = ""
    failed: bool = False


async def replay_listing(
    session: Session, pages: list[Step], params: Any, options: ReplayOptions
) -> Listed:
    """List live to the last page, then compare with the recorded ``pages`` by name."""
    first = pages[0]
    key = BY_LIST_METHOD[first.method].key
    recorded = recorded_items(pages)
    got = Listed({"result": {key: recorded}})
    try:
        live_first, live, live_pages = await live_listing(session, first.method, params)
    except RequestTimeoutError:
        got.reason = f"no answer within {options.timeout:g} s"
        return got
    except ConnectionClosedError as exc:
        got.reason = f"connection lost: {exc.lost.describe()}"
        return got
    except RpcError as exc:
        got.live = {"error": {"code": exc.code, "message": exc.message}}
        got.failed, got.reason = True, "the live listing failed"
        return got
    recorded_first = _result(first) or {}
    got.changes, got.ignored = compare_listing(
        first.method, recorded_first, recorded, live_first, live, options.rules
    )
    got.live = {"result": {key: live}}
    if len(pages) > 1 or live_pages > 1:
        got.reason = f"compared by name: {len(pages)} recorded page(s), {live_pages} live"
    return got
