"""Server config files: the ``mcpServers`` format (Claude Desktop, Cursor, Windsurf...)
and the ``servers`` format (VS Code ``mcp.json``).

::

    {"mcpServers": {"files": {"command": "npx", "args": ["-y", "server"], "env": {...}},
                    "remote": {"url": "https://host/mcp", "headers": {...}}}}
    {"servers": {"remote": {"type": "http", "url": "${env:BASE}/mcp"}}}
    {"mcpServers": {"remote": {"url": "...", "oauth": {"clientId": "x", "callbackPort": 8765,
                                                      "scopes": "read write"}}}}

Unknown fields are ignored. ``${VAR}`` and ``${env:VAR}`` are expanded from the
environment in every string value (an unset variable is an error that names it).
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from inspector.errors import InspectorError

_VAR = re.compile(r"\$\{(?:env:)?([A-Za-z_][A-Za-z0-9_]*)\}")
_TYPES = {
    "stdio": "stdio",
    "http": "http",
    "streamable-http": "http",
    "streamablehttp": "http",
    "streamable_http": "http",
    "sse": "sse",
}


class ConfigError(InspectorError):
    """A config file cannot be used; the message names the file and the problem."""


@dataclass(slots=True)
class ServerConfig:
    """One server entry. ``transport`` is "stdio", "http", "sse" or "auto" (URL, no type)."""

    name: str
    command: str | None = None
    args: list[str] = field(default_factory=list)
    env: dict[str, str] = field(default_factory=dict)
    cwd: str | None = None
    url: str | None = None
    transport: str = "stdio"
    headers: dict[str, str] = field(default_factory=dict)
    oauth: dict[str, Any] = field(default_factory=dict)  # the entry's "oauth" object


def load_server_config(
    path: str | os.PathLike[str], name: str | None = None, environ: Mapping[str, str] | None = None
) -> ServerConfig:
    """The server ``name`` from the config file at ``path`` (the only one when omitted)."""
    source = str(path)
    servers = _servers(_read(path), source)
    return _entry(servers, choose_server(servers, name, source), source, environ)


def choose_server(
    servers: Mapping[str, Any], name: str | None, source: str, ask: str = "name one of"
) -> str:
    """``name`` when ``servers`` has it, or the only server when ``name`` is None; else
    a ConfigError listing them (``ask``: how the user names one)."""
    if name is None:
        if len(servers) != 1:
            raise ConfigError(
                f"{source}: {len(servers)} servers defined; {ask}: " + ", ".join(sorted(servers))
            )
        return next(iter(servers))
    if name not in servers:
        known = ", ".join(sorted(servers)) or "none"
        raise ConfigError(f"{source}: no server named {name!r}; known servers: {known}")
    return name


def load_server_configs(
    path: str | os.PathLike[str], environ: Mapping[str, str] | None = None
) -> list[ServerConfig]:
    """Every server of the config file at ``path``, in the file's order (a workspace)."""
    source = str(path)
    servers = _servers(_read(path), source)
    return [_entry(servers, name, source, environ) for name in servers]


def _read(path: str | os.PathLike[str]) -> Any:
    source = str(path)
    try:
        text = Path(path).read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ConfigError(f"{source}: no such config file") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"{source}: cannot read the config file: {exc}") from None
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise ConfigError(
            f"{source}: not valid JSON: {exc.msg} at line {exc.lineno} column {exc.colno}"
        ) from None


def _entry(
    servers: dict[str, Any], name: str, source: str, environ: Mapping[str, str] | None
) -> ServerConfig:
    entry = servers[name]
    if not isinstance(entry, dict):
        raise ConfigError(f"{source}: server {name!r} is not a JSON object")
    env = os.environ if environ is None else environ
    return _parse_entry(name, _expand(entry, env, f"{source}: server {name!r}"), source)


def server_names(path: str | os.PathLike[str], file_order: bool = False) -> list[str]:
    """The server names a config file defines, sorted (for listings and completion) or
    in the file's order (``file_order``: what is done to each, in the order written)."""
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ConfigError(f"{path}: cannot read the config file: {exc}") from None
    names = list(_servers(data, str(path)))
    return names if file_order else sorted(names)


def _servers(data: Any, source: str) -> dict[str, Any]:
    return server_table(data, source)[1]


def server_table(data: Any, source: str) -> tuple[str, dict[str, Any]]:
    """A parsed config's table of servers and its key (``mcpServers`` or ``servers``)."""
    if not isinstance(data, dict):
        raise ConfigError(f"{source}: the top level must be a JSON object")
    for key in ("mcpServers", "servers"):
        if key in data:
            servers = data[key]
            if not isinstance(servers, dict):
                raise ConfigError(f"{source}: {key!r} must be an object of named servers")
            if not servers:
                raise ConfigError(f"{source}: {key!r} defines no servers")
            return key, servers
    raise ConfigError(f"{source}: no 'mcpServers' or 'servers' object found")


def _expand(value: Any, env: Mapping[str, str], where: str) -> Any:
    if isinstance(value, str):

        def sub(match: re.Match[str]) -> str:
            var = match.group(1)
            if var not in env:
                raise ConfigError(
                    f"{where}: environment variable {var} is not set (used as {match.group(0)})"
                )
            return env[var]

        return _VAR.sub(sub, value)
    if isinstance(value, list):
        return [_expand(v, env, where) for v in value]
    if isinstance(value, dict):
        return {k: _expand(v, env, where) for k, v in value.items()}
    return value


def _parse_entry(name: str, entry: dict[str, Any], source: str) -> ServerConfig:
    where = f"{source}: server {name!r}"
    declared = entry.get("type", entry.get("transport"))
    if declared is not None:
        kind = _TYPES.get(str(declared).lower())
        if kind is None:
            raise ConfigError(
                f"{where}: unknown type {declared!r}; expected one of: "
                "stdio, http, streamable-http, sse"
            )
    else:
        kind = None
    url = entry.get("url", entry.get("serverUrl"))
    command = entry.get("command")
    if kind is None:
        kind = "auto" if url is not None and command is None else "stdio"
    if kind == "stdio":
        if not isinstance(command, str) or not command:
            raise ConfigError(f"{where}: a stdio server needs a 'command' string")
        args = entry.get("args", [])
        if not isinstance(args, list):
            raise ConfigError(f"{where}: 'args' must be a list of strings")
        cwd = entry.get("cwd")
        return ServerConfig(
            name=name,
            command=command,
            args=[str(a) for a in args],
            env=_string_map(entry.get("env"), "env", where),
            cwd=str(cwd) if cwd is not None else None,
            transport="stdio",
        )
    if not isinstance(url, str) or not url:
        raise ConfigError(f"{where}: an HTTP server needs a 'url' string")
    oauth = entry.get("oauth")
    if oauth is not None and not isinstance(oauth, dict):
        raise ConfigError(f"{where}: 'oauth' must be an object (clientId, callbackPort, scopes)")
    return ServerConfig(
        name=name,
        url=url,
        transport=kind,
        headers=_string_map(entry.get("headers"), "headers", where),
        oauth=dict(oauth or {}),
    )


def _string_map(value: Any, key: str, where: str) -> dict[str, str]:
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise ConfigError(f"{where}: {key!r} must be an object of strings")
    return {str(k): "" if v is None else str(v) for k, v in value.items()}
