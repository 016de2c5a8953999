"""What the command line prints on stderr: terminal-safe and redacted, in one place each.

Dozens of places write to stderr (the error JSON, notes, ``--stderr`` lines, a traceback)
and many of their strings are not ours: server messages, paths, names from configs, URLs.
Rather than each remembering the rules, stderr itself is a stream that applies them line
by line: :func:`safe_stderr` (every control character made visible, as server text is:
``inspector.safe_text``) for the whole run, and :func:`redacted_stderr` (the session
file's redaction) around a connection. Textual draws on ``sys.__stderr__``, untouched.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING

from inspector.safe_text import LineStream, terminal_lines

if TYPE_CHECKING:
    from inspector.record.redact import Redactor


@contextmanager
def _wrapped(clean: Callable[[str], str]) -> Iterator[LineStream]:
    inner = sys.stderr
    stream = LineStream(inner, clean)
    sys.stderr = stream
    try:
        yield stream
    finally:
        stream.flush()
        sys.stderr = inner


@contextmanager
def safe_stderr() -> Iterator[LineStream]:
    """``sys.stderr`` with every control character made visible inside the block."""
    with _wrapped(terminal_lines) as stream:
        yield stream


@contextmanager
def redacted_stderr(redactor: Redactor) -> Iterator[LineStream]:
    """``sys.stderr`` redacted by ``redactor`` inside the block (secrets it learns
    meanwhile, such as OAuth tokens, included)."""
    with _wrapped(redactor.url_text) as stream:
        yield stream
