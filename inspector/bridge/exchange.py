"""One request over a connection as the agent gets it back: the result (bounded), the
latency, the frame it came in (``seq``, for ``log``), the protocol findings made on the
exchange's frames, the server requests answered; a failure as a message to act on.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Awaitable, Callable
from typing import Any

import anyio

from inspector.bridge.bounded import bounded
from inspector.bridge.connections import BridgeError, Live
from inspector.engine.request_errors import (
    ConnectionClosedError,
    RequestTimeoutError,
    first_failure,
)
from inspector.engine.session import Session
from inspector.logstore.store import EventStore
from inspector.wire.events import Direction, Kind, WireEvent
from inspector.wire.jsonrpc import RpcError
from inspector.wire.transport import TransportError


def findings_between(store: EventStore, start: int, stop: int) -> list[dict[str, Any]]:
    """The findings on frames ``start..stop`` of the log, each with its frame's seq."""
    found: list[dict[str, Any]] = []
    for i in range(start, stop):
        if store.has_findings(i):
            found += [{**f.to_json(), "seq": store.seq(i)} for f in store.findings(i)]
    return found


def response_of(store: EventStore, start: int, stop: int, method: str) -> int | None:
    """The index of the answer to the last ``method`` request sent in ``start..stop``."""
    for i in range(stop - 1, start - 1, -1):
        if (
            store.kind(i) is Kind.REQUEST
            and store.direction(i) is Direction.OUT
            and store.method(i) == method
        ):
            return store.find_response(i)
    return None


async def _cancel(session: Session, ids: list[Any]) -> None:
    """notifications/cancelled for requests whose answer no one will read any more."""
    for request_id in ids:
        with contextlib.suppress(Exception):  # the connection may be gone: nothing to stop
            await session.notify(
                "notifications/cancelled",
                {"requestId": request_id, "reason": "cancelled by the agent"},
            )


def failure_message(live: Live, method: str, exc: BaseException) -> BridgeError:
    """What went wrong, in words that say what to do next."""
    exc = first_failure(exc)
    where = f"{method} on {live.id} ({live.target.describe()})"
    if isinstance(exc, ConnectionClosedError):
        return BridgeError(
            f"{where}: the connection was lost ({exc.lost.describe()}); the frames up to "
            f"the loss are in log {{connection: {live.id!r}}}; disconnect and connect again "
            "after fixing the server"
        )
    if isinstance(exc, RequestTimeoutError):
        return BridgeError(f"{where}: no answer in time ({exc.message}); see the log")
    if isinstance(exc, RpcError):
        data = f" data: {exc.data!r}" if exc.data is not None else ""
        return BridgeError(f"{where}: the server answered error {exc.code}: {exc.message}{data}")
    if isinstance(exc, TransportError):
        return BridgeError(f"{where}: transport failure: {exc}")
    return BridgeError(f"{where}: {type(exc).__name__}: {exc}")


async def exchange(
    live: Live,
    method: str,
    send: Callable[[Session], Awaitable[Any]],
    max_chars: int,
    answers: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """Run ``send`` on the connection's session and describe what came back."""
    session, _ = live.ready()
    live.answers.start(answers)
    start = len(live.store)
    began = time.monotonic()
    sent: list[Any] = []  # the ids of this exchange's requests, to cancel them

    def ours(event: WireEvent) -> None:
        if event.direction is Direction.OUT and event.method == method and not sent:
            sent.append(event.msg_id)

    session.add_observer(ours)
    try:
        result = await send(session)
    except anyio.get_cancelled_exc_class():
        with anyio.CancelScope(shield=True):  # the agent cancelled: so does the server
            await _cancel(session, sent)
        raise
    except Exception as exc:
        raise failure_message(live, method, exc) from exc
    finally:
        session.remove_observer(ours)
    latency = round((time.monotonic() - began) * 1000, 1)
    stop = len(live.store)
    at = response_of(live.store, start, stop, method)
    shown, size, cut = bounded(result, max_chars)
    out: dict[str, Any] = {
        "result": shown,
        "latency_ms": latency,
        "size": size,
        "truncated": cut,
        "findings": findings_between(live.store, start, stop),
        "serverRequests": list(live.answers.asked),
    }
    if at is not None:
        out["seq"] = live.store.seq(at)
    if cut:
        seq = out.get("seq")
        out["whole"] = (
            f"the whole result is {size} characters: page its frame with "
            f"log {{connection: {live.id!r}, seq: {seq}, offset: 0, max_chars: 100000}}"
        )
    return out
