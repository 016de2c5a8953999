"""The write-ahead recorder: each event is on disk before anything acts on it."""

from __future__ import annotations

import contextlib
import os
from pathlib import Path
from typing import BinaryIO

from inspector.record.format import (
    Redactor,
    SessionHeader,
    encode_event_line,
    encode_event_parts,
)
from inspector.record.private import open_private, private_dirs
from inspector.wire.events import WireEvent


class Recorder:
    """Appends events to a session file, flushing each one (a crash leaves a readable file).

    The file is 0600 and the folders created for it 0700 (``inspector.record.private``).

    Write failures (disk full, file removed) do not stop the session: the first one
    is kept in ``error`` for the UI to show, and recording stops.
    """

    def __init__(
        self,
        path: str | os.PathLike[str],
        header: SessionHeader,
        redactor: Redactor | None = None,
        fsync: bool = False,
    ) -> None:
        self.path = Path(path)
        self.redactor = redactor or Redactor()
        self.fsync = fsync
        self.error: str | None = None
        self.count = 0
        private_dirs(self.path.parent)
        self._file: BinaryIO | None = open_private(self.path)
        header.redacted = self.redactor.enabled
        header.target = redact_target(header.target, self.redactor)
        self.header = header  # as written (a live trace takes its ids from it)
        self._write(header.to_line())

    def write(self, event: WireEvent, *, flush: bool = True) -> None:
        """Append ``event``; ``flush`` False leaves it in the file's buffer until the next
        ``flush`` (a relay flushes before it passes the frames on: still write-ahead,
        with one write for a burst of frames instead of one each)."""
        line = encode_event_line(event, self.redactor)
        if line is not None:
            self._write(line, flush=False)
        else:
            for part in encode_event_parts(event, self.redactor):  # a big frame in pieces
                self._write(part, flush=False)
        if flush:
            self.flush()
        self.count += 1

    def flush(self) -> None:
        """Hand what is buffered to the file system (and fsync, when asked for)."""
        if self._file is None:
            return
        try:
            self._file.flush()
            if self.fsync:
                os.fsync(self._file.fileno())
        except OSError as exc:
            self.error = f"recording to {self.path} stopped: {exc}"
            self.close()

    def _write(self, line: bytes, flush: bool = True) -> None:
        if self._file is None:
            return
        try:
            self._file.write(line)
        except OSError as exc:
            self.error = f"recording to {self.path} stopped: {exc}"
            self.close()
            return
        if flush:
            self.flush()

    def close(self) -> None:
        if self._file is not None:
            with contextlib.suppress(OSError):
                self._file.close()
            self._file = None


def redact_target(target: dict[str, object], redactor: Redactor) -> dict[str, object]:
    """Secrets out of a header's target: env values, auth headers, URL credentials."""
    return redactor.target(dict(target)) if redactor.enabled else target
