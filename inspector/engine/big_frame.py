"""Big responses: offered with their frame, and parsed folded for a caller that asks.

A caller (the result pane) can keep a big response's bytes, which the log holds anyway,
instead of the parsed tree (``Session.take_frame``). A call made inside
``folded_results()`` goes further: its big answer is never parsed whole in this process
(``inspector.wire.folded``; a 13 MB result of 100,000 objects was 3.7x its size of
Python objects on arrival). Its result comes as a ``FoldedResult``: long arrays and
objects keep their first items, and its ``frame`` holds the rest for whoever needs it
(an outputSchema check in a child process, a copy, a save).
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import TYPE_CHECKING, Any

from inspector.wire import jsonrpc
from inspector.wire.events import WireEvent
from inspector.wire.folded import FoldedDict, FoldedResult, fold_frame, is_folded
from inspector.wire.transport import Decode

if TYPE_CHECKING:
    from inspector.engine.pending import PendingRequests

BIG_FRAME = 1 << 18  # a response at least this big is offered with its frame (and folded)

# requests made while this is set are answered folded when big (``folded_results``)
FOLD: ContextVar[bool] = ContextVar("fold_big_results", default=False)
# the requests whose result a caller shows: a list made on the way (a re-list of tools
# when a call's headers did not match) is kept whole, the catalog needs all of it
FOLDABLE = frozenset({"tools/call", "resources/read", "prompts/get"})


@contextmanager
def folded_results() -> Iterator[None]:
    """Calls made inside (by this task: ``FOLDABLE``) get a big result folded (see the
    module doc)."""
    token = FOLD.set(True)
    try:
        yield
    finally:
        FOLD.reset(token)


def folds(method: str) -> bool:
    """A request for ``method`` made now gets its big result folded."""
    return method in FOLDABLE and FOLD.get()


def big_result(event: WireEvent) -> tuple[Any, bytes] | None:
    """A response of at least ``BIG_FRAME`` bytes with a result: (the result, the frame)."""
    message = event.message
    if (
        len(event.raw) < BIG_FRAME
        or not isinstance(message, dict)
        or "result" not in message
        or "method" in message
    ):
        return None
    return message["result"], event.raw


def frame_of(result: Any, big: tuple[Any, bytes] | None) -> bytes | None:
    """The frame ``result`` came in: a folded one's own, else ``big``'s when it is the
    frame of ``result`` (``Session.take_frame``)."""
    if isinstance(result, FoldedResult):
        return result.frame
    return big[1] if big is not None and big[0] is result else None


def big_decoder(requests: PendingRequests) -> Decode:
    """How the transport parses a frame of at least ``BIG_FRAME`` bytes for a session
    with ``requests``: folded when it answers one made in ``folded_results()``, else as
    the codec does (``jsonrpc.decode``)."""

    def decode(raw: bytes) -> tuple[Any, str | None]:
        if any(pending.fold for pending in requests.pending.values()):
            message = _folded(raw, requests)
            if message is not None:
                return message, None
        return jsonrpc.decode(raw)

    return decode


def _folded(raw: bytes, requests: PendingRequests) -> Any:
    """``raw`` parsed folded when it is a result answering a request that asked for it,
    or when nothing had to be folded; None otherwise (invalid JSON too: the codec then
    says what is wrong)."""
    try:
        message = fold_frame(raw)  # the text is let go once parsed
    except (UnicodeDecodeError, ValueError, RecursionError):
        return None
    if not is_folded(message):
        return message  # all of it: what the codec would give
    result = message.get("result") if isinstance(message, dict) else None
    if not isinstance(result, dict) or "method" in message or "error" in message:
        return None
    pending = requests.answered_by(message.get("id"))
    if pending is None or not pending.fold:
        return None
    folded = FoldedResult(result)
    folded.total = result.total if isinstance(result, FoldedDict) else len(result)
    folded.frame = raw
    message["result"] = folded
    return message
