"""Who the client is at an authorization server, in the order MCP 2025-11-25 gives:
pre-registered credentials, a Client ID Metadata Document (its URL is the client_id), a
registration kept from an earlier run, Dynamic Client Registration (RFC 7591)."""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import httpx

from inspector import __version__
from inspector.auth.errors import AuthError, oauth_error_text
from inspector.auth.jwt import PrivateKey

if TYPE_CHECKING:
    from inspector.auth.discovery import ServerMetadata
    from inspector.auth.wire import AuthWire

CLIENT_NAME = "mcp-inspect"
GRANT_TYPES = ["authorization_code", "refresh_token"]
LOOPBACK_HOSTS = ("127.0.0.1", "localhost", "::1", "[::1]")


@dataclass(slots=True)
class ClientIdentity:
    """A client_id and how it authenticates. ``source``: pre-registered, metadata-document,
    registered (DCR) or stored (a registration kept from an earlier run)."""

    client_id: str
    client_secret: str | None = None
    auth_method: str | None = None  # what the registration said, when it said
    redirect_uris: list[str] = field(default_factory=list)
    source: str = "pre-registered"
    issuer: str | None = None
    registered_at: float | None = None
    private_key: PrivateKey | None = None
    scopes: list[str] | None = None  # what the registration allows, when the server said

    def allows(self, scopes: list[str] | None) -> bool:
        """False when the registration is known to allow fewer scopes than ``scopes``."""
        return self.scopes is None or set(scopes or []) <= set(self.scopes)

    def to_json(self) -> dict[str, Any]:
        return {
            "client_id": self.client_id,
            "client_secret": self.client_secret,
            "auth_method": self.auth_method,
            "redirect_uris": self.redirect_uris,
            "issuer": self.issuer,
            "registered_at": self.registered_at,
            "scopes": self.scopes,
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> ClientIdentity | None:
        client_id = _str(data, "client_id")
        if not client_id:
            return None
        uris, scopes, when = (
            data.get("redirect_uris"),
            data.get("scopes"),
            data.get("registered_at"),
        )
        return cls(
            client_id=client_id,
            client_secret=_str(data, "client_secret"),
            auth_method=_str(data, "auth_method"),
            redirect_uris=[str(u) for u in uris] if isinstance(uris, list) else [],
            source="stored",
            issuer=_str(data, "issuer"),
            registered_at=float(when) if isinstance(when, int | float) else None,
            scopes=[str(s) for s in scopes] if isinstance(scopes, list) else None,
        )


def _str(data: dict[str, Any], key: str) -> str | None:
    value = data.get(key)
    return value if isinstance(value, str) else None


def registration_metadata(
    redirect_uri: str | None, server: ServerMetadata, scopes: list[str] | None = None
) -> dict[str, Any]:
    """What we ask to be registered as: a public native client with refresh tokens, for
    the scopes this authorization asks (a server may allow a client no more)."""
    data: dict[str, Any] = {
        "client_name": CLIENT_NAME,
        "software_id": "mcp-inspect",
        "software_version": __version__,
        "grant_types": list(GRANT_TYPES),
        "response_types": ["code"],
        "application_type": application_type(redirect_uri),
    }
    if redirect_uri:
        data["redirect_uris"] = [redirect_uri]
    if scopes:
        data["scope"] = " ".join(scopes)
    supported = server.token_endpoint_auth_methods_supported
    if supported is None or "none" in supported:
        data["token_endpoint_auth_method"] = "none"
    return data


def application_type(redirect_uri: str | None) -> str:
    """SEP-837 (OpenID DCR ``application_type``): ``native`` for a client whose redirect is
    a loopback listener (RFC 8252) or that has none, ``web`` for a redirect to a host."""
    if redirect_uri is None:
        return "native"
    try:
        host = httpx.URL(redirect_uri).host
    except httpx.InvalidURL:
        return "web"
    return "native" if host in LOOPBACK_HOSTS else "web"


async def register(
    wire: AuthWire,
    server: ServerMetadata,
    redirect_uri: str | None,
    scopes: list[str] | None = None,
) -> ClientIdentity:
    """Dynamic Client Registration (RFC 7591) at the server's registration endpoint."""
    endpoint = server.registration_endpoint
    if not endpoint:
        raise AuthError(
            "registration",
            f"the authorization server {server.issuer} offers no dynamic client registration "
            "and no client is configured: pass --client-id (and --client-secret) of a client "
            "registered there, or --client-metadata-url when it supports metadata documents",
        )
    response = await wire.request(
        "registration",
        "POST",
        endpoint,
        json_body=registration_metadata(redirect_uri, server, scopes),
    )
    data = response.json()
    if response.status not in (200, 201) or not isinstance(data, dict):
        said = oauth_error_text(data)
        raise AuthError(
            "registration",
            f"{endpoint} answered HTTP {response.status}" + (f": {said}" if said else ""),
            status=response.status,
        )
    client_id = data.get("client_id")
    if not isinstance(client_id, str) or not client_id:
        raise AuthError("registration", f"{endpoint} answered without a client_id")
    secret = data.get("client_secret")
    method = data.get("token_endpoint_auth_method")
    if method in ("client_secret_basic", "client_secret_post") and not isinstance(secret, str):
        raise AuthError(
            "registration",
            f"{endpoint} registered the client for {method} but issued no client_secret",
        )
    uris, granted = data.get("redirect_uris"), data.get("scope")
    return ClientIdentity(
        client_id=client_id,
        client_secret=secret if isinstance(secret, str) else None,
        auth_method=method if isinstance(method, str) else None,
        redirect_uris=[str(u) for u in uris] if isinstance(uris, list) else [],
        source="registered",
        issuer=server.issuer,
        registered_at=time.time(),
        scopes=granted.split() if isinstance(granted, str) else None,
    )
