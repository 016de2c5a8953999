"""What to connect to: a stdio command, an HTTP URL, or the bundled demo server.

One description (``Target``) for every entry point (TUI, ``--cli``, replay
``--against``), and one place that turns it into a transport.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from inspector.auth.settings import AuthSettings
    from inspector.transports.authhook import AuthHook
    from inspector.wire.transport import Transport

TRANSPORT_CHOICES = ("auto", "stdio", "http", "sse")


@dataclass
class Target:
    """A server to connect to. ``url`` set means HTTP; otherwise ``command``."""

    command: str | None = None
    args: list[str] = field(default_factory=list)
    env: dict[str, str] = field(default_factory=dict)
    cwd: str | None = None
    url: str | None = None
    headers: dict[str, str] = field(default_factory=dict)
    transport: str = "auto"
    name: str | None = None  # the server's name in a config file, or "demo"
    follow_redirects: bool = False  # HTTP: to other origins too (never with credentials)
    attach: str | None = None  # a live proxy's attach socket (``mcp-inspect attach``)
    oauth: AuthSettings | None = None  # HTTP: how to authorize; None: OAuth off
    oauth_config: dict[str, Any] = field(default_factory=dict)  # a config file's "oauth"

    @property
    def is_http(self) -> bool:
        return self.url is not None

    def describe(self) -> str:
        if self.attach is not None:
            return f"proxy {self.name or self.attach}"
        if self.url is not None:
            return self.url
        import shlex

        return shlex.join([self.command or "", *self.args])

    def secrets(self) -> list[str]:
        """Values to redact from session files: ``-e`` values (but plain settings such as
        ``LEVEL=debug``, see ``env_secret``), the values of credential headers
        (``Authorization``, ``X-Api-Key``... and a bearer's token alone) and the URL's
        credential query values and password."""
        from inspector.credentials import credential_name, env_secret, url_secrets

        values = [value for name, value in self.env.items() if env_secret(name, value)]
        for key, value in self.headers.items():
            if credential_name(key):
                values.append(value)
                scheme, sep, token = value.partition(" ")
                if sep and scheme.isalpha():  # "Bearer abc": the token alone too
                    values.append(token.strip())
        if self.url is not None:
            values += url_secrets(self.url)
        if self.oauth is not None:  # given secrets (obtained ones never reach an event)
            for secret in (
                self.oauth.client_secret,
                self.oauth.idp_client_secret,
                self.oauth.idp_id_token,
            ):
                if secret:
                    values.append(secret)
        return values


def demo_target() -> Target:
    """The bundled demo server, started like any other stdio server."""
    return Target(command=sys.executable, args=["-m", "inspector.demo"], name="demo")


def target_from_words(
    words: list[str],
    *,
    transport: str = "auto",
    env: dict[str, str] | None = None,
    cwd: str | None = None,
    headers: dict[str, str] | None = None,
) -> Target:
    """A target from command-line words: one URL, or a command with its arguments."""
    if not words:
        target = demo_target()
        target.env.update(env or {})
        return target
    first = words[0]
    if first.startswith(("http://", "https://")):
        if len(words) > 1:
            raise ValueError(f"a URL target takes no further words, got: {' '.join(words[1:])}")
        if transport == "stdio":
            raise ValueError("--transport stdio needs a command, not a URL")
        return Target(url=first, headers=dict(headers or {}), transport=transport)
    if transport in ("http", "sse"):
        raise ValueError(
            f"--transport {transport} needs a URL (http:// or https://), got a command: {first}"
        )
    return Target(
        command=first, args=list(words[1:]), env=dict(env or {}), cwd=cwd, transport="stdio"
    )


def build_transport(
    target: Target,
    *,
    timeout: float = 30.0,
    max_timeout: float | None = None,
    auth: AuthHook | None = None,
) -> Transport:
    """The transport for a target (imports HTTP support only when needed). An HTTP
    client's connect, write, pool and notification timeouts derive from the request
    timeout (and the hard maximum, when shorter); a request's own read is bounded by the
    session, which stops it at its deadline. ``auth``: the HTTP transports' auth hook
    (``inspector.auth``)."""
    from inspector.wire.transport import TransportError  # start-up: not for --help

    if target.attach is not None:
        from pathlib import Path

        from inspector.proxy.attach import AttachTransport

        return AttachTransport(Path(target.attach))
    if max_timeout is not None:
        timeout = min(timeout, max_timeout)
    if target.url is None:
        from inspector.transports.stdio import StdioTransport

        if not target.command:
            raise TransportError("no server command given")
        return StdioTransport(target.command, target.args, env=target.env, cwd=target.cwd)
    try:
        from inspector.transports.detect import connect_http
    except ImportError as exc:  # pragma: no cover - only while HTTP support is missing
        raise TransportError(f"HTTP transports are not available: {exc}") from exc
    transport: Transport = connect_http(
        target.url,
        target.headers,
        transport=target.transport,
        timeout=timeout,
        follow_redirects=target.follow_redirects,
        auth=auth,
    )
    return transport


def target_info(target: Target) -> dict[str, Any]:
    """For session file headers (the recorder redacts secrets)."""
    info: dict[str, Any] = {"transport": target.transport, "describe": target.describe()}
    if target.attach is not None:
        info.update(socket=target.attach)
    elif target.url is not None:
        info.update(url=target.url, headers=dict(target.headers))
        if target.oauth is not None:
            info["oauth"] = target.oauth.summary()
    else:
        info.update(
            command=target.command, args=list(target.args), env=dict(target.env), cwd=target.cwd
        )
    if target.name:
        info["name"] = target.name
    return info
