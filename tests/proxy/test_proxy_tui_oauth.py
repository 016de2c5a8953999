"""An attached TUI follows the proxy's own OAuth flow in an Auth tab: the proxy in front of
an OAuth-protected SDK server waits for a person (its host's log has the URL); the TUI
shows the URL, `o` opens it, and the browser's redirect reaches the proxy's loopback
listener. Through the real app and keys."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import anyio
import httpx
import pytest
from proxy_support import proxy_argv, runtime_folder, wait_for_proxy
from textual.widgets import Button, TabbedContent
from tui_helpers import wait_for

from inspector.engine.session import Session
from inspector.target import Target
from inspector.transports.stdio import StdioTransport
from inspector.tui.app import InspectorApp
from inspector.tui.widgets.auth_view import AuthView
from tests.servers.http_support import sdk_server

pytestmark = pytest.mark.slow  # end to end: see pyproject's markers

SIZE = (150, 45)


@pytest.fixture
def runtime() -> Iterator[Path]:
    with runtime_folder() as folder:
        yield folder


def connected(app: InspectorApp) -> bool:
    return app.controller is not None and app.controller.connected


async def test_an_attached_tui_opens_the_proxys_authorization(
    runtime: Path, tmp_path: Path
) -> None:
    with sdk_server("3600", script="oauth_sdk_server.py") as base:
        url = f"{base}/mcp"
        argv = proxy_argv(
            "--name", "oauth-tui", "--record", str(tmp_path / "p.jsonl"),
            "--auth-timeout", "60", url,
        )  # fmt: skip
        env = {"MCP_INSPECT_RUNTIME_DIR": str(runtime), "XDG_STATE_HOME": str(tmp_path / "s")}
        async with (
            Session(StdioTransport(argv[0], argv[1:], env=env), timeout=60) as host,
            anyio.create_task_group() as tg,
        ):
            initialized = anyio.Event()

            async def host_initializes() -> None:
                await host.initialize()  # it waits: the proxy needs a person
                initialized.set()

            tg.start_soon(host_initializes)
            app = InspectorApp(Target(attach=str(await wait_for_proxy("oauth-tui"))))
            opened: list[str] = []
            async with app.run_test(size=SIZE) as pilot:
                await wait_for(
                    pilot,
                    lambda: (
                        app.observed_auth is not None
                        and app.observed_auth.view is not None
                        and app.observed_auth.view.url is not None
                    ),
                    timeout=30,
                )
                assert app.observed_auth is not None
                view = app.observed_auth.view
                assert isinstance(view, AuthView) and view.url is not None
                assert url in view.server_url  # what the proxy is in front of
                view.opener = opened.append  # the browser, recorded
                tabs = app.query_one("#bottom-tabs", TabbedContent)
                button = view.query_one("#auth-open", Button)
                await wait_for(pilot, lambda: tabs.active == "tab-auth" and button.has_focus)
                # nothing to paste or cancel here: the flow is the proxy's
                assert not view.query_one("#auth-paste").display
                assert not view.query_one("#auth-cancel").display
                await pilot.press("o")
                assert opened == [view.url] and "/authorize?" in opened[0]
                async with httpx.AsyncClient(follow_redirects=True) as browser:
                    page = await browser.get(opened[0])  # the person, in the browser
                assert page.status_code == 200, page.text
                await wait_for(
                    pilot, lambda: view.url is None and view.state.startswith("authorized")
                )
                assert not view.query_one("#auth-person").display
                await wait_for(
                    pilot, lambda: app.controller is not None and app.controller.connected
                )
            with anyio.fail_after(30):
                await initialized.wait()  # the host's own handshake went through too


async def test_no_auth_tab_on_a_proxy_without_oauth(runtime: Path, tmp_path: Path) -> None:
    """`a` (the Auth tab's key) on a proxy whose server has no OAuth says so."""
    argv = proxy_argv("--name", "plain", "--no-record", "--", "python", "-m", "inspector.demo")
    env = {"MCP_INSPECT_RUNTIME_DIR": str(runtime)}
    async with Session(StdioTransport(argv[0], argv[1:], env=env), timeout=30) as host:
        await host.initialize()
        app = InspectorApp(Target(attach=str(await wait_for_proxy("plain"))))
        async with app.run_test(size=SIZE) as pilot:
            await wait_for(pilot, lambda: connected(app))
            await pilot.press("A")
            await pilot.pause(0.1)
            assert not app.query("#auth")
            said = [n.message for n in app._notifications]
            assert "no OAuth on this proxy's server so far" in said
            assert app.observed_auth is not None and app.observed_auth.view is None
