"""Protocol eras: the one seam where protocol-version handling lives.

The handshake era (2024-11-05 .. 2025-11-25) opens a session with ``initialize``.
The stateless era (2026-07-28) will carry version and capabilities in each
request's ``_meta`` instead; it gets its own ``Era`` subclass when it is built.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from inspector import __version__

LATEST_VERSION = "2025-11-25"
HANDSHAKE_VERSIONS = ("2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05")
TOLERATED_VERSIONS = ("2024-10-07",)  # older drafts some servers still answer with

CLIENT_INFO: dict[str, Any] = {"name": "mcp-inspect", "title": "mcp-inspect",
                               "version": __version__}


class VersionError(Exception):
    """The server speaks a protocol version this client does not."""


@dataclass(frozen=True, slots=True)
class HandshakeEra:
    """initialize -> result -> notifications/initialized."""

    requested: str = LATEST_VERSION

    @property
    def supported(self) -> tuple[str, ...]:
        return HANDSHAKE_VERSIONS + TOLERATED_VERSIONS

    def initialize_params(self, capabilities: dict[str, Any],
                          client_info: dict[str, Any]) -> dict[str, Any]:
        return {"protocolVersion": self.requested, "capabilities": capabilities,
                "clientInfo": client_info}

    def accept(self, result: Any) -> str:
        """The negotiated version from an initialize result, or ``VersionError``."""
        if not isinstance(result, dict):
            raise VersionError(f"the initialize result is not an object: {result!r:.200}")
        version = result.get("protocolVersion")
        if not isinstance(version, str):
            raise VersionError("the initialize result has no protocolVersion")
        if version not in self.supported:
            raise VersionError(
                f"the server answered with protocol version {version!r}, which mcp-inspect "
                f"does not speak (it speaks {', '.join(HANDSHAKE_VERSIONS)}); "
                f"try --protocol-version with one the server supports")
        return version

    def rejection_hint(self, data: Any) -> str:
        """Explain a -32602 answer to initialize that lists the server's versions."""
        if isinstance(data, dict) and isinstance(data.get("supported"), list):
            ours = [v for v in data["supported"] if v in self.supported]
            offer = (f"; retry with --protocol-version {ours[0]}" if ours
                     else "; none of them is one mcp-inspect speaks")
            return f"the server supports {', '.join(map(str, data['supported']))}{offer}"
        return ""


def supports_feature(version: str | None, since: str) -> bool:
    """True when ``version`` is at least ``since`` (dates compare as strings)."""
    return version is not None and version >= since
