"""``SessionOptions``: how a session talks to its server, said once.

    options = SessionOptions(timeout=30, protocol_version="2025-11-25", roots=("/src",))

The command line builds one from its flags (``commands/options.session_options``); the
TUI's launcher, app and session controller pass it on whole instead of restating each
option as a keyword. Headless: no Textual, no argparse.
"""

from __future__ import annotations

from dataclasses import dataclass

DEFAULT_TIMEOUT = 60.0  # seconds, reset by progress


@dataclass(frozen=True)
class SessionOptions:
    """A session's options: request timeouts, a pinned protocol version, roots offered."""

    timeout: float = DEFAULT_TIMEOUT  # per request, reset by progress
    max_timeout: float | None = None  # hard maximum per request (None: the session's default)
    protocol_version: str | None = None  # None: find the newest era the server speaks
    roots: tuple[str, ...] = ()  # paths offered as roots (the TUI's roots editor starts here)
