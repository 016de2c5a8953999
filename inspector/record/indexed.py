"""A session file as an ``EventSource`` without loading it: offsets, not events.

``IndexedSessionFile(path)`` reads the header and indexes the first megabyte,
so a screen of events is there at once; the rest is indexed in chunks (call
:meth:`index_step` from a worker, iterate :meth:`index_async`, or
:meth:`start_thread`). The index is one ``array('Q')`` of line start offsets
(8 bytes an event); lines are read on demand through ``mmap`` and decoded events
sit in a small LRU cache bounded by count and bytes. Column accessors
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
import mmap
import os
import re
import threading
from array import array
from bisect import bisect_right
from collections import OrderedDict
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import anyio

from inspector.logstore.store import LogFilter, is_tool_error
from inspector.record.format import SessionFileError, SessionHeader, decode_event
from inspector.record.huge_line import HEAD, HUGE_LINE, head_event
from inspector.wire.events import (
    SERVER_KEY,
    Channel,
    Direction,
    Kind,
    WireEvent,
    classify_message,
)
from inspector.wire.jsonrpc import decode

FIRST_CHUNK = 1 << 20  # indexed before the constructor returns: the first screen
CHUNK = 8 << 20  # one background step
FACTS_STEP = 10_000  # events a background prefetch step parses
PAIR_WINDOW = 20_000  # lines searched for a request's response (and back)
CACHE_EVENTS = 2048
CACHE_BYTES = 64 << 20
KEEP_TAIL = 1 << 16  # the bytes of a line's end ``keep`` is given
_MARK = b'{"seq":'
_NL_MARK = b"\n" + _MARK
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


class IndexedSessionFile:
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
        self.path = Path(path)
        self._keep = keep
        self.warnings: list[str] = []
        self.unreadable = 0  # lines skipped or shown as notes because they do not decode
        self.torn = False
        try:
            self._fh = open(self.path, "rb")  # noqa: SIM115 - closed by close()
        except FileNotFoundError:
            raise SessionFileError(f"{self.path}: no such file") from None
        except IsADirectoryError:
            raise SessionFileError(f"{self.path}: is a directory, not a session file") from None
        except OSError as exc:
            raise SessionFileError(f"{self.path}: cannot be read: {exc.strerror or exc}") from exc
        try:
            first = self._fh.readline(1 << 20)
            if not first.strip():
                raise SessionFileError(f"{self.path}: the file is empty; nothing was recorded")
            self.header = SessionHeader.from_line(first, str(self.path))
            self.size = os.fstat(self._fh.fileno()).st_size
            self._mm: mmap.mmap | bytes = (
                mmap.mmap(self._fh.fileno(), 0, access=mmap.ACCESS_READ) if self.size else b""
            )
        except BaseException:
            self._fh.close()
            raise
        self._pos = len(first) if first.endswith(b"\n") else self.size
        self._torn_at = -1  # the file size when the last line was found torn
        self._starts = array("Q")
        # Facts learnt when an event is first decoded, so filters and rows need not
        # decode it again: kind/direction/channel packed in one byte (0 = not yet),
        # and the method as an interned code (0 = not yet, 1 = none).
        self._facts = bytearray()
        self._method_code = array("I")
        self._methods: list[str] = ["", ""]
        self._method_index: dict[str, int] = {}
        self._lock = threading.Lock()  # one indexer at a time
        self._cache: OrderedDict[int, WireEvent] = OrderedDict()
        self._cache_bytes = 0
        self._cache_events = cache_events
        self._cache_limit = cache_bytes
        self._tool_errors: set[int] = set()  # results with isError: true (learnt by _light)
        self._pairs: dict[int, int] = {}  # index -> paired index, -1 = none found
        self._bad_lines: set[int] = set()
        self._line_ends: dict[int, int] = {}  # start -> end of lines past a step's budget
        self._thread: threading.Thread | None = None
        self._stop = threading.Event()
        self.index_step(first_chunk)

    # -- indexing --------------------------------------------------------------------

    @property
    def indexed_bytes(self) -> int:
        return self._pos

    @property
    def done(self) -> bool:
        return self._pos >= self.size or self._torn_at == self.size

    @property
    def progress(self) -> float:
        """Indexed fraction of the file, 0.0 .. 1.0."""
        return 1.0 if self.done else self._pos / self.size

    def index_step(self, budget: int = CHUNK) -> bool:
        """Index about ``budget`` more bytes; returns True when the whole file is indexed.

        Chunks are read with ``pread`` (not through the map), so indexing leaves no
        file pages mapped into the process: its RSS stays the index, not the file.
        """
        with self._lock:
            if self.done:
                return True
            pos, size, fd = self._pos, self.size, self._fh.fileno()
            chunk = os.pread(fd, min(max(budget, 1), size - pos), pos)
            cut = chunk.rfind(b"\n")
            if cut < 0 and pos + len(chunk) < size:  # a line longer than the budget
                return self._index_long_line(pos)
            # stop at the last whole line (the rest is the next chunk's), without a copy
            length = cut + 1 if pos + len(chunk) < size else len(chunk)
            complete = chunk.endswith(b"\n", 0, length)
            starts = self._scan(chunk, length, pos, complete)
            end = pos + length
            if not complete:
                end = self._tail(chunk, pos, starts)
            starts = self._kept(starts, chunk, pos)
            # columns first, offsets last: len() counts offsets, so a reader never sees
            # an event whose columns are not there yet
            self._facts.extend(bytes(len(starts)))
            self._method_code.extend(array("I", bytes(4 * len(starts))))
            self._starts.extend(starts)  # one C call: readers never see half a chunk
            self._pos = end
            return self.done

    def _index_long_line(self, pos: int) -> bool:
        """Index the one line at ``pos`` that is longer than a step's budget (a recorded
        300 MB result): its end found by reading on in 1 MB pieces that are let go (growing
        a chunk until a newline came copied it over and over: 50-95 s for 300 MB), and
        kept, so its size is known without scanning it again."""
        end, at, fd = -1, pos, self._fh.fileno()
        while at < self.size:
            piece = os.pread(fd, min(1 << 20, self.size - at), at)
            if not piece:
                break
            cut = piece.find(b"\n")
            if cut >= 0:
                end = at + cut
                break
            at += len(piece)
        if end >= 0:
            self._line_ends[pos] = end
        if end < 0:  # the file's last line, unterminated: kept if it decodes, else torn
            chunk = self._mm[pos : self.size]
            starts = array("Q")
            self._pos = self._tail(bytes(chunk), pos, starts)
            starts = self._kept(starts, bytes(chunk), pos)
        else:
            starts = array("Q")
            if self._mm[pos : pos + len(_MARK)] == _MARK:
                starts.append(pos)
            else:  # not written by us: decided on its head, not parsed whole
                self.unreadable += 1
                self.warnings.append(
                    f"{self.path}: skipped a line that is not an event (at byte {pos})"
                )
            self._pos = end + 1
            if starts and self._keep is not None:
                tail = min(KEEP_TAIL, end - pos)
                starts = self._kept(starts, os.pread(fd, tail, end - tail), end - tail)
        self._facts.extend(bytes(len(starts)))
        self._method_code.extend(array("I", bytes(4 * len(starts))))
        self._starts.extend(starts)
        return self.done

    def _kept(self, starts: array[int], chunk: bytes, base: int) -> array[int]:
        """The lines of ``chunk`` (at file offset ``base``) that ``keep`` accepts."""
        if self._keep is None:
            return starts
        kept = array("Q")
        for start in starts:
            at = max(start - base, 0)
            end = chunk.find(b"\n", at)
            end = len(chunk) if end < 0 else end
            if self._keep(chunk[max(at, end - KEEP_TAIL) : end]):
                kept.append(start)
        return kept

    def refresh(self) -> bool:
        """Pick up bytes appended since opening (a file still being recorded); returns
        True when the file grew. Call it from the thread that reads events."""
        with self._lock:
            size = os.fstat(self._fh.fileno()).st_size
            if size <= self.size:
                return False
            old, self._mm = self._mm, mmap.mmap(self._fh.fileno(), 0, access=mmap.ACCESS_READ)
            if isinstance(old, mmap.mmap):
                old.close()
            self.size = size
            if self.torn:  # the torn line may be whole now: it is read again
                self.torn = False
                self.warnings = [w for w in self.warnings if "torn last line" not in w]
            self._torn_at = -1
            self._pairs = {k: v for k, v in self._pairs.items() if v >= 0}
            return True

    def _scan(self, chunk: bytes, length: int, base: int, complete: bool) -> array[int]:
        """Start offsets of the complete event lines in ``chunk[:length]`` (fast path: no
        per-line parsing; counting the line-start marker proves every line looks like an
        event)."""
        starts = array("Q")
        body_end = length if complete else chunk.rfind(b"\n", 0, length) + 1
        if body_end <= 0:
            return starts
        find, add = chunk.find, starts.append
        pos = 0
        while pos < body_end:
            add(base + pos)
            pos = find(b"\n", pos, body_end) + 1
        lines = len(starts)
        marked = chunk.count(_NL_MARK, 0, body_end - 1) + chunk.startswith(_MARK)
        if marked == lines:
            return starts
        good = array("Q")
        for start in starts:  # slow path, only for chunks holding odd lines
            at = start - base
            if chunk.startswith(_MARK, at):
                good.append(start)
                continue
            line = chunk[at : chunk.find(b"\n", at)]
            if _is_event(line):  # written by another tool, keys in another order
                good.append(start)
            elif line.strip():
                self.unreadable += 1
                self.warnings.append(
                    f"{self.path}: skipped a line that is not an event (at byte {start})"
                )
        return good

    def _tail(self, chunk: bytes, base: int, starts: array[int]) -> int:
        """The last line has no newline: keep it if it decodes, else skip it as torn.
        Returns where indexing stands (a torn line is read again after ``refresh``)."""
        at = chunk.rfind(b"\n") + 1
        tail = chunk[at:]
        if not tail.strip():
            return base + len(chunk)
        try:
            decode_event(tail)
        except (ValueError, KeyError, TypeError):
            self.torn = True
            self._torn_at = self.size
            self.warnings.append(
                f"{self.path}: skipped a torn last line ({len(tail)} bytes; "
                "the recording was cut short)"
            )
            return base + at
        starts.append(base + at)
        return base + len(chunk)

    def index_all(self) -> None:
        while not self.index_step():
            pass

    async def index_async(self, budget: int = CHUNK) -> AsyncIterator[float]:
        """Index in chunks, yielding the progress after each (for a TUI worker).

        Each chunk runs in a worker thread, so the event loop stays free.
        """
        while not self.done:
            await anyio.to_thread.run_sync(self.index_step, budget)
            yield self.progress

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
        self._stop.set()
        if self._thread is not None and self._thread is not threading.current_thread():
            self._thread.join(timeout=5)
        with self._lock:
            if isinstance(self._mm, mmap.mmap):
                self._mm.close()
                self._mm = b""
            self._fh.close()
            self._cache.clear()

    def __enter__(self) -> IndexedSessionFile:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- lines and events ------------------------------------------------------------

    def __len__(self) -> int:
        return len(self._starts)

    def line(self, i: int) -> bytes:
        """The stored JSON line of event ``i`` (without its newline)."""
        start = self._starts[i]
        return self._mm[start : start + self.stored_size(i)]

    def stored_size(self, i: int) -> int:
        """The stored line's bytes (the frame inside it may be escaped or base64), found
        without copying the line."""
        start = self._starts[i]
        end = self._line_ends.get(start)
        if end is None:
            end = self._mm.find(b"\n", start)
        return (self.size if end < 0 else end) - start

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


def _is_event(line: bytes) -> bool:
    if not line.lstrip().startswith(b"{"):
        return False
    try:
        decode_event(line)
    except (ValueError, KeyError, TypeError):
        return False
    return True


def _pack(event: WireEvent) -> int:
    return 1 + _K[event.kind] * _KIND_SPAN + _D[event.direction] * _DIR_SPAN + _C[event.channel]


def _verbatim(term: str) -> bool:
    return not any(c in term for c in '"\\') and all(ord(c) >= 0x20 for c in term)
