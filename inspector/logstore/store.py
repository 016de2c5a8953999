"""EventStore: an append-only, memory-lean column store of wire events.

A million events must fit in less than twice their raw bytes, so the store keeps
no ``WireEvent`` objects and no parsed dicts: the raw frames live in one
``bytearray`` with offsets in ``array('Q')``, the per-event facts in small typed
arrays (time, direction/channel/kind codes, an interned method index, the index
of the paired request/response), and meta/findings sparsely, since most events
have none. :meth:`EventStore.event` rebuilds a ``WireEvent`` on demand by
parsing the raw bytes again (the wire is the truth).

Readers (the message log) use the :class:`EventSource` protocol, so a file-backed
source (replay) can stand in for the in-memory store. A filtered view is an index
list (:class:`FilteredView`), filled in chunks so a UI can scan a million events
without blocking; :class:`LogFilter` parses the small filter language
(``method:tools/call kind:error dir:in text``).
"""

from __future__ import annotations

from array import array
from bisect import bisect_right
from collections.abc import Callable, Hashable, Iterable
from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

from inspector.logstore.filter_query import LogFilter, is_tool_error
from inspector.wire.events import (
    ATTACH_KEY,
    SERVER_KEY,
    SIDE_KEY,
    Channel,
    Direction,
    Finding,
    Kind,
    WireEvent,
    classify,
)
from inspector.wire.jsonrpc import decode

__all__ = [
    "EventSource",
    "EventStore",
    "FilteredView",
    "LogFilter",
    "is_tool_error",
]

KINDS: tuple[Kind, ...] = tuple(Kind)
DIRECTIONS: tuple[Direction, ...] = tuple(Direction)
CHANNELS: tuple[Channel, ...] = tuple(Channel)
_KIND_CODE = {k: i for i, k in enumerate(KINDS)}
_DIR_CODE = {d: i for i, d in enumerate(DIRECTIONS)}
_CH_CODE = {c: i for i, c in enumerate(CHANNELS)}
_RESPONSE_KINDS = frozenset({_KIND_CODE[Kind.RESPONSE], _KIND_CODE[Kind.ERROR]})
_REQUEST = _KIND_CODE[Kind.REQUEST]
_ERROR = _KIND_CODE[Kind.ERROR]
_OPPOSITE = {
    _DIR_CODE[Direction.OUT]: _DIR_CODE[Direction.IN],
    _DIR_CODE[Direction.IN]: _DIR_CODE[Direction.OUT],
}

# flags column bits
_PARSED = 1  # the event carried a parsed message (rebuild parses raw again)
_EXTRA = 2  # meta / findings / a parse error that decode() would not reproduce
_NOERR = 4  # neither message nor error (a note that was never parsed)
_TOOL_ERROR = 8  # a result that says it failed (isError: true): is:error finds it
_NOPAIR = -1
MAX_PENDING = 65_536  # unanswered requests remembered for pairing (the oldest are let go)
CHUNK = 4 << 20  # raw bytes live in fixed 4 MiB chunks: no big reallocations, no slack
# the first chunk starts this small and doubles as it fills: a workspace's every server
# zeroed 4 MiB at its start (twenty servers: 80 MiB and ~3 ms of CPU each, for the few
# KiB of frames most of them ever send)
FIRST_CHUNK = 64 << 10
# a frame this big is a chunk of its own, the frame itself: whoever else keeps it (the
# result view keeps a big answer's frame) shares it with the log, no copy is made (a 1
# MB frame grew the open chunk to 2 MiB, zeros made to extend it and then its copy)
OWN_CHUNK = 256 << 10


@runtime_checkable
class EventSource(Protocol):
    """What the message log reads: a growing, indexable sequence of events."""

    def __len__(self) -> int: ...
    def event(self, i: int) -> WireEvent: ...
    def raw(self, i: int) -> bytes: ...
    def stored_size(self, i: int) -> int:
        """Bytes event ``i`` takes in this source, known without parsing it (the store:
        its raw frame; a session file: its stored line)."""
        ...

    def kind(self, i: int) -> Kind: ...
    def direction(self, i: int) -> Direction: ...
    def channel(self, i: int) -> Channel: ...
    def method(self, i: int) -> str | None: ...
    def seq(self, i: int) -> int: ...
    def time(self, i: int) -> float: ...
    def has_findings(self, i: int) -> bool: ...
    def failed(self, i: int) -> bool: ...
    def method_names(self) -> list[str]: ...
    def find_response(self, i: int) -> int | None: ...
    def find_request(self, i: int) -> int | None: ...
    def latency_ms(self, i: int) -> float | None: ...
    def matching(self, flt: LogFilter, start: int, stop: int) -> array[int]: ...


@dataclass(slots=True)
class _Extra:
    meta: dict[str, Any]
    findings: list[Finding]
    error: str | None


def _pair_key(meta: dict[str, Any], msg_id: Hashable) -> Hashable:
    """What pairs a request with its response: the id, and on a proxy's wire also whose
    frame it is (the host's id 1 and an inspector's id 1 are different requests), and for
    the host which of its sessions on an HTTP front (``link``: each numbers from 1); in
    a workspace's merged log, whose server (each numbers its requests from 1)."""
    side = meta.get(SIDE_KEY) if meta else None
    if side is None:
        server = meta.get(SERVER_KEY) if meta else None
        return msg_id if server is None else (SERVER_KEY, server, msg_id)
    link = meta.get("link") if side == "host" else None
    return (side, meta.get(ATTACH_KEY), link, msg_id)


class EventStore:
    """Append-only columns of wire events; see the module docstring."""

    def __init__(self) -> None:
        # Raw bytes: closed chunks plus one open, preallocated chunk. Offsets are global
        # (as if the chunks were one buffer); an event never straddles two chunks.
        self._chunks: list[bytes | bytearray] = []
        self._starts = array("Q", [0])  # global offset where chunk k starts (k = open one last)
        self._open = bytearray(FIRST_CHUNK)
        self._fill = 0
        self._offsets = array("Q", [0])  # event i is bytes _offsets[i]:_offsets[i + 1]
        self._time = array("d")
        self._mono = array("d")
        self._seq = array("Q")
        self._dir = array("B")
        self._ch = array("B")
        self._kind = array("B")
        self._flags = array("B")
        self._method = array("I")  # index into _methods; 0 = none
        self._pair = array("i")  # paired request/response index, -1 for none
        self._methods: list[str] = [""]
        self._method_code: dict[str, int] = {}
        self._extras: dict[int, _Extra] = {}
        # Requests still waiting for their response, per direction code: id -> index.
        # Answered ones leave, so these stay small and ids may be reused.
        self._pending: tuple[dict[Hashable, int], ...] = tuple({} for _ in DIRECTIONS)

    # -- writing -----------------------------------------------------------------

    def append(self, event: WireEvent) -> int:
        """Store one event; returns its index."""
        self.extend((event,))
        return len(self._time) - 1

    def extend(self, events: Iterable[WireEvent]) -> None:
        """Store events, in order (the columns' appends looked up once for them all: a
        flood's every event comes here)."""
        store_raw, extras = self._store_raw, self._extras
        add_offset, add_time, add_mono = self._offsets.append, self._time.append, self._mono.append
        add_seq, add_dir, add_ch = self._seq.append, self._dir.append, self._ch.append
        add_kind, add_flags = self._kind.append, self._flags.append
        add_method, add_pair = self._method.append, self._pair.append
        i = len(self._time)
        for event in events:
            raw = event.raw
            add_offset(store_raw(raw))
            add_time(event.time)
            add_mono(event.mono)
            add_seq(event.seq)
            dcode = _DIR_CODE[event.direction]
            add_dir(dcode)
            add_ch(_CH_CODE[event.channel])
            kcode = _KIND_CODE[classify(event)]
            add_kind(kcode)
            message = event.message
            flags = 0
            error = None  # kept only when parsing the raw bytes again would not give it
            if message is not None:
                flags = _PARSED
            elif event.error is None:
                flags = _NOERR
            elif decode(raw)[1] != event.error:
                error = event.error
            if kcode in _RESPONSE_KINDS and is_tool_error(message):
                flags |= _TOOL_ERROR
            if event.meta or event.findings or error is not None:
                flags |= _EXTRA
                extras[i] = _Extra(event.meta, list(event.findings), error)
            add_flags(flags)
            mcode, pair = self._pair_up(i, event, message, dcode, kcode)
            add_method(mcode)
            add_pair(pair)
            i += 1

    def _pair_up(
        self, i: int, event: WireEvent, message: Any, dcode: int, kcode: int
    ) -> tuple[int, int]:
        """Event ``i``'s method code and the index of its request or response (-1: none);
        a request waits for its response, a response finds its request."""
        if not isinstance(message, dict):
            return 0, _NOPAIR
        msg_id = message.get("id")
        if msg_id is None:  # no id (a notification) or a null one: nothing to pair
            return (self._intern(message.get("method")) if "method" in message else 0), _NOPAIR
        hashable_id = isinstance(msg_id, (str, int)) and not isinstance(msg_id, bool)
        key = _pair_key(event.meta, msg_id) if hashable_id else None
        if kcode == _REQUEST:
            mcode = self._intern(message.get("method"))
            if hashable_id:
                pending = self._pending[dcode]
                pending[key] = i
                if len(pending) > MAX_PENDING:  # never answered: stop holding memory
                    del pending[next(iter(pending))]
            return mcode, _NOPAIR
        if kcode in _RESPONSE_KINDS and hashable_id and dcode in _OPPOSITE:
            req = self._pending[_OPPOSITE[dcode]].pop(key, None)
            if req is not None:
                self._pair[req] = i
                return self._method[req], req  # a response shows its request's method
            return 0, _NOPAIR
        if "method" in message:
            return self._intern(message.get("method")), _NOPAIR
        return 0, _NOPAIR

    def _store_raw(self, raw: bytes) -> int:
        """Copy ``raw`` into the open chunk (or a chunk of its own); returns the end offset."""
        n = len(raw)
        if n >= OWN_CHUNK or self._fill + n > CHUNK:
            self._close_chunk()
            if n >= OWN_CHUNK:  # ``bytes(raw)`` is ``raw`` itself (a bytes subclass is copied)
                self._chunks.append(bytes(raw))
                self._starts.append(self._starts[-1] + n)
                return self._starts[-1]
        if self._fill + n > len(self._open):  # the open chunk, still growing
            size = len(self._open)
            while size < self._fill + n:
                size *= 2
            self._open.extend(bytes(min(size, CHUNK) - len(self._open)))
        # through a memoryview: a bytearray's slice assigned from bytes copies them into a
        # new bytearray first (a 1 MB frame held once more while it is stored)
        with memoryview(self._open) as chunk:
            chunk[self._fill : self._fill + n] = raw
        self._fill += n
        return self._starts[-1] + self._fill

    def _close_chunk(self) -> None:
        if self._fill == 0:
            return
        del self._open[self._fill :]
        self._chunks.append(self._open)
        self._starts.append(self._starts[-1] + self._fill)
        self._open = bytearray(FIRST_CHUNK)  # grows as the first one does
        self._fill = 0

    def _chunk_of(self, pos: int) -> int:
        """The chunk holding the event that starts at global offset ``pos``."""
        return bisect_right(self._starts, pos) - 1

    def _buf(self, k: int) -> bytes | bytearray:
        return self._chunks[k] if k < len(self._chunks) else self._open

    def _intern(self, method: Any) -> int:
        if not isinstance(method, str):
            return 0
        code = self._method_code.get(method)
        if code is None:
            code = len(self._methods)
            self._methods.append(method)
            self._method_code[method] = code
        return code

    # -- reading -----------------------------------------------------------------

    def __len__(self) -> int:
        return len(self._time)

    def raw(self, i: int) -> bytes:
        a, b = self._offsets[i], self._offsets[i + 1]
        if a == b:
            return b""
        k = self._chunk_of(a)
        base = self._starts[k]
        return bytes(self._buf(k)[a - base : b - base])

    def stored_size(self, i: int) -> int:
        return self._offsets[i + 1] - self._offsets[i]

    @property
    def raw_bytes(self) -> int:
        """Total raw bytes held."""
        return self._offsets[-1]

    def event(self, i: int) -> WireEvent:
        """The event rebuilt from its raw bytes and columns."""
        if i < 0:
            i += len(self)
        raw = self.raw(i)
        extra = self._extras.get(i)
        flags = self._flags[i]
        message: Any = None
        error: str | None = None
        if flags & _PARSED:
            message, error = decode(raw)
        elif extra is not None and extra.error is not None:
            error = extra.error
        elif not flags & _NOERR:
            error = decode(raw)[1]
        return WireEvent(
            direction=DIRECTIONS[self._dir[i]],
            channel=CHANNELS[self._ch[i]],
            raw=raw,
            message=message,
            error=error,
            meta=dict(extra.meta) if extra else {},
            findings=list(extra.findings) if extra else [],
            seq=self._seq[i],
            time=self._time[i],
            mono=self._mono[i],
        )

    def kind(self, i: int) -> Kind:
        return KINDS[self._kind[i]]

    def direction(self, i: int) -> Direction:
        return DIRECTIONS[self._dir[i]]

    def channel(self, i: int) -> Channel:
        return CHANNELS[self._ch[i]]

    def method(self, i: int) -> str | None:
        return self._methods[self._method[i]] or None

    def seq(self, i: int) -> int:
        return self._seq[i]

    def time(self, i: int) -> float:
        return self._time[i]

    def mono(self, i: int) -> float:
        return self._mono[i]

    def meta(self, i: int) -> dict[str, Any]:
        extra = self._extras.get(i)
        return extra.meta if extra else {}

    def findings(self, i: int) -> list[Finding]:
        extra = self._extras.get(i)
        return extra.findings if extra else []

    def has_findings(self, i: int) -> bool:
        extra = self._extras.get(i)
        return bool(extra and extra.findings)

    def failed(self, i: int) -> bool:
        """A JSON-RPC error, or a result with ``isError: true`` (what ``is:error`` finds)."""
        return self._kind[i] == _ERROR or bool(self._flags[i] & _TOOL_ERROR)

    def method_names(self) -> list[str]:
        """Every method seen so far (for completing ``method:``)."""
        return self._methods[1:]

    def add_finding(self, i: int, finding: Finding) -> None:
        """Attach a finding found later (the lint may run after the event was stored)."""
        extra = self._extras.get(i)
        if extra is None:
            extra = self._extras[i] = _Extra({}, [], None)
            self._flags[i] |= _EXTRA
        extra.findings.append(finding)

    def pair(self, i: int) -> int | None:
        """The paired request (for a response) or response (for a request)."""
        p = self._pair[i]
        return None if p == _NOPAIR else p

    def find_response(self, i: int) -> int | None:
        return self.pair(i) if self._kind[i] == _REQUEST else None

    def find_request(self, i: int) -> int | None:
        return self.pair(i) if self._kind[i] in _RESPONSE_KINDS else None

    def latency_ms(self, i: int) -> float | None:
        """Time between a request and its response (on either of the two)."""
        p = self._pair[i]
        if p == _NOPAIR:
            return None
        return abs(self._mono[i] - self._mono[p]) * 1000.0

    def index_of_seq(self, seq: int) -> int | None:
        """Index of the event with this sequence number (seqs are increasing)."""
        i = bisect_right(self._seq, seq) - 1
        return i if i >= 0 and self._seq[i] == seq else None

    def nbytes(self) -> int:
        """Approximate memory held by the columns and raw bytes (not the sparse dicts)."""
        cols = (
            self._offsets,
            self._time,
            self._mono,
            self._seq,
            self._dir,
            self._ch,
            self._kind,
            self._flags,
            self._method,
            self._pair,
        )
        return self.raw_bytes + sum(c.itemsize * len(c) for c in cols)

    # -- filtering ---------------------------------------------------------------

    def matching(self, flt: LogFilter, start: int, stop: int) -> array[int]:
        """Indices in ``[start, stop)`` that match ``flt`` (one chunk of a scan)."""
        stop = min(stop, len(self))
        out = array("I")
        if start >= stop:
            return out
        check = self._column_check(flt)
        if flt.patterns:
            first, rest = flt.patterns[0], flt.patterns[1:]
            off, starts = self._offsets, self._starts
            pos, end = off[start], off[stop]
            k = self._chunk_of(pos)
            while pos < end:
                buf, base = self._buf(k), starts[k]
                chunk_end = min(end, base + (len(buf) if k < len(self._chunks) else self._fill))
                while pos < chunk_end:
                    m = first.search(buf, pos - base, chunk_end - base)
                    if m is None:
                        break
                    i = bisect_right(off, base + m.start(), start, stop + 1) - 1
                    nxt = off[i + 1]
                    # A match running into the next frame is not a match of either.
                    if (
                        base + m.end() <= nxt
                        and (check is None or check(i))
                        and all(p.search(buf, off[i] - base, nxt - base) for p in rest)
                    ):
                        out.append(i)
                    pos = nxt
                pos = max(pos, chunk_end)
                k += 1
            return out
        if check is None:
            return array("I", range(start, stop))
        out.extend(i for i in range(start, stop) if check(i))
        return out

    def _column_check(self, flt: LogFilter) -> Callable[[int], bool] | None:
        tests: list[Callable[[int], bool]] = []
        if flt.kinds:
            kinds = bytes(_KIND_CODE[k] for k in flt.kinds)
            kcol = self._kind
            tests.append(lambda i: kcol[i] in kinds)
        if flt.directions:
            dirs = bytes(_DIR_CODE[d] for d in flt.directions)
            dcol = self._dir
            tests.append(lambda i: dcol[i] in dirs)
        if flt.channels:
            chans = bytes(_CH_CODE[c] for c in flt.channels)
            ccol = self._ch
            tests.append(lambda i: ccol[i] in chans)
        if flt.methods:
            codes = frozenset(
                c for c, name in enumerate(self._methods) if c and flt.method_matches(name)
            )
            mcol = self._method
            tests.append(lambda i: mcol[i] in codes)
        if flt.findings:
            tests.append(self.has_findings)
        if flt.errors:
            tests.append(self.failed)
        if flt.servers:  # a workspace's frames carry their server's name in their meta
            tests.append(lambda i: flt.server_matches(self.meta(i).get(SERVER_KEY)))
        if not tests:
            return None
        if len(tests) == 1:
            return tests[0]
        return lambda i: all(t(i) for t in tests)


def scan_matching(source: EventSource, flt: LogFilter, start: int, stop: int) -> array[int]:
    """A plain implementation of ``EventSource.matching`` over the read API.

    For sources without a faster path (a file-backed replay index): one ``raw(i)``
    per event whose columns match.
    """
    out = array("I")
    for i in range(start, min(stop, len(source))):
        if flt.kinds and source.kind(i) not in flt.kinds:
            continue
        if flt.directions and source.direction(i) not in flt.directions:
            continue
        if flt.channels and source.channel(i) not in flt.channels:
            continue
        if flt.methods:
            method = source.method(i)
            if method is None or not flt.method_matches(method):
                continue
        if flt.findings and not source.has_findings(i):
            continue
        if flt.errors and not source.failed(i):
            continue
        if flt.servers and not flt.server_matches(source.event(i).meta.get(SERVER_KEY)):
            continue
        if flt.patterns:
            raw = source.raw(i)
            if not all(p.search(raw) for p in flt.patterns):
                continue
        out.append(i)
    return out


class FilteredView:
    """The indices of a source that match a filter, filled in chunks as it grows.

    ``step()`` scans at most ``budget`` more events and returns whether the view has
    caught up with the source; call it again as events arrive (new matches append).
    """

    def __init__(self, source: EventSource, flt: LogFilter) -> None:
        self.source = source
        self.filter = flt
        self.indices: array[int] = array("I")
        self.scanned = 0

    def __len__(self) -> int:
        return len(self.indices)

    def __getitem__(self, row: int) -> int:
        return self.indices[row]

    @property
    def done(self) -> bool:
        return self.scanned >= len(self.source)

    def step(self, budget: int = 50_000) -> bool:
        stop = min(len(self.source), self.scanned + budget)
        if stop > self.scanned:
            self.indices.extend(self.source.matching(self.filter, self.scanned, stop))
            self.scanned = stop
        return self.done

    def catch_up(self) -> None:
        while not self.step():
            pass

    def row_of(self, index: int) -> int | None:
        """The row showing event ``index``, if it is in the view."""
        row = bisect_right(self.indices, index) - 1
        return row if row >= 0 and self.indices[row] == index else None

    def nearest_row(self, index: int) -> int:
        """The row of ``index`` or of the last matching event before it (0 if none)."""
        return max(0, bisect_right(self.indices, index) - 1)
