"""OAuth on the command line and in config files: the flags, and the settings they make.

Flags win over a config file's ``oauth`` object (Claude Code's ``mcpServers`` entries have
one: ``clientId``, ``callbackPort``, ``scopes``; mcp-inspect also reads ``clientSecret`` and
``clientMetadataUrl``, in ``servers`` entries too). A client secret can come from the
``MCP_CLIENT_SECRET`` environment variable instead of the command line (where ``ps`` shows it).
"""

from __future__ import annotations

import argparse
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from inspector.auth.errors import OptionError
from inspector.auth.settings import DEFAULT_TIMEOUT, AuthSettings

SECRET_ENV = "MCP_CLIENT_SECRET"


def add_oauth_options(parser: argparse.ArgumentParser) -> None:
    group = parser.add_argument_group("OAuth (HTTP servers)")
    group.add_argument("--client-id", help="a pre-registered OAuth client id")
    group.add_argument(
        "--client-secret",
        help=f"its secret (or set {SECRET_ENV}; the command line is visible to other users)",
    )
    group.add_argument(
        "--client-metadata-url",
        metavar="URL",
        help="the https URL of your client ID metadata document, used as the client_id when "
        "the authorization server supports it",
    )
    group.add_argument(
        "--scope",
        action="append",
        metavar="SCOPES",
        help="scopes to ask for instead of the server's choice (space separated, repeatable)",
    )
    group.add_argument(
        "--callback-port",
        type=int,
        metavar="PORT",
        help="port of the loopback redirect listener (default: a random free port)",
    )
    group.add_argument(
        "--client-credentials",
        action="store_true",
        help="machine to machine: the client-credentials grant (--client-id with "
        "--client-secret or --private-key)",
    )
    group.add_argument(
        "--private-key",
        metavar="FILE",
        help="PEM private key (EC P-256 or RSA) for private_key_jwt client authentication",
    )
    group.add_argument(
        "--idp-token-endpoint",
        metavar="URL",
        help="cross-app access: the identity provider's token endpoint (token exchange)",
    )
    group.add_argument("--idp-client-id", help="cross-app access: our client id at the provider")
    group.add_argument("--idp-client-secret", help="cross-app access: its secret, if any")
    group.add_argument(
        "--idp-id-token-file",
        metavar="FILE",
        help="cross-app access: a file holding the provider's ID token for the user",
    )
    group.add_argument(
        "--workload-token-file",
        metavar="FILE",
        help="workload identity federation: a file holding the workload's JWT from its "
        "platform (a CI or cloud identity token), exchanged for an access token in the JWT "
        "bearer grant (RFC 7523); read again at each authorization, as platforms rotate it",
    )
    group.add_argument(
        "--insecure-oauth",
        action="store_true",
        help="allow OAuth endpoints and metadata over plain http:// on hosts other than "
        "loopback (lab setups only: codes, tokens and secrets then travel in clear)",
    )
    group.add_argument(
        "--auth-follow",
        action="store_true",
        help="request the authorization URL ourselves and follow its redirect (servers that "
        "approve without a person: test servers, the conformance suite)",
    )
    group.add_argument(
        "--auth-paste",
        action="store_true",
        help="--cli: also accept the redirected URL pasted on stdin (a browser elsewhere)",
    )
    group.add_argument(
        "--auth-step",
        action="store_true",
        help="TUI: pause before each request of an OAuth flow (for debugging an "
        "authorization server)",
    )
    group.add_argument(
        "--auth-timeout",
        type=float,
        default=DEFAULT_TIMEOUT,
        metavar="SECONDS",
        help=f"how long to wait for the authorization redirect (default {DEFAULT_TIMEOUT:g})",
    )
    group.add_argument("--no-store", action="store_true", help="keep OAuth tokens in memory only")
    group.add_argument(
        "--no-auth", action="store_true", help="never run OAuth (a 401 ends the call, exit 7)"
    )


def auth_settings(
    opts: argparse.Namespace,
    config: Mapping[str, Any] | None = None,
    environ: Mapping[str, str] | None = None,
) -> AuthSettings | None:
    """The settings from flags over a config file's ``oauth`` object; None with --no-auth."""
    if getattr(opts, "no_auth", False):
        return None
    env = os.environ if environ is None else environ
    conf = dict(config or {})
    settings = AuthSettings(
        client_id=opts.client_id or _text(conf, "clientId"),
        client_secret=opts.client_secret or _text(conf, "clientSecret") or env.get(SECRET_ENV),
        client_metadata_url=opts.client_metadata_url or _text(conf, "clientMetadataUrl"),
        scopes=_scopes(opts.scope) if opts.scope else _config_scopes(conf.get("scopes")),
        callback_port=opts.callback_port or _port(conf.get("callbackPort")),
        client_credentials=bool(opts.client_credentials),
        private_key=Path(opts.private_key) if opts.private_key else None,
        idp_token_endpoint=opts.idp_token_endpoint,
        idp_client_id=opts.idp_client_id,
        idp_client_secret=opts.idp_client_secret,
        idp_id_token=_read_token(opts.idp_id_token_file, "--idp-id-token-file")
        if opts.idp_id_token_file
        else None,
        workload_token_file=Path(opts.workload_token_file) if opts.workload_token_file else None,
        insecure=bool(getattr(opts, "insecure_oauth", False)),
        follow=bool(opts.auth_follow),
        paste=bool(opts.auth_paste),
        step=bool(getattr(opts, "auth_step", False)),
        timeout=float(opts.auth_timeout),
        store=not opts.no_store,
    )
    timeout = getattr(opts, "timeout", None)
    if isinstance(timeout, int | float) and timeout > 0:
        settings.exchange_timeout = min(settings.exchange_timeout, float(timeout))
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


def _text(conf: Mapping[str, Any], key: str) -> str | None:
    value = conf.get(key)
    if value is None:
        return None
    if not isinstance(value, str):
        raise OptionError(f"oauth.{key} must be a string, got {type(value).__name__}")
    return value or None


def _scopes(values: list[str]) -> list[str]:
    return [scope for value in values for scope in value.split()]


def _config_scopes(value: Any) -> list[str] | None:
    if value is None:
        return None
    if isinstance(value, str):
        return value.split()
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        return _scopes(value)
    raise OptionError("oauth.scopes must be a space-separated string or a list of strings")


def _port(value: Any) -> int:
    if value is None:
        return 0
    if isinstance(value, bool) or not isinstance(value, int):
        raise OptionError(f"oauth.callbackPort must be a number, got {value!r}")
    return value


def _read_token(path: str | Path, flag: str) -> str:
    try:
        token = Path(path).read_text("utf-8").strip()
    except OSError as exc:
        raise OptionError(f"{flag}: cannot read {path}: {exc.strerror or exc}") from exc
    if not token:
        raise OptionError(f"{flag}: {path} is empty")
    return token


def read_workload_token(path: Path) -> str:
    """The workload's JWT, read when an authorization needs it."""
    return _read_token(path, "--workload-token-file")


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
