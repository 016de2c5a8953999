"""A workspace config with the demo and an OAuth-protected server (the official SDK's
server auth), through the command line's entries and the real app: the OAuth server
says "needs authorization" in the server list, nothing is asked of the person at start
(no browser, no Auth tab brought forward, no screen composed for it); choosing it (W,
Enter) starts its flow, and once authorized it connects."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from servers.http_support import sdk_server
from test_tui_auth import be_the_browser
from test_tui_workspace import states, tools
from textual.widgets import Button, TabbedContent
from tui_helpers import view_text, wait_for

from inspector.commands import build_parser, workspace
from inspector.target import demo_target
from inspector.tui.app import InspectorApp
from inspector.tui.mode import Live
from inspector.tui.screens.server_list import ServerListScreen
from inspector.workspace.status import State

pytestmark = pytest.mark.slow  # an OAuth flow end to end


@pytest.fixture
def oauth_url() -> Iterator[str]:
    with sdk_server("3600", script="oauth_sdk_server.py") as base:
        yield f"{base}/mcp"


def workspace_config(tmp_path: Path, url: str) -> str:
    demo = demo_target()
    servers = {
        "demo": {"command": demo.command, "args": demo.args},
        "guarded": {"url": url, "type": "http"},
    }
    path = tmp_path / "mcp.json"
    path.write_text(json.dumps({"mcpServers": servers}), encoding="utf-8")
    return str(path)


def app_for(config: str) -> InspectorApp:
    """The app as ``mcp-inspect --config FILE --no-store`` makes it."""
    opts = build_parser(subcommands=False).parse_args(["--config", config, "--no-store"])
    (first, *others) = workspace.entries(opts, [])  # type: ignore[arg-type]
    assert others[0].target.oauth is not None  # the command line gives it OAuth
    return InspectorApp(
        Live(first.target), workspace=[(e.name, e.target, None) for e in others], config=config
    )


async def test_an_oauth_server_needs_authorization_until_it_is_chosen(
    tmp_path: Path, oauth_url: str
) -> None:
    app = app_for(workspace_config(tmp_path, oauth_url))
    async with app.run_test(size=(120, 35)) as pilot:
        await wait_for(
            pilot,
            lambda: states(app) == {"demo": State.CONNECTED, "guarded": State.NEEDS_AUTH},
            timeout=60,
        )
        demo, guarded = app.views
        auth = guarded.server.auth_ui
        assert auth is not None
        opened: list[str] = []
        auth.view.opener = opened.append  # the browser, recorded
        # nothing asked of the person: no URL, no browser, no dialog, its screen not built
        assert auth.view.url is None and opened == []
        assert app.view is demo and app.screen is demo.main and not guarded.started
        assert not any("authorization" in str(n.title) for n in app._notifications)
        await pilot.press("escape", "W")
        await wait_for(pilot, lambda: isinstance(app.screen, ServerListScreen))
        rows = " ".join(" ".join(s.row()) for s in app.screen.rows)  # type: ignore[attr-defined]
        assert "needs authorization" in rows
        # chosen: shown, its flow started, the Auth tab in front with the URL
        await pilot.press("up", "down", "enter")
        await wait_for(pilot, lambda: app.view is guarded and app.screen is guarded.main)
        await wait_for(pilot, lambda: auth.view.url is not None, timeout=30)
        tabs = guarded.main.query_one("#bottom-tabs", TabbedContent)
        opener = auth.view.query_one("#auth-open", Button)
        await wait_for(pilot, lambda: tabs.active == "tab-auth" and opener.has_focus)
        assert opened == []  # the browser waits for the person's consent
        await pilot.press("enter")
        await wait_for(pilot, lambda: len(opened) == 1)
        await be_the_browser(opened[0])
        await wait_for(pilot, lambda: guarded.status.state is State.CONNECTED, timeout=30)
        await wait_for(pilot, lambda: "whoami" in tools(app))
        assert demo.server.auth_ui is None  # the demo (stdio) never had a flow


async def test_its_auth_key_starts_the_flow_of_the_server_shown(
    tmp_path: Path, oauth_url: str
) -> None:
    """Shown without the list's Enter (as the app shows a server on its own), the held
    server's screen says to press A; A starts its flow."""
    app = app_for(workspace_config(tmp_path, oauth_url))
    async with app.run_test(size=(120, 35)) as pilot:
        await wait_for(pilot, lambda: states(app)["guarded"] is State.NEEDS_AUTH, timeout=60)
        guarded = app.views[1]
        auth = guarded.server.auth_ui
        assert auth is not None
        await app.workspace.show(guarded)
        result = guarded.main.result_view
        await wait_for(pilot, lambda: "press A" in view_text(result))
        assert auth.view.url is None and guarded.main.status_bar.state == "needs authorization"
        await pilot.press("escape", "A")
        await wait_for(pilot, lambda: auth.view.url is not None, timeout=30)
        tabs = guarded.main.query_one("#bottom-tabs", TabbedContent)
        await wait_for(pilot, lambda: tabs.active == "tab-auth")
        assert states(app)["guarded"] is State.CONNECTING
