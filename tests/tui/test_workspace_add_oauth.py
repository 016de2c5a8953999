"""A server added at run time (ctrl+n) gets the OAuth settings the command line gave the
workspace's servers at start (the --oauth flags over a config entry's ``oauth``), through
the real app and its keys: by a config name and by a URL."""

from __future__ import annotations

import json
from functools import partial
from pathlib import Path

import pytest
from servers.http_support import dead_port
from test_tui_workspace import states
from tui_helpers import wait_for

from inspector.commands import build_parser, workspace
from inspector.commands.options import with_oauth
from inspector.target import demo_target
from inspector.tui.app import InspectorApp
from inspector.tui.mode import Live
from inspector.workspace.status import State


def workspace_config(tmp_path: Path, url: str) -> str:
    demo = demo_target()
    servers = {
        "demo": {"command": demo.command, "args": demo.args},
        "guarded": {"url": url, "type": "http", "oauth": {"clientId": "from-config"}},
    }
    path = tmp_path / "mcp.json"
    path.write_text(json.dumps({"mcpServers": servers}), encoding="utf-8")
    return str(path)


@pytest.mark.slow
async def test_ctrl_n_servers_get_the_workspaces_oauth_settings(tmp_path: Path) -> None:
    url = f"http://127.0.0.1:{dead_port()}/mcp"  # nothing listens: no flow ever starts
    config = workspace_config(tmp_path, url)
    flags = ["--config", config, "--no-store", "--scope", "mcp:read"]
    opts = build_parser(subcommands=False).parse_args(flags)
    (first, *others) = workspace.entries(opts, [])  # type: ignore[arg-type]
    at_start = others[0].target.oauth
    assert at_start is not None and at_start.client_id == "from-config"
    app = InspectorApp(
        Live(first.target),
        workspace=[(e.name, e.target, None) for e in others],
        config=config,
        prepare=partial(with_oauth, opts),  # as the command line runs the workspace
    )
    async with app.run_test(size=(120, 35)) as pilot:
        await wait_for(pilot, lambda: states(app)["demo"] is State.CONNECTED, timeout=60)
        # by the config's name: its entry's oauth under the flags, as at start
        await pilot.press("escape", "ctrl+n", *"guarded", "enter")
        await wait_for(pilot, lambda: len(app.views) == 3 and app.view is app.views[2])
        by_name = app.views[2].server.target
        assert by_name is not None and by_name.oauth == at_start
        assert app.views[2].server.auth_ui is not None  # its Auth tab, as at start
        # by a URL: the flags' settings (no config entry under them)
        await pilot.press("escape", "ctrl+n", *url, "enter")
        await wait_for(pilot, lambda: len(app.views) == 4 and app.view is app.views[3])
        by_url = app.views[3].server.target
        assert by_url is not None and by_url.oauth is not None
        assert by_url.oauth.scopes == ["mcp:read"] and not by_url.oauth.store
        assert by_url.oauth.client_id is None


def test_one_server_from_a_config_lets_ctrl_n_name_its_others(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`--config FILE --server NAME` opens one server; ctrl+n then takes the file's other
    names as a workspace's does (the app was never given the file)."""
    from inspector.commands import default

    config = workspace_config(tmp_path, f"http://127.0.0.1:{dead_port()}/mcp")
    seen: list[str | None] = []

    def run(app: InspectorApp) -> None:  # the app as the command line built it, not run
        seen.append(app.workspace.config)
        assert app.workspace.entries_for("guarded")[0].target.url is not None

    monkeypatch.setattr(InspectorApp, "run", run)
    monkeypatch.setattr(default, "require_terminal", lambda message: None)
    opts = build_parser(subcommands=False).parse_args(
        ["--config", config, "--server", "demo", "--no-record"]
    )
    assert default.run(opts, []) == 0
    assert seen == [config]
