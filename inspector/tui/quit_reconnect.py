"""Quitting and reconnecting: both end the session, so both first ask when that would
lose the user's work (input typed in a form and never sent, calls still waiting for the
server), and every way out (``q``, ctrl+q, SIGHUP, SIGTERM, the app's own exit) stops
the server before the app ends.

The app owns the keys and hands over what this needs: the ``Server`` (its controller:
None before ``on_mount`` and in a replay), the main screen (the form's unsent input),
and its ``connect`` worker.
"""

from __future__ import annotations

import contextlib
import signal
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from inspector.engine.kinds import CATALOG_KINDS
from inspector.engine.session import Session
from inspector.engine.signals import quit_on_signals, signal_exit_code
from inspector.live.requests import calls
from inspector.tui.screens.confirm import ConfirmScreen
from inspector.tui.screens.intercept import held_count

if TYPE_CHECKING:
    from textual.app import App

    from inspector.tui.screens.main import MainScreen
    from inspector.tui.server import Server

# requests the app sends on its own: quitting while they wait loses nothing of the user's
HOUSEKEEPING = frozenset(
    {
        "initialize",
        "ping",
        "server/discover",
        *(kind.method for kind in CATALOG_KINDS),
        "logging/setLevel",
        "completion/complete",
    }
)


def calls_waiting(session: Session | None) -> int:
    """The user's calls the server has not answered yet (the app's own housekeeping,
    the catalog's lists and completions, is not the user's work)."""
    mine = [p for p in session.pending.values() if p.method not in HOUSEKEEPING] if session else []
    return calls(mine)


def losses(unsent: list[str], waiting: int, authorizing: bool = False) -> list[str]:
    """What quitting would lose, one line each: the names of the forms holding unsent
    input (three named at most), the calls still waiting, and an OAuth flow waiting on
    the person (the browser's redirect, or the next step)."""
    lost = []
    if unsent:
        names = ", ".join(unsent[:3]) + (f" and {len(unsent) - 3} more" if len(unsent) > 3 else "")
        lost.append(f"what you typed in {names}, never sent")
    if waiting:
        lost.append(f"{_waiting(waiting)} still waiting for the server")
    if authorizing:
        lost.append("the authorization in progress (the Auth tab waits for the browser)")
    return lost


def released(held: int, doing: str) -> str:
    """What ``doing`` (quitting, reconnecting) does to the frames a proxy holds: it lets
    them go, as they are, once no inspector is left to decide (the host would wait)."""
    if not held:
        return ""
    frames = f"{held} frame{'s' * (held != 1)}"
    return (
        f"\n\n{frames} held by intercept will be released: {doing} detaches, and the "
        "proxy forwards what it holds, unchanged, and stops intercepting once no "
        "inspector is attached."
    )


def _waiting(count: int) -> str:
    return f"{count} call{'s' * (count != 1)}"


class QuitReconnect:
    """Quits (once) and reconnects for one app, asking first when work would be lost."""

    def __init__(
        self,
        app: App[Any],
        screen: MainScreen,
        server: Server,
        connect: Callable[[], object],
    ) -> None:
        """``connect`` starts the server's controller's connection."""
        self.app = app
        self.screen = screen
        self.server = server
        self.connect = connect
        self.quitting = False
        self.exit_code = 0  # 128 + N after signal N, as a shell reports a process it ended
        self._signals: contextlib.ExitStack | None = None

    def _ask(self, question: str, then: Callable[[], None]) -> None:
        """Yes or no (no "always": each quit or reconnect is asked about on its own)."""

        def answered(answer: str | None) -> None:
            if answer == "once":
                then()

        self.app.push_screen(ConfirmScreen(question, always=False), answered)

    # -- quitting ----------------------------------------------------------------------

    def quit_on_signals(self) -> None:
        """From now until ``closed``, SIGHUP and SIGTERM quit like ``q`` (the terminal app),
        with the exit status a shell gives a process the signal ended (``timeout``, a
        script: the session did not finish on its own)."""
        self._signals = contextlib.ExitStack()
        self._signals.enter_context(quit_on_signals(self._on_signal, terminal=True))

    def _on_signal(self, signum: int) -> None:
        if signum == signal.SIGHUP:
            self._stop_reading_the_terminal()
        if not self.quitting:
            self.exit_code = signal_exit_code(signum)
        self.quit()

    def _stop_reading_the_terminal(self) -> None:
        """After a hangup stdin is /dev/null (``signals.detach_from_terminal``): always
        readable, so Textual's input thread would spin on it, a whole core taken from the
        close until the app exits (the seconds a server takes to stop). Its input is
        stopped now, as the app's exit would stop it (the thread ends within a turn)."""
        driver = self.app._driver  # no public handle on it; ``disable_input`` is public
        if driver is not None:
            driver.disable_input()

    def at_stake(self, composed: bool = True) -> tuple[list[str], int]:
        """What quitting would lose on this server (input typed in a form and never sent,
        calls still waiting for the server, an OAuth flow waiting on the person), and the
        frames an attached proxy holds for intercept. ``composed``: its screen is built
        (a workspace's server never shown has no form to lose)."""
        auth = self.server.auth_ui
        authorizing = auth is not None and auth.interaction.waiting
        unsent = self.screen.item_panel.unsent() if composed else []
        lost = losses(unsent, calls_waiting(self.server.session), authorizing)
        return lost, held_count(self.server.session)

    def quit_or_ask(self, others: Sequence[tuple[str, QuitReconnect, bool]] = ()) -> None:
        """Quit, first asking when that would lose something or let go of held frames,
        on this server or on ``others`` (a workspace's: name, helper, screen built), each
        of those named."""
        if not others:
            lost, held = self.at_stake()
        else:
            lost, held = [], 0
            for name, helper, composed in others:
                its_lost, its_held = helper.at_stake(composed)
                lost.extend(f"{name}: {loss}" for loss in its_lost)
                held += its_held
        if not lost and not held:
            self.quit()
            return
        listed = "".join(f"\n• {loss}" for loss in lost)
        question = f"Quit mcp-inspect? It would lose:{listed}" if lost else "Quit mcp-inspect?"
        self._ask(
            f"{question}{released(held, 'quitting')}\n\n(ctrl+q quits without asking.)",
            self.quit,
        )

    def quit(self) -> None:
        """Start quitting (once): a worker stops the server, then exits the app."""
        if self.quitting:
            return
        self.quitting = True
        if self.server.session is not None:
            self.app.notify("stopping the server…", timeout=10)
        self.app.run_worker(self._quit(), group="quit", exit_on_error=False)

    async def _quit(self) -> None:
        controller = self.server.controller
        if controller is not None:
            await controller.shutdown()
        self.app.exit(return_code=self.exit_code)

    async def closed(self) -> None:
        """The app is unmounting (any way out: an error, ``exit()``): the same shutdown,
        a no-op when quitting already did it; the signals are theirs again."""
        controller = self.server.controller
        if controller is not None:
            await controller.shutdown()
        if self._signals is not None:
            self._signals.close()

    # -- reconnecting ------------------------------------------------------------------

    def reconnect_or_ask(self) -> None:
        """A new connection; first asking when calls still waiting would be dropped."""
        if self.server.controller is None:  # none in a replay
            self.app.notify("a replay has no server to reconnect to", severity="warning")
            return
        waiting = calls_waiting(self.server.session)
        held = held_count(self.server.session)
        if not waiting and not held:
            self._reconnect()
            return
        lost = (
            f" {_waiting(waiting)} still waiting for the server would get no answer."
            if waiting
            else ""
        )
        self._ask(f"Reconnect?{lost}{released(held, 'reconnecting')}", self._reconnect)

    def _reconnect(self) -> None:
        controller = self.server.controller
        if controller is not None:
            controller.stop()
        self.connect()
