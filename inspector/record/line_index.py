"""Where each event line of a session file starts, found without loading the file.

``LineIndex(path)`` reads the header and indexes the first megabyte, so a screen of
events is there at once; the rest is indexed in chunks (call :meth:`index_step` from a
worker or iterate :meth:`index_async`). The index is one ``array('Q')`` of line start
offsets (8 bytes an event); a line is read on demand through ``mmap``. A torn last line
is skipped (and read again after :meth:`refresh`), lines that are not event lines are
counted and skipped, each reported in ``warnings``. ``IndexedSessionFile``
(``indexed.py``) reads the events of these lines.

``keep`` indexes only the lines it accepts (judged on each line's last ``KEEP_TAIL``
bytes, where a stored frame's meta is): one server's frames of a workspace's file,
read from that file, no copy.
"""

from __future__ import annotations

import mmap
import os
import threading
from array import array
from collections.abc import AsyncIterator, Callable
from pathlib import Path

import anyio

from inspector.record.format import SessionFileError, SessionHeader, decode_event

FIRST_CHUNK = 1 << 20  # indexed before the constructor returns: the first screen
CHUNK = 8 << 20  # one background step
KEEP_TAIL = 1 << 16  # the bytes of a line's end ``keep`` is given
_MARK = b'{"seq":'
_NL_MARK = b"\n" + _MARK


class LineIndex:
    """The start offsets of a session file's event lines, indexed lazily."""

    def __init__(
        self,
        path: str | os.PathLike[str],
        *,
        first_chunk: int = FIRST_CHUNK,
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
        self._lock = threading.Lock()  # one indexer at a time
        self._line_ends: dict[int, int] = {}  # start -> end of lines past a step's budget
        self._thread: threading.Thread | None = None
        self._stop = threading.Event()
        self.index_step(first_chunk)

    def _add_columns(self, count: int) -> None:
        """Called (under the lock) before ``count`` more offsets are added: a reader's
        columns for them come first, as ``len()`` counts offsets."""

    def _file_grew(self) -> None:
        """Called (under the lock) when :meth:`refresh` found the file grown."""

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
            self._add_columns(len(starts))
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
        self._add_columns(len(starts))
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
            self._file_grew()
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

    def close(self) -> None:
        self._stop.set()
        if self._thread is not None and self._thread is not threading.current_thread():
            self._thread.join(timeout=5)
        with self._lock:
            if isinstance(self._mm, mmap.mmap):
                self._mm.close()
                self._mm = b""
            self._fh.close()

    # -- lines -----------------------------------------------------------------------

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


def _is_event(line: bytes) -> bool:
    if not line.lstrip().startswith(b"{"):
        return False
    try:
        decode_event(line)
    except (ValueError, KeyError, TypeError):
        return False
    return True
