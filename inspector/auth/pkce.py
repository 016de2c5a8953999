"""PKCE (RFC 7636) with S256, and the ``state`` value that ties a redirect to its request."""

from __future__ import annotations

import base64
import hashlib
import secrets
from dataclasses import dataclass, field


def b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).decode("ascii").rstrip("=")


@dataclass(frozen=True, slots=True)
class Pkce:
    """A verifier (64 URL-safe characters, within the 43..128 RFC 7636 allows) and its
    S256 challenge."""

    verifier: str = field(default_factory=lambda: secrets.token_urlsafe(48))

    @property
    def challenge(self) -> str:
        return b64url(hashlib.sha256(self.verifier.encode("ascii")).digest())

    method = "S256"


def new_state() -> str:
    return secrets.token_urlsafe(24)
