"""Where to authorize: protected resource metadata (RFC 9728) and authorization server
metadata (RFC 8414, OpenID Connect Discovery), in the order MCP 2025-11-25 gives, with the
2025-03-26 fallbacks (metadata at the server's origin, else the default endpoints).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import httpx

from inspector.auth.errors import AuthError
from inspector.auth.wire import AuthWire, is_secure

PRM_WELL_KNOWN = "/.well-known/oauth-protected-resource"
OAUTH_WELL_KNOWN = "/.well-known/oauth-authorization-server"
OIDC_WELL_KNOWN = "/.well-known/openid-configuration"


@dataclass(slots=True)
class ResourceMetadata:
    """A protected resource's metadata (RFC 9728) and where it was found."""

    url: str
    resource: str | None
    authorization_servers: list[str]
    scopes_supported: list[str] | None
    raw: dict[str, Any] = field(default_factory=dict)


@dataclass(slots=True)
class ServerMetadata:
    """An authorization server's metadata; ``url`` None means the 2025-03-26 defaults."""

    issuer: str
    authorization_endpoint: str
    token_endpoint: str
    registration_endpoint: str | None = None
    scopes_supported: list[str] | None = None
    code_challenge_methods_supported: list[str] | None = None
    token_endpoint_auth_methods_supported: list[str] | None = None
    grant_types_supported: list[str] | None = None
    client_id_metadata_document_supported: bool = False
    authorization_response_iss_parameter_supported: bool = False
    url: str | None = None
    raw: dict[str, Any] = field(default_factory=dict)

    @property
    def is_default(self) -> bool:
        return self.url is None


def origin(url: str) -> str:
    parsed = httpx.URL(url)
    port = f":{parsed.port}" if parsed.port else ""
    return f"{parsed.scheme}://{parsed.host}{port}"


def _path(url: str) -> str:
    return httpx.URL(url).path.rstrip("/")


def resource_metadata_urls(server_url: str, header_url: str | None) -> list[str]:
    """The header's URL, then the path-aware well-known URL, then the root one."""
    urls = [header_url] if header_url else []
    path = _path(server_url)
    if path:
        urls.append(origin(server_url) + PRM_WELL_KNOWN + path)
    urls.append(origin(server_url) + PRM_WELL_KNOWN)
    return list(dict.fromkeys(urls))


def server_metadata_urls(issuer: str) -> list[str]:
    """RFC 8414 and OIDC discovery for an issuer, path-aware first (MCP 2025-11-25 order)."""
    base, path = origin(issuer), _path(issuer)
    if path:
        return [
            base + OAUTH_WELL_KNOWN + path,
            base + OIDC_WELL_KNOWN + path,
            base + path + OIDC_WELL_KNOWN,
        ]
    return [base + OAUTH_WELL_KNOWN, base + OIDC_WELL_KNOWN]


def _strings(value: Any) -> list[str] | None:
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        return list(value)
    return None


async def discover_resource(
    wire: AuthWire, server_url: str, header_url: str | None
) -> ResourceMetadata | None:
    """The protected resource metadata, or None when the server publishes none (a
    2025-03-26 server)."""
    tried: list[str] = []
    for url in resource_metadata_urls(server_url, header_url):
        response = await wire.request("resource metadata", "GET", url)
        tried.append(f"{url} ({response.status})")
        data = response.json()
        if response.status != 200 or not isinstance(data, dict):
            continue
        servers = _strings(data.get("authorization_servers")) or []
        resource = data.get("resource")
        return ResourceMetadata(
            url=url,
            resource=resource if isinstance(resource, str) else None,
            authorization_servers=servers,
            scopes_supported=_strings(data.get("scopes_supported")),
            raw=data,
        )
    wire.note(
        "no protected resource metadata (tried " + ", ".join(tried) + "): "
        "treating the server as a 2025-03-26 one (authorization at its origin)"
    )
    return None


def same_resource(resource: str, server_url: str) -> bool:
    """RFC 9728 section 3.3 as the MCP SDKs apply it: the metadata's ``resource`` names this
    server (same origin, and its path is the server URL's path or a parent of it)."""
    try:
        a, b = httpx.URL(resource), httpx.URL(server_url)
    except httpx.InvalidURL:
        return False
    if origin(resource).lower() != origin(server_url).lower() or a.fragment:
        return False
    parent = a.path.rstrip("/")
    child = b.path.rstrip("/")
    return child == parent or child.startswith(parent + "/")


def check_resource(metadata: ResourceMetadata, server_url: str) -> str:
    """The ``resource`` to ask tokens for; ``AuthError`` when the metadata names another
    server (a token for this server must never be sent there)."""
    if metadata.resource is None:
        raise AuthError(
            "resource metadata",
            f"the protected resource metadata at {metadata.url} has no 'resource' "
            "(RFC 9728 requires it); not authorizing",
        )
    if not same_resource(metadata.resource, server_url):
        raise AuthError(
            "resource metadata",
            f"the protected resource metadata at {metadata.url} is for "
            f"{metadata.resource!r}, not for this server ({server_url}); refusing to "
            "authorize a token for another resource (RFC 9728 section 3.3)",
        )
    return metadata.resource


def canonical_resource(server_url: str) -> str:
    """The server URL as a resource indicator (RFC 8707): no fragment, lower-case host."""
    url = httpx.URL(server_url).copy_with(fragment=None)
    return str(url.copy_with(host=url.host.lower()))


async def discover_server(wire: AuthWire, issuer: str, *, legacy: bool = False) -> ServerMetadata:
    """The authorization server's metadata. ``legacy`` (no resource metadata): ``issuer`` is
    the MCP server's origin, and without metadata the default endpoints are used."""
    tried: list[str] = []
    for url in server_metadata_urls(issuer):
        response = await wire.request("server metadata", "GET", url)
        tried.append(f"{url} ({response.status})")
        data = response.json()
        if response.status == 200 and isinstance(data, dict):
            return _server_metadata(wire, data, url, issuer, legacy)
        if response.status >= 500:
            break
    if not legacy:
        raise AuthError(
            "server metadata",
            f"no authorization server metadata for {issuer} (tried {', '.join(tried)})",
        )
    base = origin(issuer)
    wire.note(
        f"no authorization server metadata at {base}: using the 2025-03-26 default "
        f"endpoints {base}/authorize, {base}/token, {base}/register"
    )
    return ServerMetadata(
        issuer=base,
        authorization_endpoint=base + "/authorize",
        token_endpoint=base + "/token",
        registration_endpoint=base + "/register",
    )


def _server_metadata(
    wire: AuthWire, data: dict[str, Any], url: str, issuer: str, legacy: bool
) -> ServerMetadata:
    found = data.get("issuer")
    if not isinstance(found, str) or not found:
        raise AuthError("server metadata", f"the metadata at {url} has no 'issuer'")
    if found.rstrip("/") != issuer.rstrip("/"):
        text = (
            f"the metadata at {url} names issuer {found!r}, not {issuer!r} (RFC 8414 section 3.3)"
        )
        if not legacy:
            raise AuthError("server metadata", text + "; not using it")
        wire.note(text + "; accepted for a 2025-03-26 server, which had no issuer rule", "warning")
    for key in ("authorization_endpoint", "token_endpoint", "registration_endpoint"):
        endpoint = data.get(key)
        if isinstance(endpoint, str) and endpoint and not wire.insecure and not is_secure(endpoint):
            raise AuthError(
                "server metadata",
                f"the metadata at {url} names the {key} {endpoint!r}: plain http:// to a "
                "host that is not loopback, where codes, tokens and client secrets would "
                "travel in clear (OAuth requires https); refusing. Pass --insecure-oauth to "
                "allow it (lab setups only)",
            )
    missing = [k for k in ("authorization_endpoint", "token_endpoint") if not data.get(k)]
    if "token_endpoint" in missing:
        raise AuthError("server metadata", f"the metadata at {url} has no token_endpoint")
    return ServerMetadata(
        issuer=found,
        authorization_endpoint=str(data.get("authorization_endpoint") or ""),
        token_endpoint=str(data["token_endpoint"]),
        registration_endpoint=data.get("registration_endpoint") or None,
        scopes_supported=_strings(data.get("scopes_supported")),
        code_challenge_methods_supported=_strings(data.get("code_challenge_methods_supported")),
        token_endpoint_auth_methods_supported=_strings(
            data.get("token_endpoint_auth_methods_supported")
        ),
        grant_types_supported=_strings(data.get("grant_types_supported")),
        client_id_metadata_document_supported=data.get("client_id_metadata_document_supported")
        is True,
        authorization_response_iss_parameter_supported=data.get(
            "authorization_response_iss_parameter_supported"
        )
        is True,
        url=url,
        raw=data,
    )
