"""OAuth on the command line: the flags (``add_oauth_options``) and the ``AuthSettings``
they make over a config file's ``oauth`` object (``auth_settings``). The ``auth`` package
takes settings; the argparse namespace stays here.
"""

from __future__ import annotations

import argparse
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from inspector.auth.options import SECRET_ENV, over_config, read_token, split_scopes
from inspector.auth.settings import DEFAULT_TIMEOUT, AuthSettings


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
    flags = AuthSettings(
        client_id=opts.client_id,
        client_secret=opts.client_secret,
        client_metadata_url=opts.client_metadata_url,
        scopes=split_scopes(opts.scope) if opts.scope else None,
        callback_port=opts.callback_port or 0,
        client_credentials=bool(opts.client_credentials),
        private_key=Path(opts.private_key) if opts.private_key else None,
        idp_token_endpoint=opts.idp_token_endpoint,
        idp_client_id=opts.idp_client_id,
        idp_client_secret=opts.idp_client_secret,
        idp_id_token=read_token(opts.idp_id_token_file, "--idp-id-token-file")
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
    settings = over_config(flags, config, environ)
    # an OAuth exchange has its own bound, and --timeout caps it (a silent token endpoint
    # is then named within the user's timeout)
    timeout = getattr(opts, "timeout", None)
    if isinstance(timeout, int | float) and timeout > 0:
        settings.exchange_timeout = min(settings.exchange_timeout, float(timeout))
    return settings
