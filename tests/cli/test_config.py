"""Server config files: mcpServers (Claude Desktop, Cursor) and servers (VS Code)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from inspector.config import ConfigError, ServerConfig, load_server_config, server_names


def write(tmp_path: Path, data: Any, name: str = "mcp.json") -> Path:
    path = tmp_path / name
    path.write_text(data if isinstance(data, str) else json.dumps(data), encoding="utf-8")
    return path


def test_claude_desktop_stdio_entry(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        {
            "mcpServers": {
                "files": {
                    "command": "npx",
                    "args": ["-y", "@modelcontextprotocol/server-filesystem", "/tmp"],
                    "env": {"DEBUG": "1", "N": 3},
                    "cwd": "/srv",
                    "disabled": False,
                    "autoApprove": [],
                }
            }
        },
    )
    assert load_server_config(path) == ServerConfig(
        name="files",
        command="npx",
        args=["-y", "@modelcontextprotocol/server-filesystem", "/tmp"],
        env={"DEBUG": "1", "N": "3"},
        cwd="/srv",
        transport="stdio",
    )


def test_vscode_servers_with_types_and_headers(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        {
            "inputs": [],
            "servers": {
                "remote": {
                    "type": "http",
                    "url": "https://example.com/mcp",
                    "headers": {"Authorization": "Bearer x"},
                },
                "legacy": {"type": "sse", "url": "https://example.com/sse"},
                "streamy": {"type": "streamable-http", "url": "https://example.com/mcp"},
                "local": {"type": "stdio", "command": "python", "args": ["server.py"]},
                "untyped": {"url": "https://example.com/mcp"},
            },
        },
    )
    remote = load_server_config(path, "remote")
    assert (remote.transport, remote.url, remote.headers) == (
        "http",
        "https://example.com/mcp",
        {"Authorization": "Bearer x"},
    )
    assert remote.command is None
    assert load_server_config(path, "legacy").transport == "sse"
    assert load_server_config(path, "streamy").transport == "http"
    assert load_server_config(path, "local").command == "python"
    assert load_server_config(path, "untyped").transport == "auto"  # detect at connect
    assert server_names(path) == ["legacy", "local", "remote", "streamy", "untyped"]


def test_environment_expansion_in_every_string(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        {
            "mcpServers": {
                "a": {
                    "command": "${HOME_BIN}/server",
                    "args": ["--token", "${env:TOKEN}", "$PLAIN"],
                    "env": {"KEY": "${TOKEN}"},
                },
                "b": {"url": "${env:BASE}/mcp", "headers": {"Authorization": "Bearer ${TOKEN}"}},
            }
        },
    )
    env = {"HOME_BIN": "/opt/bin", "TOKEN": "s3cret", "BASE": "https://h"}
    a = load_server_config(path, "a", environ=env)
    assert a.command == "/opt/bin/server"
    assert a.args == ["--token", "s3cret", "$PLAIN"]  # only ${...} is expanded
    assert a.env == {"KEY": "s3cret"}
    b = load_server_config(path, "b", environ=env)
    assert b.url == "https://h/mcp" and b.headers == {"Authorization": "Bearer s3cret"}


def test_expansion_reads_os_environ_by_default(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MCP_TEST_URL", "http://127.0.0.1:1/mcp")
    path = write(tmp_path, {"mcpServers": {"x": {"url": "${MCP_TEST_URL}"}}})
    assert load_server_config(path).url == "http://127.0.0.1:1/mcp"


def test_unset_variable_is_named(tmp_path: Path) -> None:
    path = write(tmp_path, {"mcpServers": {"x": {"url": "${env:NOPE_NOT_SET}/mcp"}}})
    with pytest.raises(
        ConfigError,
        match=r"server 'x': environment variable NOPE_NOT_SET "
        r"is not set \(used as \$\{env:NOPE_NOT_SET\}\)",
    ):
        load_server_config(path, environ={})


def test_missing_file(tmp_path: Path) -> None:
    missing = tmp_path / "nope.json"
    with pytest.raises(ConfigError, match=f"^{missing}: no such config file$"):
        load_server_config(missing)


def test_bad_json_names_line_and_column(tmp_path: Path) -> None:
    path = write(tmp_path, '{\n  "mcpServers": {\n    "a": {"command": "x",}\n  }\n}')
    with pytest.raises(ConfigError) as caught:
        load_server_config(path)
    assert str(caught.value).startswith(f"{path}: not valid JSON: ")
    assert "line 3 column" in str(caught.value)


def test_unknown_name_lists_the_known_ones(tmp_path: Path) -> None:
    path = write(tmp_path, {"mcpServers": {"beta": {"command": "b"}, "alpha": {"command": "a"}}})
    with pytest.raises(ConfigError, match=r"no server named 'gamma'; known servers: alpha, beta"):
        load_server_config(path, "gamma")
    with pytest.raises(ConfigError, match=r"2 servers defined; name one of: alpha, beta"):
        load_server_config(path)


@pytest.mark.parametrize(
    ("data", "needle"),
    [
        ([1, 2], "the top level must be a JSON object"),
        ({"other": {}}, "no 'mcpServers' or 'servers' object found"),
        ({"mcpServers": []}, "'mcpServers' must be an object of named servers"),
        ({"mcpServers": {}}, "'mcpServers' defines no servers"),
        ({"mcpServers": {"a": "npx"}}, "server 'a' is not a JSON object"),
        ({"mcpServers": {"a": {"args": ["x"]}}}, "a stdio server needs a 'command' string"),
        ({"servers": {"a": {"type": "http"}}}, "an HTTP server needs a 'url' string"),
        ({"servers": {"a": {"type": "websocket", "url": "ws://x"}}}, "unknown type 'websocket'"),
        ({"mcpServers": {"a": {"command": "x", "args": "y"}}}, "'args' must be a list"),
        ({"mcpServers": {"a": {"command": "x", "env": ["A=1"]}}}, "'env' must be an object"),
    ],
)
def test_shape_errors_name_the_file_and_problem(tmp_path: Path, data: Any, needle: str) -> None:
    path = write(tmp_path, data)
    with pytest.raises(ConfigError) as caught:
        load_server_config(path)
    assert str(caught.value).startswith(str(path)) and needle in str(caught.value)
