"""What the user configured for OAuth: flags of the command line, or a server's entry in a
config file. Secrets given here (a client secret, an identity provider's token) are used,
never stored."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

DEFAULT_TIMEOUT = 300.0  # seconds a flow waits for a person's redirect
EXCHANGE_TIMEOUT = 30.0  # seconds one OAuth request may take
MAX_AUTHORIZATIONS = 3  # per request: the first, then step-ups; a server that keeps refusing ends


@dataclass
class AuthSettings:
    """OAuth options. ``client_id`` set: a pre-registered client (or the client of the
    client-credentials and cross-app grants)."""

    client_id: str | None = None
    client_secret: str | None = None
    client_metadata_url: str | None = None  # a Client ID Metadata Document: the client_id
    scopes: list[str] | None = None  # instead of the server's choice
    callback_port: int = 0  # 0: a random free port
    client_credentials: bool = False  # machine to machine: no person, no browser
    private_key: Path | None = None  # private_key_jwt (RFC 7523), ES256 or RS256
    idp_token_endpoint: str | None = None  # cross-app access: token exchange there first
    idp_client_id: str | None = None
    idp_client_secret: str | None = None
    idp_id_token: str | None = None
    workload_token_file: Path | None = None  # workload identity: the JWT bearer grant
    insecure: bool = False  # OAuth over plain http:// on hosts other than loopback (labs)
    exchange_timeout: float = EXCHANGE_TIMEOUT  # one OAuth HTTP exchange (--timeout caps it)
    follow: bool = False  # request the authorization URL ourselves and follow its redirect
    paste: bool = False  # the person pastes the redirected URL (SSH: browser elsewhere)
    step: bool = False  # TUI: pause before each request of a flow (debugging a server)
    timeout: float = DEFAULT_TIMEOUT
    store: bool = True  # keep tokens and registrations on disk
    store_path: Path | None = None  # None: the XDG state folder
    max_authorizations: int = MAX_AUTHORIZATIONS

    def summary(self) -> dict[str, object]:
        """What a session file's header may say about the OAuth setup: no secret."""
        return {
            "grant": self.grant,
            "client_id": self.client_id,
            "client_metadata_url": self.client_metadata_url,
            "scopes": self.scopes,
            "follow": self.follow,
            "store": self.store,
        }

    @property
    def grant(self) -> str:
        """The grant a challenge starts: cross-app, workload-identity, client-credentials or
        authorization-code."""
        if self.idp_token_endpoint:
            return "cross-app"
        if self.workload_token_file is not None:
            return "workload-identity"
        if self.client_credentials:
            return "client-credentials"
        return "authorization-code"
