"""What ``connect`` is given, as a :class:`Target`: a command line, a URL (with headers),
or a server of a config file; and the OAuth hook the bridge may use (the token store,
never a browser: no person is at the bridge's terminal).
"""

from __future__ import annotations

import shlex
from typing import Any

from inspector.bridge.connections import BridgeError
from inspector.config import ConfigError, load_server_config
from inspector.target import Target, target_from_words

# what a person runs once so the bridge finds a token in the store
AUTHORIZE_HINT = (
    "a person must authorize once in a terminal: `mcp-inspect --cli --method ping {url}` "
    "(it opens the browser and stores the token; `mcp-inspect auth list` shows what is "
    "stored), then connect again"
)


def _strings(value: Any, what: str) -> dict[str, str]:
    if value is None:
        return {}
    if not isinstance(value, dict) or not all(isinstance(v, str) for v in value.values()):
        raise BridgeError(f"{what} must be an object of strings, e.g. {{'KEY': 'value'}}")
    return dict(value)


def target_of(args: dict[str, Any]) -> Target:
    """The target ``connect`` names; a usage problem is a :class:`BridgeError`."""
    text = args.get("target")
    headers = _strings(args.get("headers"), "headers")
    env = _strings(args.get("env"), "env")
    cwd = args.get("cwd")
    config = args.get("config")
    if config is not None:
        try:
            entry = load_server_config(str(config), text or None)
        except ConfigError as exc:
            raise BridgeError(f"config {config}: {exc}") from exc
        target = Target(
            command=entry.command,
            args=list(entry.args),
            env={**entry.env, **env},
            cwd=cwd or entry.cwd,
            url=entry.url,
            headers={**entry.headers, **headers},
            transport=entry.transport,
            name=entry.name,
            oauth_config=dict(entry.oauth),
        )
    else:
        if not isinstance(text, str) or not text.strip():
            raise BridgeError(
                "connect needs target: a command line ('python server.py'), a URL "
                "('http://127.0.0.1:8000/mcp'), or a server name with config"
            )
        try:
            words = [text.strip()] if text.strip().startswith("http") else shlex.split(text)
            target = target_from_words(
                words, env=env, cwd=cwd if isinstance(cwd, str) else None, headers=headers
            )
        except ValueError as exc:
            raise BridgeError(f"target {text!r}: {exc}") from exc
    if target.url is not None:
        target.oauth = _oauth(target)
    return target


def _oauth(target: Target) -> Any:
    """OAuth settings from the config entry's ``oauth``, tokens from the store."""
    from inspector.auth.errors import OptionError
    from inspector.auth.options import over_config
    from inspector.auth.settings import AuthSettings

    try:
        return over_config(AuthSettings(), target.oauth_config)
    except OptionError as exc:
        raise BridgeError(f"the config entry's oauth settings: {exc}") from exc


def store_only(target: Target) -> Any:
    """The OAuth hook for an HTTP target: stored tokens (refreshed), machine grants; a
    browser authorization fails at once (``NoPerson``) and :func:`auth_failure` says
    which command a person runs."""
    if target.url is None or target.oauth is None:
        return None
    from inspector.auth.errors import StoreError
    from inspector.auth.options import make_authorizer
    from inspector.auth.person import NoPerson

    try:
        return make_authorizer(target.url, target.headers, target.oauth, NoPerson())
    except StoreError as exc:
        raise BridgeError(f"the OAuth token store: {exc}") from exc


def auth_failure(target: Target, exc: BaseException) -> BridgeError | None:
    """An authorization the bridge cannot complete, as a message naming the command."""
    from inspector.auth.errors import AuthError
    from inspector.engine.request_errors import first_failure

    exc = first_failure(exc)
    status = getattr(exc, "status", None)
    data = getattr(exc, "data", None)  # the transports' HTTP failure: {"status": 401...}
    if isinstance(data, dict):
        status = data.get("status", status)
    if isinstance(exc, AuthError) or status in (401, 403):
        hint = AUTHORIZE_HINT.format(url=target.url or target.describe())
        return BridgeError(f"{target.describe()} needs authorization ({exc}): {hint}")
    return None
