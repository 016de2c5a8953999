"""DPoP (RFC 9449): sender-constrained tokens. A P-256 key per client authorization,
kept with the tokens it binds (the 0600 token store); a fresh proof (a signed JWT with its
own ``jti`` and ``iat``) on every token request and every request that presents the token.

A proof names the request (``htm``, ``htu`` without query or fragment), the token's hash
(``ath``) at a resource, and the server's nonce when one was asked for
(``use_dpop_nonce`` with a ``DPoP-Nonce`` header). Its header carries the public key only.
Each proof is shown on the auth channel (``proof_note``): its ``jti`` and claims, never
the private key.
"""

from __future__ import annotations

import base64
import hashlib
import json
import secrets
import time
from dataclasses import dataclass
from typing import Any

from cryptography.hazmat.primitives.asymmetric import ec

from inspector.auth.jwt import sign_jwt
from inspector.auth.pkce import b64url

ALGORITHM = "ES256"
NONCE_ERROR = "use_dpop_nonce"
NONCE_HEADER = "DPoP-Nonce"


@dataclass(frozen=True, slots=True)
class Proof:
    """A proof and what it claims (for the note on the wire)."""

    jwt: str
    claims: dict[str, Any]


class DpopKey:
    """One client's DPoP key: an EC P-256 private key."""

    def __init__(self, key: ec.EllipticCurvePrivateKey) -> None:
        self.key = key

    @classmethod
    def generate(cls) -> DpopKey:
        return cls(ec.generate_private_key(ec.SECP256R1()))

    def public_jwk(self) -> dict[str, str]:
        numbers = self.key.public_key().public_numbers()
        return {
            "kty": "EC",
            "crv": "P-256",
            "x": b64url(numbers.x.to_bytes(32, "big")),
            "y": b64url(numbers.y.to_bytes(32, "big")),
        }

    def thumbprint(self) -> str:
        """RFC 7638: SHA-256 of the required members, sorted, no whitespace."""
        jwk = self.public_jwk()
        canonical = json.dumps({k: jwk[k] for k in ("crv", "kty", "x", "y")}, separators=(",", ":"))
        return b64url(hashlib.sha256(canonical.encode()).digest())

    def to_json(self) -> dict[str, str]:
        """The private JWK, for the token store (0600) only."""
        d = self.key.private_numbers().private_value.to_bytes(32, "big")
        return {**self.public_jwk(), "d": b64url(d)}

    @classmethod
    def from_json(cls, data: Any) -> DpopKey | None:
        """A stored private JWK; None when it is not one."""
        if not isinstance(data, dict) or data.get("kty") != "EC" or data.get("crv") != "P-256":
            return None
        try:
            d = int.from_bytes(_unb64(str(data["d"])), "big")
            return cls(ec.derive_private_key(d, ec.SECP256R1()))
        except (KeyError, ValueError):
            return None

    @property
    def secret(self) -> str:
        """The private part as text (what a recorder must never show)."""
        return self.to_json()["d"]

    def proof(
        self, method: str, url: str, *, access_token: str | None = None, nonce: str | None = None
    ) -> Proof:
        """A fresh proof for one request."""
        claims: dict[str, Any] = {
            "jti": secrets.token_urlsafe(16),
            "htm": method.upper(),
            "htu": target_uri(url),
            "iat": int(time.time()),
        }
        if access_token is not None:
            claims["ath"] = b64url(hashlib.sha256(access_token.encode("ascii")).digest())
        if nonce is not None:
            claims["nonce"] = nonce
        header = {"typ": "dpop+jwt", "jwk": self.public_jwk()}
        return Proof(sign_jwt(claims, self.key, header), claims)


def target_uri(url: str) -> str:
    """``htu``: the request URI without query and fragment (RFC 9449 section 4.2)."""
    return url.split("#", 1)[0].split("?", 1)[0]


def supported(metadata: dict[str, Any]) -> bool:
    """The authorization server issues DPoP-bound tokens signed the way we sign."""
    algorithms = metadata.get("dpop_signing_alg_values_supported")
    return isinstance(algorithms, list) and ALGORITHM in algorithms


def proof_note(proof: Proof, key: DpopKey, where: str) -> tuple[str, dict[str, Any]]:
    """The text and meta of the auth-channel note that shows a proof."""
    claims = proof.claims
    text = f"DPoP proof for {claims['htm']} {claims['htu']} ({where}): jti {claims['jti']}"
    if "nonce" in claims:
        text += f", nonce {claims['nonce']!r}"
    return text, {"auth": "dpop-proof", "jkt": key.thumbprint(), "claims": dict(claims)}


def nonce_asked(headers: Any, error: str | None) -> str | None:
    """The nonce a server asks for (``use_dpop_nonce`` with its ``DPoP-Nonce``)."""
    if error != NONCE_ERROR:
        return None
    value = next((v for k, v in headers.items() if k.lower() == NONCE_HEADER.lower()), None)
    return value or None


def _unb64(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))
