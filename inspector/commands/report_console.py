"""The Rich console the text reports print on (``diff``, ``lint``, ``replay``).

Rich ends a program whose reader left (``mcp-inspect diff A B | head``) with exit 1 of
its own, and 1 is a verdict in these commands ("breaking differences", "an error-level
issue"). This console raises the ``BrokenPipeError`` instead, and the command line ends
as a pipe's writer does, with 141, in one place (``inspector.commands.main``).
"""

from __future__ import annotations

from rich.console import Console


class ReportConsole(Console):
    """Server text shown as it is (no highlighting), lines never cut; a closed pipe raised."""

    def __init__(self) -> None:
        super().__init__(highlight=False, soft_wrap=True)

    def on_broken_pipe(self) -> None:
        self.quiet = True  # nothing more to write: the reader is gone
        raise BrokenPipeError
