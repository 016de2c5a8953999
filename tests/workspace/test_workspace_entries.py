"""A workspace's servers: every entry of a config file (each format), several TARGETs
with unique names, and each server's row in the server list."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from inspector.config import ConfigError
from inspector.workspace.entries import config_entries, word_entries
from inspector.workspace.status import ServerStatus, State


def write(tmp_path: Path, data: object) -> Path:
    path = tmp_path / "config.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


@pytest.mark.parametrize("key", ["mcpServers", "servers"])
def test_every_server_of_a_config_in_file_order(tmp_path: Path, key: str) -> None:
    path = write(
        tmp_path,
        {
            key: {
                "zeta": {"command": "python", "args": ["z.py"], "env": {"A": "${HOME_X}"}},
                "remote": {"type": "http", "url": "https://host/mcp", "headers": {"X": "1"}},
                "alpha": {"url": "http://127.0.0.1:9/mcp", "oauth": {"clientId": "c"}},
            }
        },
    )
    entries = config_entries(path, environ={"HOME_X": "/h"})
    assert [e.name for e in entries] == ["zeta", "remote", "alpha"]
    zeta, remote, alpha = (e.target for e in entries)
    assert (zeta.command, zeta.args, zeta.name) == ("python", ["z.py"], "zeta")
    assert zeta.env == {"A": "/h"} and remote.headers == {"X": "1"}
    assert (remote.url, remote.transport) == ("https://host/mcp", "http")
    assert alpha.transport == "auto" and alpha.oauth_config == {"clientId": "c"}


def test_a_bad_entry_names_the_file_and_the_server(tmp_path: Path) -> None:
    path = write(tmp_path, {"mcpServers": {"ok": {"command": "x"}, "bad": {"args": []}}})
    with pytest.raises(ConfigError, match=r"config.json: server 'bad'.*needs a 'command'"):
        config_entries(path)


def test_several_targets_get_unique_short_names() -> None:
    entries = word_entries(
        [
            ["python", "servers/files.py", "--root", "/tmp"],
            ["https://api.example.com/mcp"],
            ["python", "other/files.py"],
            ["npx", "-y", "@scope/server-everything"],
        ]
    )
    assert [e.name for e in entries] == [
        "files",
        "api.example.com",
        "files-2",
        "server-everything",
    ]
    assert entries[1].target.url == "https://api.example.com/mcp"
    assert entries[2].target.name == "files-2"
    with pytest.raises(ValueError, match="empty TARGET"):
        word_entries([[]])
    with pytest.raises(ValueError, match="takes no further words"):
        word_entries([["https://h/mcp", "extra"]])


def test_status_rows_say_the_state_and_show_control_chars() -> None:
    status = ServerStatus("files", "stdio")
    assert status.row() == ("files", "stdio", "-", "connecting")
    status.connected("2025-06-18")
    assert status.row() == ("files", "stdio", "2025-06-18", "connected")
    status.failed("exited with code 1\x1b[31m")
    assert status.state is State.FAILED
    assert "\x1b" not in status.label and status.label.startswith("failed: exited")
    status.needs_auth("press A to authorize")
    assert status.row()[3] == "needs authorization: press A to authorize"
