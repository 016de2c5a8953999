"""A big response offered with its frame: a caller (the result pane) can keep the bytes,
which the log holds anyway, instead of the parsed tree (``Session.take_frame``)."""

from __future__ import annotations

from typing import Any

from inspector.wire.events import WireEvent

BIG_FRAME = 1 << 18  # a response at least this big is offered with its frame


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
