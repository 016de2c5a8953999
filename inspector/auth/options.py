"""OAuth settings from a config file's ``oauth`` object, under the command line's, and the
authorizer they make. (The flags themselves are the command line's: ``commands/oauth_options``
reads them into ``AuthSettings``; nothing here sees an argparse namespace.)

Flags win over a config file's ``oauth`` object (Claude Code's ``mcpServers`` entries have
one: ``clientId``, ``callbackPort``, ``scopes``; mcp-inspect also reads ``clientSecret`` and
``clientMetadataUrl``, in ``servers`` entries too). A client secret can come from the
``MCP_CLIENT_SECRET`` environment variable instead of the command line (where ``ps`` shows it).
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path
from typing import Any

from inspector.auth.errors import OptionError
from inspector.auth.settings import AuthSettings

SECRET_ENV = "MCP_CLIENT_SECRET"


def over_config(
    flags: AuthSettings,
    config: Mapping[str, Any] | None = None,
    environ: Mapping[str, str] | None = None,
) -> AuthSettings:
    """``flags`` (the command line's settings) over a config file's ``oauth`` object: what
    a flag left unset comes from the config (the client secret also from ``MCP_CLIENT_SECRET``),
    then the whole is checked (``OptionError`` says what is wrong)."""
    env = os.environ if environ is None else environ
    conf = dict(config or {})
    settings = replace(
        flags,
        client_id=flags.client_id or _text(conf, "clientId"),
        client_secret=flags.client_secret or _text(conf, "clientSecret") or env.get(SECRET_ENV),
        client_metadata_url=flags.client_metadata_url or _text(conf, "clientMetadataUrl"),
        scopes=flags.scopes if flags.scopes is not None else _config_scopes(conf.get("scopes")),
        callback_port=flags.callback_port or _port(conf.get("callbackPort")),
    )
    _check(settings)
    return settings


def _check(settings: AuthSettings) -> None:
    if settings.callback_port and not 0 < settings.callback_port < 65536:
        raise OptionError(f"--callback-port {settings.callback_port}: not a port (1-65535)")
    if settings.timeout <= 0:
        raise OptionError("--auth-timeout must be more than 0 seconds")
    if settings.private_key is not None and not settings.private_key.is_file():
        raise OptionError(f"--private-key: no such file: {settings.private_key}")
    url = settings.client_metadata_url
    if url is not None and (not url.startswith("https://") or url.rstrip("/").count("/") < 3):
        raise OptionError(
            f"--client-metadata-url {url!r}: a client ID metadata document's URL is an https "
            "URL with a path"
        )
    if settings.workload_token_file is not None:
        read_workload_token(settings.workload_token_file)  # a missing file is said now
        if settings.client_credentials or settings.idp_token_endpoint:
            raise OptionError(
                "--workload-token-file is a grant of its own: not with --client-credentials "
                "or cross-app access"
            )
    if settings.client_credentials and not settings.client_id:
        raise OptionError("--client-credentials needs --client-id")
    cross_app = (settings.idp_token_endpoint, settings.idp_client_id, settings.idp_id_token)
    if any(cross_app) and not all(cross_app):
        raise OptionError(
            "cross-app access needs --idp-token-endpoint, --idp-client-id and --idp-id-token-file"
        )


def read_token(path: str | Path, flag: str) -> str:
    """A token kept in a file (an ID token, a workload's JWT): its text, or what is wrong."""
    try:
        token = Path(path).read_text("utf-8").strip()
    except OSError as exc:
        raise OptionError(f"{flag}: cannot read {path}: {exc.strerror or exc}") from exc
    if not token:
        raise OptionError(f"{flag}: {path} is empty")
    return token


def read_workload_token(path: Path) -> str:
    """The workload's JWT, read when an authorization needs it."""
    return read_token(path, "--workload-token-file")


def _text(conf: Mapping[str, Any], key: str) -> str | None:
    value = conf.get(key)
    if value is None:
        return None
    if not isinstance(value, str):
        raise OptionError(f"oauth.{key} must be a string, got {type(value).__name__}")
    return value or None


def split_scopes(values: list[str]) -> list[str]:
    """``["a b", "c"]`` -> ``["a", "b", "c"]``: scopes given space separated, maybe repeated."""
    return [scope for value in values for scope in value.split()]


def _config_scopes(value: Any) -> list[str] | None:
    if value is None:
        return None
    if isinstance(value, str):
        return value.split()
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        return split_scopes(value)
    raise OptionError("oauth.scopes must be a space-separated string or a list of strings")


def _port(value: Any) -> int:
    if value is None:
        return 0
    if isinstance(value, bool) or not isinstance(value, int):
        raise OptionError(f"oauth.callbackPort must be a number, got {value!r}")
    return value


def make_authorizer(
    url: str | None,
    headers: Mapping[str, str],
    settings: AuthSettings | None,
    interaction: Any = None,
    **kwargs: Any,
) -> Any:
    """The transports' auth hook for an HTTP target, or None: no URL, OAuth off, or an
    ``Authorization`` header given by the user (theirs is sent as it is)."""
    if url is None or settings is None:
        return None
    if any(name.lower() == "authorization" for name in headers):
        return None
    from inspector.auth.flow import Authorizer
    from inspector.auth.store import TokenStore, default_path

    store = TokenStore((settings.store_path or default_path()) if settings.store else None)
    return Authorizer(url, settings, store, interaction, **kwargs)
