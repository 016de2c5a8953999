"""Hangup and terminate end a session the way quitting does.

Without a handler, SIGHUP (the terminal closed) and SIGTERM (``kill``, a service manager)
end the process at once and ``Session.close`` never runs: the server would be left to
the lifeline watchdog's blunt SIGTERM, and the session file would lack its last notes.
The CLI and the TUI (and anything else that runs a session) hand these signals to the
same callback that quitting uses, so every way out goes through ``Session.close``.
What no handler can catch (``kill -9``) is left to ``inspector.transports.lifeline``.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import threading
from collections.abc import Callable, Iterator
from types import FrameType
from typing import Any

QUIT_SIGNALS = (signal.SIGHUP, signal.SIGTERM)
HANGUP_DEADLINE = 20.0  # after a hangup, the process ends by then whatever else happens


@contextlib.contextmanager
def quit_on_signals(callback: Callable[[int], None], *, terminal: bool = False) -> Iterator[None]:
    """While inside, SIGHUP and SIGTERM call ``callback(signal number)`` in the event loop
    instead of ending the process. Outside the main thread nothing is installed.

    ``terminal``: the process draws on a terminal. A hangup means the terminal is gone:
    at once (before the event loop gets to run), stdin/stdout/stderr are pointed at
    /dev/null and SIGCONT/SIGTSTP get their default actions back, so that nothing blocks
    or fails writing to the closed terminal and a UI does not try to take it back (the
    kernel sends SIGCONT with the hangup); and the process ends within
    ``HANGUP_DEADLINE`` seconds even if the event loop is stuck."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    loop = asyncio.get_running_loop()

    def handler(signum: int, _frame: FrameType | None) -> None:
        if terminal and signum == signal.SIGHUP:
            _hung_up()
        loop.call_soon_threadsafe(callback, signum)

    previous: dict[signal.Signals, Any] = {}
    for sig in QUIT_SIGNALS:
        previous[sig] = signal.signal(sig, handler)
    try:
        yield
    finally:
        for sig, old in previous.items():
            signal.signal(sig, old)


def _hung_up() -> None:
    detach_from_terminal()
    for sig in (signal.SIGCONT, signal.SIGTSTP):
        signal.signal(sig, signal.SIG_DFL)
    timer = threading.Timer(HANGUP_DEADLINE, os._exit, (signal_exit_code(signal.SIGHUP),))
    timer.daemon = True
    timer.start()


def signal_exit_code(signum: int) -> int:
    """The exit status a shell reports for a process ended by ``signum``."""
    return 128 + signum


def detach_from_terminal() -> None:
    """After a hangup the terminal is gone: point stdin, stdout and stderr at /dev/null,
    so that whatever still writes to them (a UI restoring the screen, a last message)
    neither fails nor blocks on it while the session closes."""
    with contextlib.suppress(OSError):
        null = os.open(os.devnull, os.O_RDWR)
        for fd in (0, 1, 2):
            with contextlib.suppress(OSError):
                os.dup2(null, fd)
        os.close(null)
