"""A huge session-file line (a recorded 300 MB result) read by its head only.

Decoding such a line whole takes seconds and several times its size in memory (the line,
the parsed text, the frame's bytes, the parsed frame). A log row, a filter's columns and
request/response pairing need only its direction, channel, seq, id, method and kind,
which the recorder writes first (``{"seq":..., "dir":..., "ch":..., "raw": "{\\"jsonrpc\\"
...``): :func:`head_event` builds a stand-in event from the first ``HEAD`` bytes, with
the frame's head as its raw bytes and a result that says what it stands for. The whole
event is decoded only when it is asked for (its detail shown).
"""

from __future__ import annotations

import base64
import json
import re
from typing import Any

from inspector.wire.events import Channel, Direction, WireEvent

HUGE_LINE = 4 << 20  # a stored line past this is read by its head for rows and filters
HEAD = 64 << 10  # bytes of the line read

_NUMBER = rb"(-?[0-9][0-9.eE+-]*)"
_FIELDS = {
    "seq": re.compile(rb'"seq": ?' + _NUMBER),
    "t": re.compile(rb'"t": ?' + _NUMBER),
    "mono": re.compile(rb'"mono": ?' + _NUMBER),
    "dir": re.compile(rb'"dir": ?"([a-z]+)"'),
    "ch": re.compile(rb'"ch": ?"([a-z]+)"'),
}
_RAW = re.compile(rb'"raw(_b64)?": ?"')
_ID = re.compile(rb'"id"\s*:\s*("(?:[^"\\]|\\.){0,200}"|-?\d{1,30})')
_METHOD = re.compile(rb'"method"\s*:\s*"((?:[^"\\]|\\.){1,200})"')
_OUTCOME = re.compile(rb'"(result|error)"\s*:')


def _field(head: bytes, name: str) -> str | None:
    found = _FIELDS[name].search(head, 0, 4096)
    return found.group(1).decode("ascii") if found else None


def frame_head(head: bytes) -> bytes:
    """The first bytes of the frame stored in a line's head (unescaped, or un-base64'd)."""
    found = _RAW.search(head, 0, 4096)
    if found is None:
        return b""
    body = head[found.end() :]
    if found.group(1):  # raw_b64: whole 4-character groups only
        b64 = body.split(b'"', 1)[0]
        return base64.b64decode(b64[: len(b64) // 4 * 4])
    text = body.decode("utf-8", "ignore")
    for cut in range(8):  # a cut escape (\\, \u12) at the end: drop characters until whole
        try:
            decoded = json.loads('"' + text[: len(text) - cut] + '"')
        except ValueError:
            continue
        return str(decoded).encode("utf-8", "surrogateescape")
    return b""


def head_message(frame: bytes, size: int) -> dict[str, Any] | None:
    """What the frame's head says: its id and method, and whether it is a result or an
    error (standing in, with a note of the size, for what comes after the head)."""
    if not frame.lstrip().startswith(b"{"):
        return None
    message: dict[str, Any] = {"jsonrpc": "2.0"}
    if found := _ID.search(frame):
        message["id"] = json.loads(found.group(1))
    if found := _METHOD.search(frame):
        message["method"] = json.loads(b'"' + found.group(1) + b'"')
    outcome = _OUTCOME.search(frame)
    note = f"a {size / 2**20:,.1f} MB line: read whole when its detail is shown"
    if outcome is not None and "method" not in message:
        if outcome.group(1) == b"error":
            message["error"] = {"code": 0, "message": note}
        else:
            message["result"] = {"…": note}
    elif "method" in message:
        message["params"] = {"…": note}
    return message


def head_event(head: bytes, size: int) -> WireEvent:
    """A stand-in for the event on a huge line, from the line's first bytes."""
    seq, t, mono = _field(head, "seq"), _field(head, "t"), _field(head, "mono")
    try:
        direction = Direction(_field(head, "dir") or "in")
        channel = Channel(_field(head, "ch") or "stdout")
    except ValueError:
        direction, channel = Direction.LOCAL, Channel.SYSTEM
    frame = frame_head(head)
    message = head_message(frame, size) if channel not in (Channel.STDERR,) else None
    return WireEvent(
        direction,
        channel,
        frame,
        message=message,
        meta={"huge_line": size},
        seq=int(float(seq)) if seq else 0,
        time=float(t) if t else 0.0,
        mono=float(mono) if mono else 0.0,
    )
