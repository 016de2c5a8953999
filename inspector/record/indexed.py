"""A session file as an ``EventSource`` without loading it: offsets, not events.

``IndexedSessionFile(path)`` reads the header and indexes the first megabyte,
so a screen of events is there at once; the rest is indexed in chunks (call
:meth:`index_step` from a worker, iterate :meth:`index_async`, or
:meth:`start_thread`). The index (``line_index.py``) is one ``array('Q')`` of line
start offsets (8 bytes an event); lines are read on demand through ``mmap`` and decoded
events sit in a small LRU cache bounded by count and bytes. Column accessors
(``kind``, ``method`` ...) decode the event; pairing scans a bounded window of
neighbouring lines and is cached.

``keep`` indexes only the lines it accepts (judged on each line's last ``KEEP_TAIL``
bytes, where a stored frame's meta is): one server's frames of a workspace's file,
read from that file, no copy.

Damage is tolerated and reported in ``warnings``: a torn last line is skipped,
lines that are not event lines are counted and skipped at indexing time, and a
line that starts like an event but does not decode shows as a local note.
"""

from __future__ import annotations

import base64
import json
import os
import re
import threading
from array import array
from bisect import bisect_right
from collections import OrderedDict
from collections.abc import Callable
from typing import Any

from inspector.logstore.store import LogFilter, is_tool_error
from inspector.record.format import decode_event
from inspector.record.huge_line import HEAD, HUGE_LINE, head_event
from inspector.record.line_index import CHUNK, FIRST_CHUNK, LineIndex
from inspector.wire.events import (
    SERVER_KEY,
    Channel,
    Direction,
    Kind,
    WireEvent,
    classify_message,
)
from inspector.wire.jsonrpc import decode

FACTS_STEP = 10_000  # events a background prefetch step parses
PAIR_WINDOW = 20_000  # lines searched for a request's response (and back)
CACHE_EVENTS = 2048
CACHE_BYTES = 64 << 20
_B64 = re.compile(rb'"raw_b64": ')
_RESPONSES = (Kind.RESPONSE, Kind.ERROR)
_KINDS = tuple(Kind)
_DIRS = tuple(Direction)
_CHANNELS = tuple(Channel)
_K = {k: n for n, k in enumerate(_KINDS)}
_D = {d: n for n, d in enumerate(_DIRS)}
_C = {c: n for n, c in enumerate(_CHANNELS)}
_DIR_SPAN = len(_CHANNELS)
_KIND_SPAN = len(_DIRS) * _DIR_SPAN
assert len(_KINDS) * _KIND_SPAN < 255 and len(_DIRS) == 3
_OPPOSITE = {Direction.OUT: Direction.IN, Direction.IN: Direction.OUT}


class IndexedSessionFile(LineIndex):
    """A read-only, lazily indexed session file; implements the ``EventSource`` protocol."""

    def __init__(
        self,
        path: str | os.PathLike[str],
        *,
        first_chunk: int = FIRST_CHUNK,
        cache_events: int = CACHE_EVENTS,
        cache_bytes: int = CACHE_BYTES,
        keep: Callable[[bytes], bool] | None = None,
    ) -> None:
        # Facts learnt when an event is first decoded, so filters and rows need not
        # decode it again: kind/direction/channel packed in one byte (0 = not yet),
        # and the method as an interned code (0 = not yet, 1 = none).
        self._facts = bytearray()
        self._method_code = array("I")
        self._methods: list[str] = ["", ""]
        self._method_index: dict[str, int] = {}
        self._cache: OrderedDict[int, WireEvent] = OrderedDict()
        self._cache_bytes = 0
        self._cache_events = cache_events
        self._cache_limit = cache_bytes
        self._tool_errors: set[int] = set()  # results with isError: true (learnt by _light)
        self._pairs: dict[int, int] = {}  # index -> paired index, -1 = none found
        self._bad_lines: set[int] = set()
        super().__init__(path, first_chunk=first_chunk, keep=keep)

    def _add_columns(self, count: int) -> None:
        self._facts.extend(bytes(count))
        self._method_code.extend(array("I", bytes(4 * count)))

    def _file_grew(self) -> None:
        self._pairs = {k: v for k, v in self._pairs.items() if v >= 0}

    # -- indexing in a thread --------------------------------------------------------

    def start_thread(
        self,
        on_progress: Callable[[float], Any] | None = None,
        budget: int = CHUNK,
        facts: bool = False,
    ) -> threading.Thread:
        """Index the rest in a daemon thread; ``on_progress`` is called from that thread.

        With ``facts``, the thread then learns every event's kind/direction/channel
        (:meth:`prefetch`), so later column filters need not parse lines.
        """
        if self._thread is not None:
            return self._thread

        def run() -> None:
            while not self._stop.is_set():
                finished = self.index_step(budget)
                if on_progress is not None:
                    on_progress(self.progress)
                if finished:
                    break
            at = 0
            while facts and at < len(self) and not self._stop.is_set():
                self.prefetch(at, at + FACTS_STEP)
                at += FACTS_STEP

        self._thread = threading.Thread(target=run, name="session-index", daemon=True)
        self._thread.start()
        return self._thread

    def close(self) -> None:
        super().close()
        self._cache.clear()

    def __enter__(self) -> IndexedSessionFile:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- events ----------------------------------------------------------------------

    def summary_event(self, i: int) -> WireEvent:
        """The event for its log row: :meth:`event`, but a line past ``HUGE_LINE`` not
        already decoded is read by its head only (``huge_line``), never whole."""
        if i < 0:
            i += len(self)
        if i in self._cache or self.stored_size(i) <= HUGE_LINE:
            return self.event(i)
        start = self._starts[i]
        return head_event(bytes(self._mm[start : start + HEAD]), self.stored_size(i))

    def event(self, i: int) -> WireEvent:
        if i < 0:
            i += len(self)
        found = self._cache.get(i)
        if found is not None:
            self._cache.move_to_end(i)
            return found
        event = self._decode(i)
        self._cache[i] = event
        self._cache_bytes += len(event.raw)
        while self._cache and (
            len(self._cache) > self._cache_events or self._cache_bytes > self._cache_limit
        ):
            _, old = self._cache.popitem(last=False)
            self._cache_bytes -= len(old.raw)
        return event

    def _decode(self, i: int) -> WireEvent:
        line = self.line(i)
        try:
            return decode_event(line)
        except (ValueError, KeyError, TypeError) as exc:
            if i not in self._bad_lines:
                self._bad_lines.add(i)
                self.unreadable += 1
                self.warnings.append(
                    f"{self.path}: unreadable event line at byte "
                    f"{self._starts[i]} ({exc.__class__.__name__})"
                )
            text = f"unreadable line in the session file at byte {self._starts[i]}: {exc}"
            return WireEvent(
                Direction.LOCAL,
                Channel.SYSTEM,
                text.encode("utf-8"),
                meta={"severity": "error", "unreadable": True},
                seq=0,
            )

    def events(self, start: int = 0, stop: int | None = None) -> list[WireEvent]:
        """Events ``[start, stop)`` decoded (not cached): for exports and replay plans."""
        stop = len(self) if stop is None else min(stop, len(self))
        return [self._decode(i) for i in range(start, stop)]

    # -- EventSource columns -------------------------------------------------------

    def raw(self, i: int) -> bytes:
        return self.event(i).raw

    def _light(self, i: int) -> tuple[int, str | None, Any]:
        """(packed kind/direction/channel, top-level method, id) of event ``i``, parsed
        without building a WireEvent or touching the cache (filters and pairing scan
        many events). Same rules as ``decode_event`` + ``classify``; a huge line is read
        by its head (``huge_line``)."""
        if self.stored_size(i) > HUGE_LINE:
            event = self.summary_event(i)
            self._facts[i] = _pack(event)
            head = event.message if isinstance(event.message, dict) else {}
            named = head.get("method")
            return self._facts[i], named if isinstance(named, str) else None, head.get("id")
        try:
            data = json.loads(self.line(i))
            direction = Direction(data.get("dir", "in"))
            channel = Channel(data.get("ch", "stdout"))
            int(data["seq"])
        except (ValueError, KeyError, TypeError, AttributeError):
            event = self.event(i)  # the unreadable-line note, warned about once
            return _pack(event), None, None
        message: Any = None
        if channel is Channel.STDERR:
            kind = Kind.STDERR
        elif channel is Channel.SYSTEM or direction is Direction.LOCAL:
            kind = Kind.SYSTEM
        elif channel in (Channel.HTTP, Channel.AUTH):
            kind = Kind.HTTP
        else:
            if "raw_b64" in data:
                raw = base64.b64decode(data["raw_b64"])
            else:
                raw = str(data.get("raw", "")).encode("utf-8")
            message, error = decode(raw)
            kind = classify_message(message, error)
        code = 1 + _K[kind] * _KIND_SPAN + _D[direction] * _DIR_SPAN + _C[channel]
        if kind in _RESPONSES and is_tool_error(message):
            self._tool_errors.add(i)
        self._facts[i] = code
        if isinstance(message, dict):
            method = message.get("method")
            return code, method if isinstance(method, str) else None, message.get("id")
        return code, None, None

    def _fact(self, i: int) -> int:
        code = self._facts[i]
        if not code:
            code = self._light(i)[0]
        return code - 1

    def kind(self, i: int) -> Kind:
        return _KINDS[self._fact(i) // _KIND_SPAN]

    def direction(self, i: int) -> Direction:
        return _DIRS[self._fact(i) // _DIR_SPAN % 3]

    def channel(self, i: int) -> Channel:
        return _CHANNELS[self._fact(i) % _DIR_SPAN]

    def method(self, i: int) -> str | None:
        code = self._method_code[i]
        if not code:
            if self.kind(i) in _RESPONSES:  # a response shows its request's method
                req = self.find_request(i)
                name = self.method(req) if req is not None else None
            else:
                name = self._light(i)[1]
            code = self._intern(name)
            self._method_code[i] = code
        return self._methods[code] or None

    def _intern(self, name: str | None) -> int:
        if name is None:
            return 1
        code = self._method_index.get(name)
        if code is None:
            code = self._method_index[name] = len(self._methods)
            self._methods.append(name)
        return code

    # rows' columns: a huge line answers from its head (summary_event), never decoded whole

    def seq(self, i: int) -> int:
        return self.summary_event(i).seq

    def time(self, i: int) -> float:
        return self.summary_event(i).time

    def mono(self, i: int) -> float:
        return self.summary_event(i).mono

    def has_findings(self, i: int) -> bool:
        return bool(self.summary_event(i).findings)

    def failed(self, i: int) -> bool:
        """A JSON-RPC error, or a result with ``isError: true``."""
        kind = self.kind(i)  # learns the facts (and a tool error) when not yet known
        return kind is Kind.ERROR or i in self._tool_errors

    def method_names(self) -> list[str]:
        """The methods learnt so far (events are decoded lazily: not every one yet)."""
        return self._methods[2:]

    # -- pairing ----------------------------------------------------------------------

    def find_response(self, i: int) -> int | None:
        if self.kind(i) is not Kind.REQUEST:
            return None
        return self._pair(i, forward=True)

    def find_request(self, i: int) -> int | None:
        if self.kind(i) not in _RESPONSES:
            return None
        return self._pair(i, forward=False)

    def latency_ms(self, i: int) -> float | None:
        kind = self.kind(i)
        if kind is Kind.REQUEST:
            p = self.find_response(i)
        elif kind in _RESPONSES:
            p = self.find_request(i)
        else:
            return None
        return None if p is None else abs(self.mono(i) - self.mono(p)) * 1000.0

    def _pair(self, i: int, forward: bool) -> int | None:
        cached = self._pairs.get(i)
        if cached is not None:
            return None if cached < 0 else cached
        code, _, msg_id = self._light(i)
        other_dir = _OPPOSITE.get(_DIRS[(code - 1) // _DIR_SPAN % 3])
        if other_dir is None or not isinstance(msg_id, str | int) or isinstance(msg_id, bool):
            return None
        want = _RESPONSES if forward else (Kind.REQUEST,)
        total = len(self)
        rng = (
            range(i + 1, min(total, i + 1 + PAIR_WINDOW))
            if forward
            else range(i - 1, max(-1, i - 1 - PAIR_WINDOW), -1)
        )
        for j in rng:
            line = self.line(j)
            if b'\\"id\\"' not in line and b'"raw_b64"' not in line:
                continue  # cheap: a message with an id has the escaped key in its line
            other, _, other_id = self._light(j)
            other -= 1
            if (
                _DIRS[other // _DIR_SPAN % 3] is other_dir
                and _KINDS[other // _KIND_SPAN] in want
                and other_id == msg_id
                and type(other_id) is type(msg_id)
            ):
                self._pairs[i] = j
                self._pairs[j] = i
                return j
        if (forward and i + PAIR_WINDOW < total) or not forward or self.done:
            self._pairs[i] = -1  # final: the window was complete
        return None

    def prefetch(self, start: int, stop: int) -> None:
        """Learn kind/direction/channel of events ``[start, stop)`` ahead of a column
        filter (about 8 us an event the first time; run it in a worker thread)."""
        facts = self._facts
        for i in range(start, min(stop, len(self))):
            if not facts[i]:
                self._light(i)

    # -- filtering ----------------------------------------------------------------------

    def matching(self, flt: LogFilter, start: int, stop: int) -> array[int]:
        """Indices in ``[start, stop)`` that match ``flt``. A text term is first searched
        for in the stored lines of the whole range at once (a term without characters
        JSON escapes appears verbatim there), then checked on the decoded frame."""
        stop = min(stop, len(self))
        out = array("I")
        if start >= stop:
            return out
        plain = [p for p, t in zip(flt.patterns, flt.terms, strict=False) if _verbatim(t)]
        candidates = self._candidates(plain[0], start, stop) if plain else range(start, stop)
        for i in candidates:
            if self._matches(flt, i):
                out.append(i)
        return out

    def _candidates(self, pattern: re.Pattern[bytes], start: int, stop: int) -> list[int]:
        """Lines in ``[start, stop)`` whose stored bytes match, plus base64 lines."""
        starts, mm = self._starts, self._mm
        lo = starts[start]
        hi = starts[stop] if stop < len(starts) else self.size
        found: set[int] = set()
        for pat in (pattern, _B64):
            pos = lo
            while pos < hi:
                m = pat.search(mm, pos, hi)
                if m is None:
                    break
                i = bisect_right(starts, m.start(), start, stop) - 1
                found.add(i)
                nxt = i + 1
                pos = starts[nxt] if nxt < len(starts) else hi
        return sorted(found)

    def _matches(self, flt: LogFilter, i: int) -> bool:
        if flt.kinds and self.kind(i) not in flt.kinds:
            return False
        if flt.directions and self.direction(i) not in flt.directions:
            return False
        if flt.channels and self.channel(i) not in flt.channels:
            return False
        if flt.methods:
            method = self.method(i)
            if method is None or not flt.method_matches(method):
                return False
        if flt.findings and not self.has_findings(i):
            return False
        if flt.errors and not self.failed(i):
            return False
        if flt.servers and not flt.server_matches(self.event(i).meta.get(SERVER_KEY)):
            return False
        if flt.patterns:
            raw = self.raw(i)
            return all(p.search(raw) for p in flt.patterns)
        return True


def _pack(event: WireEvent) -> int:
    return 1 + _K[event.kind] * _KIND_SPAN + _D[event.direction] * _DIR_SPAN + _C[event.channel]


def _verbatim(term: str) -> bool:
    return not any(c in term for c in '"\\') and all(ord(c) >= 0x20 for c in term)
