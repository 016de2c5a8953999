"""``proxy --wrap CONFIG``: a host's config rewritten so a server runs through the proxy.

Claude Desktop and Cursor (``mcpServers``) and VS Code (``servers``) name each server
with a command (stdio) or a URL. The named entry becomes a stdio entry whose command is
``mcp-inspect proxy --name NAME``, followed by ``--`` and the server's own command, or
by the URL (its headers as ``-H``, a credential header's value in the entry's ``env``
read with ``--env-header``, its ``oauth`` object as the proxy's OAuth flags, a client
secret in the entry's ``env``: secrets never on the command line); everything else in
the file stays as it was (``env``, ``cwd``, other servers, unknown keys, ``${VAR}``
references).
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import shutil
import stat
import sys
from datetime import datetime
from pathlib import Path
from typing import Any

from inspector.config import ConfigError, choose_server, server_table
from inspector.credentials import credential_name

SECRET_ENV = "MCP_CLIENT_SECRET"  # what the proxy's OAuth reads a client secret from
HEADER_ENV = "MCP_HEADER_"  # a credential header's variable: MCP_HEADER_AUTHORIZATION
HTTP_TYPES = ("http", "streamable-http", "streamablehttp", "streamable_http", "sse")


def proxy_command() -> list[str]:
    """How the host should start the proxy: the installed ``mcp-inspect`` next to this
    Python, else this Python running the package (the host's PATH may lack both)."""
    beside = Path(sys.executable).with_name("mcp-inspect")
    if beside.exists():
        return [str(beside)]
    found = shutil.which("mcp-inspect")
    return [found] if found else [sys.executable, "-m", "inspector"]


def wrap_config(
    data: Any, source: str, server: str | None, command: list[str] | None = None
) -> tuple[dict[str, Any], str]:
    """``data`` with the server ``server`` (the only one when None) running through the
    proxy; returns (new config, the server's name). Raises ConfigError saying why not."""
    key, servers = server_table(data, source)
    server = choose_server(servers, server, source, "name one with --server")
    entry = servers[server]
    if not isinstance(entry, dict):
        raise ConfigError(f"{source}: server {server!r} is not a JSON object")
    launcher = command or proxy_command()
    wrapped = dict(entry)
    head = [*launcher[1:], "proxy", "--name", server]
    if runs_through_proxy(entry):
        raise ConfigError(f"{source}: server {server!r} runs through mcp-inspect proxy already")
    url = entry.get("url", entry.get("serverUrl"))
    kind = str(entry.get("type", entry.get("transport", ""))).lower()
    if isinstance(url, str) and (kind in HTTP_TYPES or not entry.get("command")):
        args = [*head]
        if kind == "sse":
            args += ["--transport", "sse"]
        headers = entry.get("headers")
        for name, value in (headers or {}).items() if isinstance(headers, dict) else ():
            if credential_name(str(name)):  # in the entry's env: argv is public (ps)
                var = header_var(str(name))
                env = wrapped.get("env")
                wrapped["env"] = {**(env if isinstance(env, dict) else {}), var: str(value)}
                args += ["--env-header", f"{name}={var}"]
            else:
                args += ["-H", f"{name}: {value}"]
        args += _oauth_flags(entry.get("oauth"), wrapped, source, server)
        args.append(url)
        for gone in ("url", "serverUrl", "headers", "transport", "oauth"):
            wrapped.pop(gone, None)
    else:
        original = entry.get("command")
        if not isinstance(original, str) or not original:
            raise ConfigError(f"{source}: server {server!r} has neither a command nor a url")
        original_args = entry.get("args", [])
        if not isinstance(original_args, list):
            raise ConfigError(f"{source}: server {server!r}: 'args' must be a list")
        args = [*head, "--", original, *[str(a) for a in original_args]]
    if "type" in wrapped:
        wrapped["type"] = "stdio"
    wrapped["command"] = launcher[0]
    wrapped["args"] = args
    out = dict(data)
    out[key] = {**servers, server: wrapped}
    return out, server


def wrap_every(
    data: Any, source: str, command: list[str] | None = None
) -> tuple[dict[str, Any], list[str], list[str]]:
    """``data`` with every server running through the proxy; returns (new config, the
    servers wrapped now, those that ran through it already), in the file's order."""
    _key, servers = server_table(data, source)
    wrapped, done, before = data, [], []
    for name, entry in servers.items():
        if isinstance(entry, dict) and runs_through_proxy(entry):
            before.append(name)
            continue
        wrapped, _ = wrap_config(wrapped, source, name, command)
        done.append(name)
    return dict(wrapped), done, before


def header_var(name: str) -> str:
    """The environment variable a credential header's value goes in."""
    return HEADER_ENV + re.sub(r"[^A-Za-z0-9]+", "_", name).strip("_").upper()


def wrap_for_front(
    data: Any,
    source: str,
    server: str | None,
    listen: str,
    url: str,
    token: str,
    command: list[str] | None = None,
) -> tuple[dict[str, Any], str, list[str], list[str]]:
    """``data`` with the server reached at ``url``, the HTTP front of a proxy started by
    hand (``proxy --listen``), the front's token in the entry's headers. Returns (new
    config, the server's name, the proxy's command line, the environment variables it
    needs set: the entry's ``env``, which a host no longer gives it)."""
    stdio, name = wrap_config(data, source, server, command)
    key, servers = server_table(stdio, source)
    proxied = servers[name]
    args = [str(a) for a in proxied["args"]]
    at = args.index("proxy") + 1
    argv = [str(proxied["command"]), *args[:at], "--listen", listen, *args[at:]]
    env = proxied.get("env")
    kept = {
        k: v
        for k, v in data[key][name].items()
        if k not in ("command", "args", "env", "cwd", "type", "transport", "oauth")
        and k not in ("url", "serverUrl", "headers")
    }
    entry = {
        **kept,
        "type": "http",
        "url": url,
        "headers": {"Authorization": f"Bearer {token}"},
    }
    out = dict(stdio)
    out[key] = {**servers, name: entry}
    return out, name, argv, sorted(env) if isinstance(env, dict) else []


def _oauth_flags(oauth: Any, wrapped: dict[str, Any], source: str, server: str) -> list[str]:
    """A URL entry's ``oauth`` object (Claude Code's ``clientId``, ``callbackPort``,
    ``scopes``; ``clientSecret``, ``clientMetadataUrl``) as the proxy's flags; the secret
    goes to the entry's ``env`` (the command line is visible to other users)."""
    if oauth is None:
        return []
    if not isinstance(oauth, dict):
        raise ConfigError(f"{source}: server {server!r}: 'oauth' must be a JSON object")
    flags: list[str] = []
    for key, flag in (("clientId", "--client-id"), ("clientMetadataUrl", "--client-metadata-url")):
        value = oauth.get(key)
        if isinstance(value, str) and value:
            flags += [flag, value]
    scopes = oauth.get("scopes")
    if isinstance(scopes, list):
        scopes = " ".join(str(s) for s in scopes)
    if isinstance(scopes, str) and scopes.strip():
        flags += ["--scope", scopes.strip()]
    port = oauth.get("callbackPort")
    if isinstance(port, int) and not isinstance(port, bool) and port > 0:
        flags += ["--callback-port", str(port)]
    secret = oauth.get("clientSecret")
    if isinstance(secret, str) and secret:
        env = wrapped.get("env")
        wrapped["env"] = {**(env if isinstance(env, dict) else {}), SECRET_ENV: secret}
    return flags


def runs_through_proxy(entry: dict[str, Any]) -> bool:
    """Whether the entry starts ``mcp-inspect proxy`` (as ``--wrap`` writes it)."""
    command = str(entry.get("command", ""))
    args = [str(a) for a in entry.get("args", []) if isinstance(a, str | int)]
    launched = Path(command).name == "mcp-inspect" or (
        len(args) >= 2 and args[:2] == ["-m", "inspector"]
    )
    return launched and "proxy" in args


def read_config(path: Path) -> Any:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ConfigError(f"{path}: no such config file") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"{path}: cannot read the config file: {exc}") from None
    except json.JSONDecodeError as exc:
        raise ConfigError(
            f"{path}: not valid JSON ({exc.msg} at line {exc.lineno} column {exc.colno}); "
            "a file with comments must be changed by hand"
        ) from None


def render(data: Any) -> str:
    return json.dumps(data, indent=2, ensure_ascii=False) + "\n"


def write_config(path: Path, data: Any, private: bool = False) -> Path:
    """Write ``data`` to ``path`` after copying the old file beside it; returns the copy.
    Both keep the old file's mode (``private``: the new one 0600 at most, it holds a
    secret the old one did not); neither is ever readable by more people than that,
    even for a moment."""
    mode = stat.S_IMODE(path.stat().st_mode)
    backup = _new_backup(path, path.read_bytes(), mode)
    tmp = path.with_name(f".{path.name}.mcp-inspect.tmp")
    with contextlib.suppress(FileNotFoundError):
        tmp.unlink()  # left by a run that was interrupted
    _write_new(tmp, render(data).encode("utf-8"), mode & 0o600 if private else mode)
    tmp.replace(path)  # the host never reads a half-written file
    return backup


def _new_backup(path: Path, data: bytes, mode: int) -> Path:
    """``data`` in ``CONFIG.<time>.bak``, a name no file has (``-2``, ``-3``... after the
    time when an earlier write in the same second made one)."""
    stamp = datetime.now().strftime("%Y%m%d-%H%M%S")
    for count in range(1, 1000):
        suffix = "" if count == 1 else f"-{count}"
        backup = path.with_name(f"{path.name}.{stamp}{suffix}.bak")
        try:
            _write_new(backup, data, mode)
        except FileExistsError:
            continue
        return backup
    raise FileExistsError(f"{path.name}.{stamp}.bak and 998 more exist")


def _write_new(path: Path, data: bytes, mode: int) -> None:
    """A new file (never one that exists: no one else's planted file or link), made 0600
    and given ``mode`` once written."""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "wb") as out:
        out.write(data)
        os.fchmod(out.fileno(), mode)
