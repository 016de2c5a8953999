"""An incremental Server-Sent Events parser (WHATWG "event stream interpretation").

Feed it bytes as they arrive; it returns the complete events. Unlike a browser it
keeps what a browser throws away, because the inspector shows the wire: the exact
bytes of every event block, comment lines (keep-alives), fields it does not know
(garbage between events) and events without data (2025-11-25 priming events).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from inspector.errors import InspectorError

_BOM = b"\xef\xbb\xbf"
DEFAULT_MAX_EVENT_BYTES = 64 * 1024 * 1024


class SseError(InspectorError):
    """The stream cannot be parsed any further (an event larger than the limit)."""


@dataclass(slots=True)
class SseEvent:
    """One dispatched event block (ended by a blank line, or cut off by the stream end)."""

    raw: bytes  # the exact bytes of the block, blank line included
    event: str = ""  # the ``event:`` field; empty means "message"
    data: bytes = b""  # ``data:`` lines joined with b"\n"
    has_data: bool = False  # at least one ``data`` field was present
    id: str | None = None  # the ``id:`` field of this block, when it had one
    retry: int | None = None  # the ``retry:`` field in milliseconds, when valid
    comments: list[str] = field(default_factory=list)
    unknown: list[str] = field(default_factory=list)  # lines that are not SSE fields
    complete: bool = True  # False: the stream ended before the blank line

    @property
    def event_type(self) -> str:
        return self.event or "message"

    @property
    def is_priming(self) -> bool:
        """An id (or retry) with empty data: a resumption cursor, not a message."""
        return (self.id is not None or self.retry is not None) and not self.data

    @property
    def is_comment_only(self) -> bool:
        return bool(self.comments) and not (
            self.has_data
            or self.id is not None
            or self.retry is not None
            or self.event
            or self.unknown
        )

    @property
    def is_garbage(self) -> bool:
        """Only lines that are not SSE fields (an HTML page, a log line...)."""
        return bool(self.unknown) and not (
            self.has_data or self.id is not None or self.retry is not None or self.event
        )


class SseParser:
    """Incremental parser: ``feed(chunk)`` -> completed events; ``close()`` -> the cut-off one."""

    def __init__(self, max_event_bytes: int = DEFAULT_MAX_EVENT_BYTES) -> None:
        self._buf = bytearray()
        self._block = bytearray()  # raw bytes of the event block being built
        self._current = SseEvent(raw=b"")
        self._data_lines: list[bytes] = []
        self._started = False  # BOM check done
        self._max = max_event_bytes

    def feed(self, chunk: bytes) -> list[SseEvent]:
        if not chunk:
            return []
        self._buf += chunk
        if not self._started:
            if len(self._buf) < len(_BOM) and _BOM.startswith(bytes(self._buf)):
                return []
            if self._buf.startswith(_BOM):
                del self._buf[: len(_BOM)]
            self._started = True
        return self._drain(final=False)

    def close(self) -> SseEvent | None:
        """The stream ended: return an event cut off mid-block (not dispatched by a browser)."""
        self._drain(final=True)
        if self._buf:  # a last line without its terminator
            self._line(bytes(self._buf), bytes(self._buf))
            self._buf.clear()
        if not self._block:
            return None
        event = self._finish()
        event.complete = False
        return event

    def _drain(self, final: bool) -> list[SseEvent]:
        events: list[SseEvent] = []
        buf = self._buf
        pos = 0
        size = len(buf)
        while pos < size:
            nl = buf.find(b"\n", pos)
            cr = buf.find(b"\r", pos, nl if nl >= 0 else size)
            if cr >= 0:
                if cr + 1 == size and not final:
                    break  # a CR at the end of the chunk may be half of CRLF
                end = cr
                nxt = cr + 2 if cr + 1 < size and buf[cr + 1] == 0x0A else cr + 1
            elif nl >= 0:
                end, nxt = nl, nl + 1
            else:
                break
            line = bytes(buf[pos:end])
            if self._line(line, bytes(buf[pos:nxt])):
                events.append(self._finish())
            pos = nxt
        del buf[:pos]
        if len(buf) + len(self._block) > self._max:
            raise SseError(f"an SSE event is larger than {self._max} bytes")
        return events

    def _line(self, line: bytes, with_eol: bytes) -> bool:
        """Process one line; True when it ends an event block."""
        if not line:
            if not self._block:
                return False  # blank lines between events carry nothing
            self._block += with_eol
            return True
        self._block += with_eol
        ev = self._current
        if line.startswith(b":"):
            ev.comments.append(line[1:].lstrip(b" ").decode("utf-8", "replace"))
            return False
        name, sep, value = line.partition(b":")
        if sep and value.startswith(b" "):
            value = value[1:]
        if name == b"data":
            self._data_lines.append(value)
            ev.has_data = True
        elif name == b"event":
            ev.event = value.decode("utf-8", "replace")
        elif name == b"id":
            if b"\x00" not in value:
                ev.id = value.decode("utf-8", "replace")
        elif name == b"retry":
            if value.isdigit():
                ev.retry = int(value)
            else:
                ev.unknown.append(line.decode("utf-8", "replace"))
        else:
            ev.unknown.append(line.decode("utf-8", "replace"))
        return False

    def _finish(self) -> SseEvent:
        ev = self._current
        ev.raw = bytes(self._block)
        ev.data = b"\n".join(self._data_lines)
        self._block.clear()
        self._data_lines = []
        self._current = SseEvent(raw=b"")
        return ev
