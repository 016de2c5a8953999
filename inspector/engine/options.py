"""``SessionOptions``: how a session talks to its server, said once.

    options = SessionOptions(timeout=30, protocol_version="2025-11-25", roots=("/src",))

The command line builds one from its flags (``commands/options.session_options``); the
TUI's launcher, app and session controller pass it on whole instead of restating each
option as a keyword. Headless: no Textual, no argparse.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

DEFAULT_TIMEOUT = 60.0  # seconds, reset by progress


@dataclass(frozen=True)
class SessionOptions:
    """A session's options: request timeouts, a pinned protocol version, roots offered."""

    timeout: float = DEFAULT_TIMEOUT  # per request, reset by progress
    max_timeout: float | None = None  # hard maximum per request (None: the session's default)
    protocol_version: str | None = None  # None: find the newest era the server speaks
    roots: tuple[str, ...] = ()  # paths offered as roots (the TUI's roots editor starts here)

    def with_given(
        self,
        *,
        timeout: float | None = None,
        max_timeout: float | None = None,
        protocol_version: str | None = None,
    ) -> SessionOptions:
        """These options with those given (not None) in their place."""
        return replace(
            self,
            timeout=self.timeout if timeout is None else timeout,
            max_timeout=self.max_timeout if max_timeout is None else max_timeout,
            protocol_version=self.protocol_version
            if protocol_version is None
            else protocol_version,
        )
