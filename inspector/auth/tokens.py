"""Token endpoint requests (RFC 6749 section 3.2, OAuth 2.1) and client authentication:
``client_secret_basic``, ``client_secret_post``, ``none`` and ``private_key_jwt``."""

from __future__ import annotations

import base64
import time
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import quote_plus

from inspector.auth.client import ClientIdentity
from inspector.auth.discovery import ServerMetadata
from inspector.auth.dpop import DpopKey, nonce_asked, proof_note
from inspector.auth.errors import AuthError, oauth_error_text
from inspector.auth.jwt import ASSERTION_TYPE, client_assertion
from inspector.auth.wire import AuthWire

EXPIRY_MARGIN = 30.0  # seconds: a token this close to expiry is refreshed before use


@dataclass(slots=True)
class TokenSet:
    """What a token endpoint granted (``scopes``: granted, else what was asked)."""

    access_token: str
    token_type: str = "Bearer"
    refresh_token: str | None = None
    expires_at: float | None = None
    scopes: list[str] = field(default_factory=list)
    issuer: str | None = None
    resource: str | None = None
    obtained_at: float = field(default_factory=time.time)
    dpop_key: dict[str, str] | None = None  # the private JWK a DPoP-bound token needs

    @property
    def dpop(self) -> DpopKey | None:
        """The key this token is bound to (``token_type`` DPoP), if it is."""
        if self.token_type.lower() != "dpop":
            return None
        return DpopKey.from_json(self.dpop_key)

    def expires_within(self, seconds: float) -> bool:
        return self.expires_at is not None and self.expires_at - time.time() <= seconds

    def due_for_refresh(self) -> bool:
        """Near expiry: within ``EXPIRY_MARGIN``, or the last quarter of a short lifetime
        (a 20 s token is not refreshed before every request)."""
        if self.expires_at is None:
            return False
        lifetime = max(self.expires_at - self.obtained_at, 0.0)
        return self.expires_within(min(EXPIRY_MARGIN, lifetime / 4))

    def to_json(self) -> dict[str, Any]:
        return {
            "access_token": self.access_token,
            "token_type": self.token_type,
            "refresh_token": self.refresh_token,
            "expires_at": self.expires_at,
            "scopes": self.scopes,
            "issuer": self.issuer,
            "resource": self.resource,
            "obtained_at": self.obtained_at,
            "dpop_key": self.dpop_key,
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> TokenSet | None:
        token = data.get("access_token")
        if not isinstance(token, str) or not token:
            return None
        expires = data.get("expires_at")
        scopes = data.get("scopes")
        return cls(
            access_token=token,
            token_type=str(data.get("token_type") or "Bearer"),
            refresh_token=data.get("refresh_token")
            if isinstance(data.get("refresh_token"), str)
            else None,
            expires_at=float(expires) if isinstance(expires, int | float) else None,
            scopes=[str(s) for s in scopes] if isinstance(scopes, list) else [],
            issuer=data.get("issuer") if isinstance(data.get("issuer"), str) else None,
            resource=data.get("resource") if isinstance(data.get("resource"), str) else None,
            obtained_at=float(data.get("obtained_at") or time.time()),
            dpop_key=data.get("dpop_key") if isinstance(data.get("dpop_key"), dict) else None,
        )


def auth_method(client: ClientIdentity, server: ServerMetadata) -> str:
    """How to authenticate at the token endpoint: what registration said, else what the
    server supports (RFC 8414's default is client_secret_basic), else none."""
    if client.private_key is not None:
        return "private_key_jwt"
    if client.auth_method:
        return client.auth_method
    if not client.client_secret:
        return "none"
    supported = server.token_endpoint_auth_methods_supported
    if supported is None:
        return "client_secret_basic"
    for method in ("client_secret_basic", "client_secret_post"):
        if method in supported:
            return method
    return "none" if "none" in supported else "client_secret_basic"


def authenticate(
    client: ClientIdentity, server: ServerMetadata, form: dict[str, str]
) -> dict[str, str]:
    """Add the client's authentication to a token request: returns headers, fills ``form``."""
    method = auth_method(client, server)
    if method == "client_secret_basic" and client.client_secret:
        pair = f"{quote_plus(client.client_id)}:{quote_plus(client.client_secret)}"
        return {"Authorization": "Basic " + base64.b64encode(pair.encode()).decode("ascii")}
    form["client_id"] = client.client_id
    if method == "client_secret_post" and client.client_secret:
        form["client_secret"] = client.client_secret
    elif method == "private_key_jwt" and client.private_key is not None:
        form["client_assertion_type"] = ASSERTION_TYPE
        form["client_assertion"] = client_assertion(
            client.client_id, server.issuer, client.private_key
        )
    return {}


async def token_request(
    wire: AuthWire,
    step: str,
    server: ServerMetadata,
    client: ClientIdentity | None,
    form: dict[str, str],
    *,
    resource: str | None,
    requested: list[str],
    endpoint: str | None = None,
    dpop: DpopKey | None = None,
) -> TokenSet:
    """POST ``form`` to the token endpoint (or ``endpoint``) and read the tokens. With
    ``dpop``, each request carries a fresh proof, and a ``use_dpop_nonce`` answer is
    retried once with the server's nonce (RFC 9449 section 8)."""
    url = endpoint or server.token_endpoint
    nonce: str | None = None
    while True:
        headers = authenticate(client, server, form) if client is not None else {}
        if dpop is not None:
            proof = dpop.proof("POST", url, nonce=nonce)
            text, meta = proof_note(proof, dpop, step)
            wire.note(text, **meta)
            headers["DPoP"] = proof.jwt
        response = await wire.request(step, "POST", url, form=form, headers=headers)
        data = response.json()
        asked = nonce_asked(response.headers, oauth_error(data)) if dpop is not None else None
        if response.status == 400 and asked is not None and nonce is None:
            wire.note(f"{step}: the server asks for a DPoP nonce; sending the proof again")
            nonce = asked
            continue
        break
    if response.truncated:
        raise AuthError(
            step,
            f"the token endpoint {url} answered more than {len(response.body)} bytes (HTTP "
            f"{response.status}): too big for a token response, so it was not read whole",
            status=response.status,
        )
    if response.status != 200:
        said = oauth_error_text(data) or _excerpt(response.body)
        raise AuthError(
            step,
            f"the token endpoint {url} answered HTTP {response.status}"
            + (f": {said}" if said else ""),
            status=response.status,
        )
    if not isinstance(data, dict) or not isinstance(data.get("access_token"), str):
        raise AuthError(step, f"the token endpoint {url} answered without an access_token")
    token_type = str(data.get("token_type") or "Bearer")
    expires_in = data.get("expires_in")
    granted = data.get("scope")
    bound = dpop is not None and token_type.lower() == "dpop"
    return TokenSet(
        access_token=data["access_token"],
        token_type="DPoP" if bound else _token_type(token_type),
        refresh_token=data.get("refresh_token")
        if isinstance(data.get("refresh_token"), str)
        else None,
        expires_at=time.time() + float(expires_in) if isinstance(expires_in, int | float) else None,
        scopes=granted.split() if isinstance(granted, str) else list(requested),
        issuer=server.issuer,
        resource=resource,
        dpop_key=dpop.to_json() if bound and dpop is not None else None,
    )


def _token_type(token_type: str) -> str:
    """Bearer for Bearer (any case) and N_A (a token exchange's), else as the server said
    (a DPoP token to a client that sent no proof cannot be used: it says so at the
    resource)."""
    return "Bearer" if token_type.lower() in ("bearer", "n_a") else token_type


def oauth_error(data: Any) -> str | None:
    """The ``error`` code of an OAuth error body, if it is one."""
    error = data.get("error") if isinstance(data, dict) else None
    return error if isinstance(error, str) else None


def _excerpt(body: bytes, limit: int = 200) -> str:
    text = " ".join(body.decode("utf-8", "replace").split())
    return text if len(text) <= limit else text[: limit - 1] + "…"
