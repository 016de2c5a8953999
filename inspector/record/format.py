"""The session file format: JSON Lines, one header line, then one event a line.

Header: ``{"mcp_inspect_session": 1, "tool": "mcp-inspect X.Y.Z", "target": {...},
"started": "<ISO 8601>", "redacted": true}``.

Event: ``{"seq": 1, "t": <epoch s>, "mono": <monotonic s>, "dir": "out|in|local",
"ch": "stdin|stdout|stderr|http|sse|body|memory|system", "raw": "<text>"}`` where the raw
bytes are stored as text when they are valid UTF-8 and as ``"raw_b64"`` otherwise;
``"meta"`` and ``"findings"`` appear only when non-empty. The parsed message is
not stored: it is parsed again from the raw bytes on load (the wire is the truth).
"""

from __future__ import annotations

import base64
import codecs
import json
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from typing import Any

from inspector import __version__
from inspector.errors import InspectorError
from inspector.record.redact import REDACTED as REDACTED  # re-exported
from inspector.record.redact import Redactor as Redactor  # re-exported
from inspector.wire.events import Channel, Direction, Finding, WireEvent
from inspector.wire.jsonrpc import decode

FORMAT_KEY = "mcp_inspect_session"
FORMAT_VERSION = 1


class SessionFileError(InspectorError):
    """A session file cannot be read; the message names the file and the problem."""


class NewerFormatError(SessionFileError):
    """The file was written by a newer mcp-inspect in a format this one does not know."""


@dataclass(slots=True)
class SessionHeader:
    target: dict[str, Any]
    started: str = field(default_factory=lambda: datetime.now(UTC).isoformat())
    tool: str = f"mcp-inspect {__version__}"
    version: int = FORMAT_VERSION
    redacted: bool = True
    extra: dict[str, Any] = field(default_factory=dict)

    def to_line(self) -> bytes:
        data: dict[str, Any] = {
            FORMAT_KEY: self.version,
            "tool": self.tool,
            "target": self.target,
            "started": self.started,
            "redacted": self.redacted,
        }
        data.update(self.extra)
        return (json.dumps(data, ensure_ascii=False) + "\n").encode("utf-8")

    @classmethod
    def from_line(cls, line: bytes, source: str = "session file") -> SessionHeader:
        try:
            data = json.loads(line)
        except (json.JSONDecodeError, UnicodeDecodeError) as exc:
            raise SessionFileError(
                f"{source}: the first line is not a session header ({exc}); "
                "is this an mcp-inspect session file?"
            ) from exc
        if not isinstance(data, dict) or FORMAT_KEY not in data:
            raise SessionFileError(
                f"{source}: the first line has no {FORMAT_KEY!r} key; "
                "this is not an mcp-inspect session file"
            )
        version = data.get(FORMAT_KEY)
        if not isinstance(version, int) or version < 1:
            raise SessionFileError(f"{source}: unknown session format version {version!r}")
        if version > FORMAT_VERSION:
            raise NewerFormatError(
                f"{source}: written in session format {version} by {data.get('tool', '?')}; "
                f"this mcp-inspect ({__version__}) reads format {FORMAT_VERSION} and older. "
                "Upgrade mcp-inspect to open it."
            )
        known = {FORMAT_KEY, "tool", "target", "started", "redacted"}
        return cls(
            target=dict(data.get("target") or {}),
            started=str(data.get("started", "")),
            tool=str(data.get("tool", "")),
            version=version,
            redacted=bool(data.get("redacted", True)),
            extra={k: v for k, v in data.items() if k not in known},
        )


PIECE = 1 << 16  # a frame bigger than this is written in pieces of about this size (each is
# held about four times over while it is written: pieces of 256 KiB were a 1 MB frame)


def encode_event(event: WireEvent, redactor: Redactor | None = None) -> bytes:
    """One event as one JSON line (with the trailing newline): the same object as
    ``event_to_json``, written by hand because every frame a session or a proxy passes
    goes through here (a third of the cost of ``json.dumps`` on a dict)."""
    return b"".join(encode_event_parts(event, redactor))


def encode_event_parts(event: WireEvent, redactor: Redactor | None = None) -> Iterator[bytes]:
    """``encode_event``'s line in parts that make it up one after another: one part for
    a frame up to ``PIECE`` bytes; a bigger UTF-8 frame's text in pieces, made one at a
    time as they are written (the whole line at once held four copies of a 13 MB frame
    besides the frame and its parsed message: the peak of a big result's arrival)."""
    raw, meta, findings = _stored(event, redactor)
    pieces = _text_pieces(raw) if len(raw) > PIECE else None
    if pieces is None:
        yield _line(event, raw, meta, findings)
        return
    yield (_head(event) + '"raw": "').encode()
    for piece in pieces:
        yield _json_string(piece)[1:-1].encode()  # escaping is per character: pieces agree
    yield ('"' + _tail(meta, findings)).encode()


def encode_event_line(event: WireEvent, redactor: Redactor | None = None) -> bytes | None:
    """``encode_event``'s line in one piece, made without a generator (the recorder's
    every frame), or None for a frame big enough to be written in pieces."""
    if len(event.raw) > PIECE:
        return None
    return _line(event, *_stored(event, redactor))


def _line(event: WireEvent, raw: bytes, meta: dict[str, Any], findings: list[Any]) -> bytes:
    try:
        text = '"raw": ' + _json_string(raw.decode("utf-8"))
    except UnicodeDecodeError:
        text = f'"raw_b64": "{base64.b64encode(raw).decode("ascii")}"'
    return (_head(event) + text + _tail(meta, findings)).encode()


def _head(event: WireEvent) -> str:
    key = (event.direction, event.channel)
    where = _WHERE.get(key)
    if where is None:  # an enum's .value is a descriptor call: made once a pair
        where = _WHERE[key] = f'"dir": "{event.direction.value}", "ch": "{event.channel.value}", '
    global _last_times
    times, said = _last_times  # one snapshot: another thread may replace it meanwhile
    if times != (event.time, event.mono):  # the frames of one read share their times
        times = event.time, event.mono
        said = f'"t": {event.time:.6f}, "mono": {event.mono:.6f}, '
        _last_times = times, said
    return f'{{"seq": {event.seq}, {said}{where}'


_last_times: tuple[tuple[float, float], str] = ((-1.0, -1.0), "")


_WHERE: dict[tuple[Direction, Channel], str] = {}


def _tail(meta: dict[str, Any], findings: list[dict[str, Any]]) -> str:
    text = ""
    if meta:
        text += ', "meta": ' + _meta_json(meta)
    if findings:
        text += ', "findings": ' + EVENT_ENCODER.encode(findings)
    return text + "}\n"


def _text_pieces(raw: bytes) -> Iterator[str] | None:
    """``raw`` decoded a piece at a time, or None when it is not UTF-8 (checked first, a
    piece at a time too: nothing is written before that is known)."""
    if not raw.isascii():
        check = codecs.getincrementaldecoder("utf-8")()
        try:
            with memoryview(raw) as view:
                for start in range(0, len(raw), PIECE):
                    check.decode(view[start : start + PIECE])
            check.decode(b"", final=True)
        except UnicodeDecodeError:
            return None
    return _decoded(raw)


def _decoded(raw: bytes) -> Iterator[str]:
    decoder = codecs.getincrementaldecoder("utf-8")()  # a character cut between pieces
    with memoryview(raw) as view:
        for start in range(0, len(raw), PIECE):
            yield decoder.decode(view[start : start + PIECE])
    yield decoder.decode(b"", final=True)


# one encoder for every line: json.dumps with options builds a new one per call
EVENT_ENCODER = json.JSONEncoder(ensure_ascii=False, default=str)
# a str as a JSON string, non-ASCII kept (what EVENT_ENCODER does to a str, minus the
# Python-level calls around it)
_json_string = json.encoder.encode_basestring


_JSON_CONSTANTS = {None: "null", True: "true", False: "false"}


def _meta_json(meta: dict[str, Any]) -> str:
    """``meta`` as JSON: a flat object of strings and numbers (nearly every frame's) by
    hand, anything else by the encoder."""
    parts = []
    for key, value in meta.items():
        kind = type(value)
        if type(key) is not str:
            return EVENT_ENCODER.encode(meta)
        if kind is str:
            parts.append(f"{_json_string(key)}: {_json_string(value)}")
        elif kind is int:
            parts.append(f"{_json_string(key)}: {value}")
        elif value is None or kind is bool:
            parts.append(f"{_json_string(key)}: {_JSON_CONSTANTS[value]}")
        elif kind is dict and _all_str(value):  # a header dict: every HTTP line's
            parts.append(f"{_json_string(key)}: {_headers_json(value)}")
        else:
            return EVENT_ENCODER.encode(meta)
    return "{" + ", ".join(parts) + "}"


# a session's HTTP lines repeat a few header sets: each one's JSON made once (by its
# items, all str: checked before, so no 1 == True collisions)
_HEADER_JSON: dict[tuple[tuple[str, str], ...], str] = {}
HEADER_JSON_KEPT = 64


def _headers_json(headers: dict[str, str]) -> str:
    items = tuple(headers.items())
    text = _HEADER_JSON.get(items)
    if text is None:
        pairs = ", ".join(f"{_json_string(k)}: {_json_string(v)}" for k, v in items)
        text = f"{{{pairs}}}"
        if len(_HEADER_JSON) >= HEADER_JSON_KEPT:
            _HEADER_JSON.clear()
        _HEADER_JSON[items] = text
    return text


def _all_str(value: dict[Any, Any]) -> bool:
    for key, item in value.items():  # noqa: SIM110 (a loop: no generator frame a line)
        if type(key) is not str or type(item) is not str:
            return False
    return True


def event_to_json(event: WireEvent, redactor: Redactor | None = None) -> dict[str, Any]:
    """One event as the JSON object of its line (the proxy's control channel sends it too)."""
    data: dict[str, Any] = {
        "seq": event.seq,
        "t": round(event.time, 6),
        "mono": round(event.mono, 6),
        "dir": event.direction.value,
        "ch": event.channel.value,
    }
    raw, meta, findings = _stored(event, redactor)
    try:
        data["raw"] = raw.decode("utf-8")
    except UnicodeDecodeError:
        data["raw_b64"] = base64.b64encode(raw).decode("ascii")
    if meta:
        data["meta"] = meta
    if findings:
        data["findings"] = findings
    return data


_URL_CHANNELS = frozenset({Channel.HTTP, Channel.SYSTEM})  # frames naming URLs: the query rule


def _stored(
    event: WireEvent, redactor: Redactor | None
) -> tuple[bytes, dict[str, Any], list[dict[str, Any]]]:
    """What a line stores of ``event``: its bytes, meta and findings, redacted."""
    raw, meta = event.raw, event.meta
    findings = [f.to_json() for f in event.findings] if event.findings else []
    if redactor is not None and redactor.enabled:
        # one redaction of the bytes, before they are stored as text or as base64
        content_type = ""
        if meta:
            content_type = str(meta.get("content_type", ""))
            meta = redactor.meta(meta)
        raw = redactor.frame(raw, urls=event.channel in _URL_CHANNELS, content_type=content_type)
        if findings:
            findings = [{**f, "message": redactor.url_text(f["message"])} for f in findings]
    return raw, meta, findings


def as_stored(event: WireEvent, redactor: Redactor | None = None) -> WireEvent:
    """``event`` as its line reads back: redacted, its time to the microsecond (what
    anything reading the file later sees, so a live reader agrees with it)."""
    raw, meta, findings = _stored(event, redactor)
    message, error = event.message, event.error
    if raw != event.raw or event.channel in TEXT_CHANNELS:
        message, error = _message_of(event.channel, raw)
    return WireEvent(
        direction=event.direction,
        channel=event.channel,
        raw=raw,
        message=message,
        error=error,
        meta=meta,
        findings=[Finding.from_json(f) for f in findings],
        seq=event.seq,
        time=float(f"{event.time:.6f}"),
        mono=float(f"{event.mono:.6f}"),
    )


def as_shown(event: WireEvent, redactors: Iterable[Redactor]) -> WireEvent:
    """``event`` as the TUI prints and exports it (the event detail, its save and copy):
    the session file's redaction by each of ``redactors`` (``_stored``), its parsed
    message and error text too. ``event`` itself when none changes anything: the stored
    event stays the wire's."""
    shown = event
    for redactor in redactors:
        if not redactor.enabled:
            continue
        raw, meta, findings = _stored(shown, redactor)
        error = redactor.url_text(shown.error) if shown.error else shown.error
        message = redactor.parsed(shown.message)  # after _stored: a field's value is known
        old = [f.to_json() for f in shown.findings] if shown.findings else []
        if (raw, meta, error, findings) == (shown.raw, shown.meta, shown.error, old) and (
            message is shown.message
        ):
            continue
        shown = replace(
            shown,
            raw=raw,
            message=message,
            error=error,
            meta=meta,
            findings=[Finding.from_json(f) for f in findings],
        )
    return shown


# frames that are text, not JSON-RPC (short: parsed again whatever they hold)
TEXT_CHANNELS = frozenset({Channel.STDERR, Channel.SYSTEM, Channel.HTTP, Channel.AUTH})


def _message_of(channel: Channel, raw: bytes) -> tuple[Any, Any]:
    """The parsed message of a stored frame (a reader parses the raw bytes again)."""
    if channel is Channel.STDERR:
        return None, None
    message, error = decode(raw)
    if channel in (Channel.SYSTEM, Channel.HTTP, Channel.AUTH) and error is not None:
        # lifecycle notes, HTTP lines and OAuth exchanges are text, not failed JSON
        return None, None
    return message, error


def decode_event(line: bytes | str) -> WireEvent:
    """Parse one event line; raises ``ValueError`` when the line is not an event."""
    return event_from_json(json.loads(line))


def event_from_json(data: Any) -> WireEvent:
    """The event of one line's JSON object; raises ``ValueError`` when it is not an event."""
    if not isinstance(data, dict) or "seq" not in data:
        raise ValueError("not an event line")
    if "raw_b64" in data:
        raw = base64.b64decode(data["raw_b64"])
    else:
        raw = str(data.get("raw", "")).encode("utf-8")
    direction = Direction(data.get("dir", "in"))
    channel = Channel(data.get("ch", "stdout"))
    message, error = _message_of(channel, raw)
    return WireEvent(
        direction=direction,
        channel=channel,
        raw=raw,
        message=message,
        error=error,
        meta=dict(data.get("meta") or {}),
        findings=[Finding.from_json(f) for f in data.get("findings") or []],
        seq=int(data["seq"]),
        time=float(data.get("t", 0.0)),
        mono=float(data.get("mono", 0.0)),
    )
