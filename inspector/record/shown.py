"""What mcp-inspect prints gets the session file's redaction: the one place for stderr.

A server that echoes the ``Authorization`` header in an HTTP error body puts the token
into the error's message; a CI log keeps stderr forever. Rather than each of the dozens
of places that write to stderr (the error JSON, notes, ``--stderr``, a traceback)
remembering to redact, :func:`redacted_stderr` puts a stream in front of ``sys.stderr``
that passes each line through the recorder's :class:`Redactor` (registered secrets,
credential query values and passwords in URLs). The TUI does the same for its toasts
(``InspectorApp.notify``).
"""

from __future__ import annotations

import io
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TextIO

from inspector.record.redact import Redactor

PENDING_LIMIT = 1 << 16  # characters held waiting for the end of a line


class RedactedStream(io.TextIOBase):
    """A text stream writing to ``inner`` line by line, each line redacted (a secret
    never spans lines, and a line is the unit its writers use)."""

    def __init__(self, inner: TextIO, redactor: Redactor) -> None:
        super().__init__()
        self.inner = inner
        self.redactor = redactor
        self._pending = ""

    def write(self, text: str) -> int:
        self._pending += text
        if "\n" in text or len(self._pending) > PENDING_LIMIT:
            done, newline, self._pending = self._pending.rpartition("\n")
            if not newline:  # a long piece without a line end: out as it is
                done, self._pending = self._pending, ""
            self.inner.write(self.redactor.url_text(done + newline))
        return len(text)

    def flush(self) -> None:
        if self._pending:
            self.inner.write(self.redactor.url_text(self._pending))
            self._pending = ""
        self.inner.flush()

    def fileno(self) -> int:
        return self.inner.fileno()

    def isatty(self) -> bool:
        return self.inner.isatty()

    def writable(self) -> bool:
        return True

    @property
    def encoding(self) -> str:  # type: ignore[override]
        return self.inner.encoding


@contextmanager
def redacted_stderr(redactor: Redactor) -> Iterator[RedactedStream]:
    """``sys.stderr`` redacted by ``redactor`` inside the block (secrets it learns
    meanwhile, such as OAuth tokens, included)."""
    inner = sys.stderr
    stream = RedactedStream(inner, redactor)
    sys.stderr = stream  # type: ignore[assignment]
    try:
        yield stream
    finally:
        stream.flush()
        sys.stderr = inner
