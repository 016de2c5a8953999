"""``proxy --unwrap CONFIG``: the servers ``--wrap`` put behind the proxy, started
directly again, read off what ``--wrap`` wrote."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from cli_runner import cli

from inspector.config import ConfigError
from inspector.proxy.unwrap import unwrap_config
from inspector.proxy.wrap import wrap_config, wrap_every, write_config

LAUNCHER = ["/opt/bin/mcp-inspect"]

CONFIG: dict[str, Any] = {
    "mcpServers": {
        "weather": {"command": "node", "args": ["build/index.js"], "env": {"KEY": "${KEY}"}},
        "bare": {"command": "server-bin"},  # no args: comes back with an empty list
        "remote": {
            "type": "http",
            "url": "https://example.com/mcp",
            "headers": {"Authorization": "Bearer ${input:token}", "X-Trace": "on"},
            "env": {"REGION": "eu"},
        },
        "events": {"type": "sse", "url": "https://example.com/sse"},
        "cursor": {"url": "https://cursor.example/mcp"},  # no type: none comes back
        "login": {
            "type": "http",
            "url": "https://auth.example/mcp",
            "oauth": {
                "clientId": "my-client",
                "clientSecret": "${SECRET}",
                "callbackPort": 8123,
                "scopes": "mcp:read mcp:write",
                "clientMetadataUrl": "https://me.example/client.json",
            },
        },
    },
    "globalShortcut": "Ctrl+Space",
}


def test_unwrap_undoes_wrap_for_every_kind_of_entry() -> None:
    wrapped, now, _ = wrap_every(CONFIG, "host.json", LAUNCHER)
    assert now == list(CONFIG["mcpServers"])
    restored, undone, others = unwrap_config(wrapped, "host.json")
    assert (undone, others) == (now, [])
    expected = json.loads(json.dumps(CONFIG))
    expected["mcpServers"]["bare"]["args"] = []
    assert restored == expected
    # the stdio entry's keys stay where they were
    assert list(restored["mcpServers"]["weather"]) == ["command", "args", "env"]


def test_unwrap_one_server_leaves_the_others() -> None:
    wrapped, _, _ = wrap_every(CONFIG, "host.json", LAUNCHER)
    restored, undone, others = unwrap_config(wrapped, "host.json", "remote")
    assert undone == ["remote"] and "weather" in others
    assert restored["mcpServers"]["remote"] == CONFIG["mcpServers"]["remote"]
    assert restored["mcpServers"]["weather"] == wrapped["mcpServers"]["weather"]
    with pytest.raises(ConfigError, match="'remote' does not run through mcp-inspect proxy"):
        unwrap_config(restored, "host.json", "remote")
    with pytest.raises(ConfigError, match="no server named 'nope'"):
        unwrap_config(restored, "host.json", "nope")


def test_a_credential_variable_the_user_removed_comes_back_as_a_reference() -> None:
    wrapped, _ = wrap_config(CONFIG, "host.json", "remote", LAUNCHER)
    del wrapped["mcpServers"]["remote"]["env"]["MCP_HEADER_AUTHORIZATION"]
    restored, _, _ = unwrap_config(wrapped, "host.json", "remote")
    headers = restored["mcpServers"]["remote"]["headers"]
    assert headers["Authorization"] == "${MCP_HEADER_AUTHORIZATION}"


def test_a_proxy_command_line_with_no_server_says_which_entry() -> None:
    broken = {"servers": {"x": {"command": "mcp-inspect", "args": ["proxy", "--name", "x"]}}}
    with pytest.raises(ConfigError, match=r"host\.json: server 'x': .*neither a server command"):
        unwrap_config(broken, "host.json")


def test_two_writes_in_one_second_keep_both_old_files(tmp_path: Path) -> None:
    config = tmp_path / "host.json"
    config.write_text(json.dumps(CONFIG))
    first = write_config(config, {"mcpServers": {}})
    second = write_config(config, CONFIG)
    third = write_config(config, CONFIG)
    assert len({first, second, third}) == 3
    assert json.loads(first.read_text()) == CONFIG  # each copy is what the file was
    assert json.loads(second.read_text()) == {"mcpServers": {}}


def test_unwrap_write_from_the_command_line(tmp_path: Path) -> None:
    config = tmp_path / "host.json"
    config.write_text(json.dumps(CONFIG))
    assert cli("proxy", "--wrap", str(config), "--all", "--write").returncode == 0
    printed = cli("proxy", "--unwrap", str(config), "--server", "weather")
    assert printed.returncode == 0, printed.stderr
    assert json.loads(printed.stdout)["mcpServers"]["weather"] == CONFIG["mcpServers"]["weather"]
    done = cli("proxy", "--unwrap", str(config), "--write")
    assert done.returncode == 0, done.stderr
    assert "started directly again" in done.stderr and "'login'" in done.stderr
    assert (
        json.loads(config.read_text())["mcpServers"]["weather"] == CONFIG["mcpServers"]["weather"]
    )
    nothing = cli("proxy", "--unwrap", str(config), "--write")
    assert nothing.returncode == 0 and "nothing to undo" in nothing.stderr
    for flags, said in (
        (["--all"], "--unwrap alone undoes every wrapped server"),
        (["--listen", "127.0.0.1:9999"], "--unwrap takes no --listen"),
        (["--wrap", str(config)], "either --wrap or --unwrap"),
    ):
        refused = cli("proxy", "--unwrap", str(config), *flags)
        assert refused.returncode == 2 and said in refused.stderr, refused.stderr
