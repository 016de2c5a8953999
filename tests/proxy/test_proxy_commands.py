"""The proxy's command line: ``proxy --wrap``, ``proxies``, ``attach`` and their errors."""

from __future__ import annotations

import json
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from cli_runner import cli
from paths import DEMO, PY
from proxy_support import runtime_folder

from inspector.commands import main
from inspector.config import load_server_config
from inspector.proxy.wrap import wrap_config

LAUNCHER = ["/opt/bin/mcp-inspect"]


@pytest.fixture
def runtime() -> Iterator[Path]:
    with runtime_folder() as folder:
        yield folder


def mcp_inspect(*args: str, **kw: Any) -> subprocess.CompletedProcess[str]:
    return cli(*args, timeout=120, **kw)


CLAUDE = {
    "mcpServers": {
        "weather": {"command": "node", "args": ["build/index.js"], "env": {"KEY": "${KEY}"}},
        "files": {"command": "npx", "args": ["-y", "server-files"]},
    },
    "globalShortcut": "Ctrl+Space",
}
VSCODE = {
    "servers": {
        "remote": {
            "type": "http",
            "url": "https://example.com/mcp",
            "headers": {"Authorization": "Bearer ${input:token}"},
        }
    },
    "inputs": [],
}


def test_wrap_a_stdio_server_keeps_everything_else() -> None:
    wrapped, name = wrap_config(CLAUDE, "claude.json", "weather", LAUNCHER)
    assert name == "weather"
    entry = wrapped["mcpServers"]["weather"]
    assert entry["command"] == LAUNCHER[0]
    assert entry["args"] == ["proxy", "--name", "weather", "--", "node", "build/index.js"]
    assert entry["env"] == {"KEY": "${KEY}"}  # left for the host to expand
    assert wrapped["mcpServers"]["files"] == CLAUDE["mcpServers"]["files"]
    assert wrapped["globalShortcut"] == "Ctrl+Space"
    with pytest.raises(Exception, match="already"):
        wrap_config(wrapped, "claude.json", "weather", LAUNCHER)


def test_wrap_an_http_server_becomes_a_stdio_bridge() -> None:
    wrapped, _ = wrap_config(VSCODE, "mcp.json", None, [PY, "-m", "inspector"])
    entry = wrapped["servers"]["remote"]
    assert entry["type"] == "stdio" and entry["command"] == PY
    assert entry["args"] == [
        "-m",
        "inspector",
        "proxy",
        "--name",
        "remote",
        "-H",
        "Authorization: Bearer ${input:token}",
        "https://example.com/mcp",
    ]
    assert "url" not in entry and "headers" not in entry


def test_wrap_needs_a_name_when_there_are_several(tmp_path: Path) -> None:
    config = tmp_path / "claude.json"
    config.write_text(json.dumps(CLAUDE))
    done = mcp_inspect("proxy", "--wrap", str(config))
    assert done.returncode == 2
    assert "name one with --server: files, weather" in done.stderr


@pytest.mark.slow
def test_wrap_write_runs_the_server_through_the_proxy(tmp_path: Path) -> None:
    config = tmp_path / "claude.json"
    config.write_text(json.dumps({"mcpServers": {"demo": {"command": DEMO[0], "args": DEMO[1:]}}}))
    printed = mcp_inspect("proxy", "--wrap", str(config), "--server", "demo")
    assert printed.returncode == 0, printed.stderr
    assert json.loads(printed.stdout)["mcpServers"]["demo"]["args"][-3:] == DEMO
    assert json.loads(config.read_text())["mcpServers"]["demo"]["command"] == DEMO[0]

    written = mcp_inspect("proxy", "--wrap", str(config), "--server", "demo", "--write")
    assert written.returncode == 0, written.stderr
    backups = list(tmp_path.glob("claude.json.*.bak"))
    assert len(backups) == 1
    assert json.loads(backups[0].read_text())["mcpServers"]["demo"]["command"] == DEMO[0]
    entry = load_server_config(config, "demo")
    assert "proxy" in entry.args and entry.args[-3:] == DEMO
    # a host starting the wrapped entry gets the server, through the proxy
    record = tmp_path / "proxy.jsonl"
    config.write_text(
        json.dumps(
            {
                "mcpServers": {
                    "demo": {
                        "command": entry.command,
                        "args": [*entry.args[:-4], "--record", str(record), *entry.args[-4:]],
                    }
                }
            }
        )
    )
    listed = mcp_inspect("--cli", "--config", str(config), "--method", "tools/list")
    assert listed.returncode == 0, listed.stderr
    assert any(t["name"] == "add" for t in json.loads(listed.stdout)["tools"])
    assert b'"side": "host"' in record.read_bytes()


def test_proxies_and_attach_when_none_runs(
    runtime: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["proxies"]) == 0
    assert "no proxy is running" in capsys.readouterr().out
    assert main(["proxies", "--json"]) == 0
    assert json.loads(capsys.readouterr().out) == []
    assert main(["attach"]) == 2
    assert "no proxy is running" in capsys.readouterr().err


def test_proxy_usage_errors() -> None:
    wide = mcp_inspect("proxy", "--listen", "0.0.0.0:8808", "--", *DEMO)
    assert wide.returncode == 2 and "loopback only" in wide.stderr
    missing = mcp_inspect("proxy", "--no-record", "--no-attach", "--", "no-such-server-xyz")
    assert missing.returncode == 3
    assert "command not found: 'no-such-server-xyz'" in missing.stderr
    assert missing.stdout == ""  # the host's channel carries nothing but frames


def test_wrap_carries_an_oauth_object_as_flags_and_the_secret_in_env() -> None:
    config = {
        "mcpServers": {
            "remote": {
                "type": "http",
                "url": "https://example.com/mcp",
                "oauth": {
                    "clientId": "my-client",
                    "clientSecret": "${SECRET}",
                    "callbackPort": 8123,
                    "scopes": ["mcp:read", "mcp:write"],
                },
            }
        }
    }
    wrapped, _ = wrap_config(config, "c.json", "remote", command=LAUNCHER)
    entry = wrapped["mcpServers"]["remote"]
    args = entry["args"]
    assert args[args.index("--client-id") + 1] == "my-client"
    assert args[args.index("--callback-port") + 1] == "8123"
    assert args[args.index("--scope") + 1] == "mcp:read mcp:write"
    assert args[-1] == "https://example.com/mcp"
    assert "${SECRET}" not in args  # never on the command line
    assert entry["env"] == {"MCP_CLIENT_SECRET": "${SECRET}"}
    assert "oauth" not in entry and entry["type"] == "stdio"
