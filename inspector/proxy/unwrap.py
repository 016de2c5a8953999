"""``proxy --unwrap CONFIG``: a host's config with its servers started directly again.

The undo of ``--wrap``, read off what ``--wrap`` wrote: a stdio server's own command is
everything after the proxy's ``--``; a URL bridge's flags become the entry's ``url``,
``headers`` (a credential header's value taken back from the entry's ``env``) and
``oauth`` object (its client secret too). Everything else in the entry and the file
stays as it is. A URL entry comes back as an equivalent one, not byte for byte: a list
of scopes is one string, ``serverUrl`` is ``url``.
"""

from __future__ import annotations

from typing import Any

from inspector.config import ConfigError, choose_server, server_table
from inspector.proxy.wrap import SECRET_ENV, runs_through_proxy

# the proxy's flags that --wrap writes for a URL, each followed by its value
_OAUTH_FLAGS = {
    "--client-id": "clientId",
    "--client-metadata-url": "clientMetadataUrl",
    "--scope": "scopes",
    "--callback-port": "callbackPort",
}
_VALUE_FLAGS = {"--name", "--transport", "--env-header", "-H", "--header", *_OAUTH_FLAGS}


def unwrap_config(
    data: Any, source: str, server: str | None = None
) -> tuple[dict[str, Any], list[str], list[str]]:
    """``data`` with ``server`` (every server that runs through the proxy, when None)
    started directly; returns (new config, the servers unwrapped, the others)."""
    key, servers = server_table(data, source)
    names = [choose_server(servers, server, source)] if server is not None else list(servers)
    done: list[str] = []
    for name in names:
        entry = servers[name]
        if isinstance(entry, dict) and runs_through_proxy(entry):
            try:
                servers = {**servers, name: unwrap_entry(entry)}
            except ConfigError as exc:
                raise ConfigError(f"{source}: server {name!r}: {exc}") from None
            done.append(name)
        elif server is not None:
            raise ConfigError(f"{source}: server {name!r} does not run through mcp-inspect proxy")
    others = [name for name in servers if name not in done]
    return {**data, key: servers}, done, others


def unwrap_entry(entry: dict[str, Any]) -> dict[str, Any]:
    """The entry as it was before ``--wrap`` (an equivalent one for a URL)."""
    args = [str(a) for a in entry.get("args", [])]
    rest = args[args.index("proxy") + 1 :]
    if "--" in rest:
        command = rest[rest.index("--") + 1 :]
        if not command:
            raise ConfigError("the proxy's command line has no server command after --")
        original = dict(entry)  # same keys in the same places: command and args replaced
        original["command"], original["args"] = command[0], command[1:]
        return original
    return _url_entry(entry, rest)


def _url_entry(entry: dict[str, Any], rest: list[str]) -> dict[str, Any]:
    flags, url = _flags(rest)
    env = dict(entry["env"]) if isinstance(entry.get("env"), dict) else {}
    headers: dict[str, str] = {}
    oauth: dict[str, Any] = {}
    transport = "http"
    for flag, value in flags:
        if flag in ("-H", "--header"):
            name, _, text = value.partition(":")
            headers[name.strip()] = text.strip()
        elif flag == "--env-header":
            name, _, var = value.partition("=")
            headers[name] = str(env.pop(var)) if var in env else f"${{{var}}}"
        elif flag == "--transport":
            transport = value
        elif flag in _OAUTH_FLAGS:
            oauth[_OAUTH_FLAGS[flag]] = int(value) if flag == "--callback-port" else value
    if SECRET_ENV in env:
        oauth["clientSecret"] = env.pop(SECRET_ENV)
    original = {k: v for k, v in entry.items() if k not in ("command", "args", "env")}
    if "type" in original:
        original["type"] = "sse" if transport == "sse" else "http"
    if env or entry.get("env") == {}:
        original["env"] = env  # the entry's own variables: --wrap's are taken back
    original["url"] = url
    if headers:
        original["headers"] = headers
    if oauth:
        original["oauth"] = oauth
    return original


def _flags(rest: list[str]) -> tuple[list[tuple[str, str]], str]:
    """The (flag, value) pairs ``--wrap`` writes, and the URL (the last other word)."""
    flags: list[tuple[str, str]] = []
    url = ""
    words = iter(rest)
    for word in words:
        if word in _VALUE_FLAGS:
            flags.append((word, next(words, "")))
        elif not word.startswith("-"):
            url = word
    if not url:
        raise ConfigError("the proxy's command line names neither a server command nor a URL")
    return flags, url
