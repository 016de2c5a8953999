"""Signed JWTs (RFC 7519) for client assertions (RFC 7523): ES256 (P-256) or RS256.

``cryptography`` does the signing; this module only frames the JWS compact form. An ES256
signature is the raw ``r || s`` (32 bytes each), not the DER that ``cryptography`` returns.
"""

from __future__ import annotations

import json
import secrets
import time
from pathlib import Path
from typing import Any

from cryptography.exceptions import UnsupportedAlgorithm
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec, padding, rsa
from cryptography.hazmat.primitives.asymmetric.utils import decode_dss_signature

from inspector.auth.errors import PrivateKeyError
from inspector.auth.pkce import b64url

PrivateKey = ec.EllipticCurvePrivateKey | rsa.RSAPrivateKey
ASSERTION_TYPE = "urn:ietf:params:oauth:client-assertion-type:jwt-bearer"
ASSERTION_LIFETIME = 300  # seconds


def load_private_key(path: str | Path) -> PrivateKey:
    """A PEM private key (PKCS#8 or the traditional forms) from a file."""
    try:
        data = Path(path).read_bytes()
    except OSError as exc:
        raise PrivateKeyError(f"cannot read the private key {path}: {exc.strerror or exc}") from exc
    return parse_private_key(data, str(path))


def parse_private_key(data: bytes, source: str = "the private key") -> PrivateKey:
    try:
        key = serialization.load_pem_private_key(data, password=None)
    except (ValueError, TypeError, UnsupportedAlgorithm) as exc:
        raise PrivateKeyError(
            f"{source} is not an unencrypted PEM private key (EC P-256 or RSA): {exc}"
        ) from exc
    if isinstance(key, ec.EllipticCurvePrivateKey):
        if not isinstance(key.curve, ec.SECP256R1):
            raise PrivateKeyError(
                f"{source}: EC curve {key.curve.name} is not P-256 (ES256 needs P-256)"
            )
        return key
    if isinstance(key, rsa.RSAPrivateKey):
        return key
    raise PrivateKeyError(f"{source}: a {type(key).__name__} cannot sign ES256 or RS256")


def algorithm_for(key: PrivateKey) -> str:
    return "ES256" if isinstance(key, ec.EllipticCurvePrivateKey) else "RS256"


def sign_jwt(claims: dict[str, Any], key: PrivateKey, header: dict[str, Any] | None = None) -> str:
    """The compact JWS of ``claims`` signed with ``key`` (ES256 or RS256, by key type)."""
    alg = algorithm_for(key)
    head = {"alg": alg, "typ": "JWT", **(header or {})}
    signing_input = (
        b64url(json.dumps(head, separators=(",", ":")).encode())
        + "."
        + b64url(json.dumps(claims, separators=(",", ":")).encode())
    ).encode("ascii")
    if isinstance(key, ec.EllipticCurvePrivateKey):
        r, s = decode_dss_signature(key.sign(signing_input, ec.ECDSA(hashes.SHA256())))
        signature = r.to_bytes(32, "big") + s.to_bytes(32, "big")
    else:
        signature = key.sign(signing_input, padding.PKCS1v15(), hashes.SHA256())
    return signing_input.decode("ascii") + "." + b64url(signature)


def client_assertion(client_id: str, audience: str, key: PrivateKey) -> str:
    """A ``private_key_jwt`` client assertion: iss = sub = the client, aud = the issuer."""
    now = int(time.time())
    claims = {
        "iss": client_id,
        "sub": client_id,
        "aud": audience,
        "iat": now,
        "exp": now + ASSERTION_LIFETIME,
        "jti": secrets.token_urlsafe(16),
    }
    return sign_jwt(claims, key)
