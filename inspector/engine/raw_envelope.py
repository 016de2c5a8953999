"""A raw frame given the stateless era's per-request ``_meta`` envelope (the raw editor:
a debugger may send anything, and a 2026-07-28 server refuses every message without it)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from inspector.wire import jsonrpc

Stamp = Callable[[dict[str, Any] | None], dict[str, Any] | None]


def with_envelope(raw: bytes, stamp: Stamp, note: Callable[[str], None]) -> bytes:
    """``raw`` with the envelope keys ``stamp`` would set and it lacks (the keys it sets
    itself are kept), ``note`` told which were added; as it is when it is not one request
    or notification, or lacks none."""
    message, error = jsonrpc.decode(raw)
    if error is not None or not isinstance(message, dict) or "method" not in message:
        return raw  # not one request or notification: sent as it is
    params = message.get("params")
    if params is not None and not isinstance(params, dict):
        return raw
    given = (params or {}).get("_meta")
    given = given if isinstance(given, dict) else {}
    stamped = stamp(params) or {}
    envelope = stamped.get("_meta") or {}
    missing = [key for key in envelope if key not in given]
    if not missing:
        return raw
    stamped["_meta"] = {**envelope, **given}  # what the user wrote wins
    note(
        f"raw {message['method']}: the stateless _meta envelope added "
        f"({', '.join(k.rsplit('/', 1)[-1] for k in missing)})"
    )
    return jsonrpc.encode({**message, "params": stamped})
