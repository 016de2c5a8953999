"""The proxy's command line: ``proxy --wrap``, ``proxies``, ``attach`` and their errors."""

from __future__ import annotations

import json
import os
import shlex
import socket
import stat
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from cli_runner import cli
from paths import DEMO, PY
from proxy_support import listening_proxy, proxy_argv, runtime_folder, start_proxy

from inspector.commands import main
from inspector.config import load_server_config
from inspector.proxy.wrap import wrap_config, wrap_every

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
            "headers": {"Authorization": "Bearer ${input:token}", "X-Trace": "on"},
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
        "--env-header",  # a credential: in the env, never in argv (ps shows argv)
        "Authorization=MCP_HEADER_AUTHORIZATION",
        "-H",
        "X-Trace: on",
        "https://example.com/mcp",
    ]
    assert entry["env"] == {"MCP_HEADER_AUTHORIZATION": "Bearer ${input:token}"}
    assert "url" not in entry and "headers" not in entry


def test_wrap_needs_a_name_when_there_are_several(tmp_path: Path) -> None:
    config = tmp_path / "claude.json"
    config.write_text(json.dumps(CLAUDE))
    done = mcp_inspect("proxy", "--wrap", str(config))
    assert done.returncode == 2
    assert "name one with --server: files, weather" in done.stderr


def test_wrap_every_server_leaves_those_already_wrapped() -> None:
    half, _ = wrap_config(CLAUDE, "claude.json", "weather", LAUNCHER)
    wrapped, now, before = wrap_every(half, "claude.json", LAUNCHER)
    assert (now, before) == (["files"], ["weather"])
    servers = wrapped["mcpServers"]
    assert servers["weather"] == half["mcpServers"]["weather"]  # not wrapped twice
    assert servers["files"]["args"] == [
        "proxy",
        "--name",
        "files",
        "--",
        "npx",
        "-y",
        "server-files",
    ]
    assert wrapped["globalShortcut"] == "Ctrl+Space"
    assert wrap_every(wrapped, "claude.json", LAUNCHER)[1:] == ([], ["weather", "files"])


def test_wrap_all_writes_every_server_once(tmp_path: Path) -> None:
    config = tmp_path / "claude.json"
    config.write_text(json.dumps(CLAUDE))
    done = mcp_inspect("proxy", "--wrap", str(config), "--all", "--write")
    assert done.returncode == 0, done.stderr
    assert "servers 'weather', 'files' now run through a proxy each" in done.stderr
    servers = json.loads(config.read_text())["mcpServers"]
    for name, entry in servers.items():
        args = entry["args"]
        start = args.index("proxy")
        assert args[start : start + 4] == ["proxy", "--name", name, "--"]
        assert args[start + 4 :] == [
            CLAUDE["mcpServers"][name]["command"],
            *CLAUDE["mcpServers"][name]["args"],
        ]
    assert len(list(tmp_path.glob("claude.json.*.bak"))) == 1
    again = mcp_inspect("proxy", "--wrap", str(config), "--all", "--write")
    assert again.returncode == 0, again.stderr
    assert "'weather', 'files' already run through the proxy" in again.stderr
    assert len(list(tmp_path.glob("claude.json.*.bak"))) == 1  # nothing rewritten
    for flags, said in (
        (["--server", "files"], "leave out --server"),
        (["--listen", "127.0.0.1:9999"], "--listen fronts one server"),
    ):
        refused = mcp_inspect("proxy", "--wrap", str(config), "--all", *flags)
        assert refused.returncode == 2 and said in refused.stderr, refused.stderr
    alone = mcp_inspect("proxy", "--all")
    assert alone.returncode == 2 and "--all goes with --wrap CONFIG" in alone.stderr


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


def test_wrap_write_keeps_the_files_private(tmp_path: Path) -> None:
    """A 0600 config holding a secret stays 0600, and so does its copy (the new file was
    0644, from the umask)."""
    config = tmp_path / "mcp.json"
    config.write_text(json.dumps(VSCODE))
    config.chmod(0o600)
    done = mcp_inspect("proxy", "--wrap", str(config), "--write")
    assert done.returncode == 0, done.stderr
    backup = next(tmp_path.glob("mcp.json.*.bak"))
    assert [stat.S_IMODE(p.stat().st_mode) for p in (config, backup)] == [0o600, 0o600]
    assert "Bearer" not in " ".join(json.loads(config.read_text())["servers"]["remote"]["args"])


@pytest.mark.slow
def test_a_credential_header_goes_through_the_environment(tmp_path: Path) -> None:
    """A stdio proxy in front of another proxy's HTTP front: the front's token reaches it
    from ``--env-header``'s variable, and is nowhere in the bridge's command line."""
    with listening_proxy("--no-attach", "--name", "front", "--", *DEMO, token=True) as (_p, url):
        token = cli("proxies", "--token", "front").stdout.strip()
        env = {**os.environ, "MCP_HEADER_AUTHORIZATION": f"Bearer {token}"}
        bridge = ["--no-attach", "--no-record", "--env-header"]
        bridge += ["Authorization=MCP_HEADER_AUTHORIZATION", url]
        argv = [*proxy_argv(*bridge)]
        listed = mcp_inspect("--cli", "--method", "tools/list", "--", *argv, env=env)
        assert listed.returncode == 0, listed.stderr
        assert any(t["name"] == "add" for t in json.loads(listed.stdout)["tools"])
        assert token not in " ".join(argv)
        env.pop("MCP_HEADER_AUTHORIZATION")
        unset = mcp_inspect("--cli", "--method", "tools/list", "--", *argv, env=env)
    assert unset.returncode != 0
    assert "MCP_HEADER_AUTHORIZATION is not set" in unset.stderr


def test_wrap_for_the_http_front_puts_the_token_in_the_host_config(tmp_path: Path) -> None:
    config = tmp_path / "mcp.json"
    config.write_text(json.dumps({"mcpServers": {"demo": {"command": DEMO[0], "args": DEMO[1:]}}}))
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    done = mcp_inspect("proxy", "--wrap", str(config), "--listen", f"127.0.0.1:{port}", "--write")
    assert done.returncode == 0, done.stderr
    entry = json.loads(config.read_text())["mcpServers"]["demo"]
    token = cli("proxies", "--token", "demo").stdout.strip()
    assert entry == {
        "type": "http",
        "url": f"http://127.0.0.1:{port}/mcp",
        "headers": {"Authorization": f"Bearer {token}"},
    }
    assert stat.S_IMODE(config.stat().st_mode) == 0o600  # it holds the token now
    command = shlex.split(done.stderr.split("start the proxy", 1)[1].splitlines()[1])
    assert command[command.index("--listen") + 1] == f"127.0.0.1:{port}"
    assert command[-len(DEMO) :] == DEMO
    zero = mcp_inspect("proxy", "--wrap", str(config), "--listen", "127.0.0.1:0")
    assert zero.returncode == 2 and "needs a port of its own" in zero.stderr


def test_record_never_overwrites_the_last_session(tmp_path: Path) -> None:
    record = tmp_path / "host.jsonl"
    said = []
    for _ in range(2):
        proc = start_proxy("--no-attach", "--record", str(record), "--", *DEMO)
        _out, err = proc.communicate(timeout=60)  # stdin closed: the host went away
        said.append(err.decode())
    second = tmp_path / "host-1.jsonl"
    assert record.stat().st_size > 0 and second.stat().st_size > 0
    assert f"{record} exists; recording to {second}" in said[1]
    assert f"session saved to {second}" in said[1]
