"""The grants an authorization runs, given what discovery found (``GrantContext``):
machine to machine ones here (client credentials; cross-app access, SEP-990; workload
identity federation, SEP-1933), the authorization code with PKCE in ``code_grant``."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from inspector.auth.client import ClientIdentity
from inspector.auth.discovery import ResourceMetadata, ServerMetadata, origin
from inspector.auth.dpop import DpopKey
from inspector.auth.errors import AuthError, OptionError
from inspector.auth.jwt import PrivateKey
from inspector.auth.options import read_workload_token
from inspector.auth.settings import AuthSettings
from inspector.auth.store import TokenStore
from inspector.auth.tokens import TokenSet, token_request
from inspector.auth.wire import AuthWire

if TYPE_CHECKING:
    from inspector.auth.person import Interaction

TOKEN_EXCHANGE = "urn:ietf:params:oauth:grant-type:token-exchange"
JWT_BEARER = "urn:ietf:params:oauth:grant-type:jwt-bearer"
ID_JAG = "urn:ietf:params:oauth:token-type:id-jag"
ID_TOKEN = "urn:ietf:params:oauth:token-type:id_token"


@dataclass(slots=True)
class GrantContext:
    """What a grant works with: the wire, the authorization server, the resource."""

    wire: AuthWire
    server: ServerMetadata
    resource: str | None
    settings: AuthSettings
    store: TokenStore
    interaction: Interaction
    resource_meta: ResourceMetadata | None
    private_key: Callable[[], PrivateKey | None]
    learned: Callable[[str | None], None]  # a secret obtained on the way (to redact it)
    dpop: DpopKey | None = None  # the key tokens are bound to, when the server binds them


async def client_credentials(ctx: GrantContext, scopes: list[str] | None) -> TokenSet:
    """Machine to machine: the client's own credentials (a secret, or a signed JWT)."""
    server = ctx.server
    settings = ctx.settings
    if not settings.client_id or not (settings.client_secret or settings.private_key):
        raise AuthError(
            "client credentials",
            "--client-credentials needs --client-id and either --client-secret or --private-key",
        )
    client = ClientIdentity(
        settings.client_id, settings.client_secret, private_key=ctx.private_key()
    )
    form = {"grant_type": "client_credentials"}
    if scopes:
        form["scope"] = " ".join(scopes)
    if ctx.resource:
        form["resource"] = ctx.resource
    return await token_request(
        ctx.wire,
        "client credentials",
        server,
        client,
        form,
        resource=ctx.resource,
        requested=scopes or [],
        dpop=ctx.dpop,
    )


async def cross_app(ctx: GrantContext, scopes: list[str] | None) -> TokenSet:
    """Enterprise-managed authorization (SEP-990): the identity provider's ID token is
    exchanged there for an ID-JAG (RFC 8693), which the authorization server takes in
    the JWT bearer grant (RFC 7523)."""
    server = ctx.server
    settings = ctx.settings
    if not (settings.idp_id_token and settings.idp_client_id and settings.idp_token_endpoint):
        raise AuthError(
            "token exchange",
            "cross-app access needs --idp-token-endpoint, --idp-client-id and --idp-id-token-file",
        )
    if not settings.client_id:
        raise AuthError("jwt bearer", "cross-app access needs --client-id (and its secret)")
    grants = server.grant_types_supported
    if grants is not None and JWT_BEARER not in grants:
        raise AuthError(
            "jwt bearer",
            f"{server.issuer} does not list the JWT bearer grant ({JWT_BEARER}) in "
            f"grant_types_supported ({', '.join(grants)})",
        )
    idp = ServerMetadata(
        issuer=origin(settings.idp_token_endpoint),
        authorization_endpoint="",
        token_endpoint=settings.idp_token_endpoint,
    )
    exchange = {
        "grant_type": TOKEN_EXCHANGE,
        "requested_token_type": ID_JAG,
        "audience": server.issuer,
        "subject_token": settings.idp_id_token,
        "subject_token_type": ID_TOKEN,
    }
    if ctx.resource:
        exchange["resource"] = ctx.resource
    if scopes:
        exchange["scope"] = " ".join(scopes)
    grant = await token_request(
        ctx.wire,
        "token exchange",
        idp,
        ClientIdentity(settings.idp_client_id, settings.idp_client_secret),
        exchange,
        resource=ctx.resource,
        requested=scopes or [],
    )
    ctx.learned(grant.access_token)
    ctx.wire.note("identity assertion grant (ID-JAG) received", auth="id-jag")
    form = {"grant_type": JWT_BEARER, "assertion": grant.access_token}
    if scopes:
        form["scope"] = " ".join(scopes)
    return await token_request(
        ctx.wire,
        "jwt bearer",
        server,
        ClientIdentity(settings.client_id, settings.client_secret),
        form,
        resource=ctx.resource,
        requested=scopes or [],
        dpop=ctx.dpop,
    )


async def workload_identity(ctx: GrantContext, scopes: list[str] | None) -> TokenSet:
    """Workload identity federation (SEP-1933): the JWT the workload's platform issued is
    the assertion of the JWT bearer grant (RFC 7523). A refusal is final: the error is
    said, neither retried nor followed by another grant."""
    server = ctx.server
    settings = ctx.settings
    assert settings.workload_token_file is not None
    try:
        assertion = read_workload_token(settings.workload_token_file)
    except OptionError as exc:
        raise AuthError("jwt bearer", str(exc)) from exc
    ctx.learned(assertion)
    grants = server.grant_types_supported
    if grants is not None and JWT_BEARER not in grants:
        raise AuthError(
            "jwt bearer",
            f"{server.issuer} does not list the JWT bearer grant ({JWT_BEARER}) in "
            f"grant_types_supported ({', '.join(grants)})",
        )
    form = {"grant_type": JWT_BEARER, "assertion": assertion}
    if scopes:
        form["scope"] = " ".join(scopes)
    if ctx.resource:
        form["resource"] = ctx.resource
    client = (
        ClientIdentity(settings.client_id, settings.client_secret, private_key=ctx.private_key())
        if settings.client_id
        else None
    )
    return await token_request(
        ctx.wire,
        "jwt bearer",
        server,
        client,
        form,
        resource=ctx.resource,
        requested=scopes or [],
        dpop=ctx.dpop,
    )
