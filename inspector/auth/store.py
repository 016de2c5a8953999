"""Tokens and client registrations on disk: one JSON file in the XDG state folder, mode 0600.

    $XDG_STATE_HOME/mcp-inspect/oauth.json   (default ~/.local/state/mcp-inspect/oauth.json)
    {"version": 1,
     "servers": {"<server URL>": {<TokenSet>}},          tokens, per MCP server
     "clients": {"<issuer>": {<ClientIdentity>}}}        registrations, per authorization server

Written whole to a temporary file (created 0600) and renamed, so a crash leaves the old file
or the new one. ``TokenStore(None)`` keeps everything in memory (``--no-store``).
"""

from __future__ import annotations

import json
import os
import time
from pathlib import Path
from typing import Any

from inspector.auth.client import ClientIdentity
from inspector.auth.errors import StoreError
from inspector.auth.tokens import TokenSet
from inspector.record.state import StateFileError, read_state, write_state

FILE_NAME = "oauth.json"


def default_path() -> Path:
    base = os.environ.get("XDG_STATE_HOME") or str(Path.home() / ".local" / "state")
    return Path(base) / "mcp-inspect" / FILE_NAME


class TokenStore:
    """Tokens per server URL, registrations per issuer; on disk unless ``path`` is None."""

    def __init__(self, path: Path | None) -> None:
        self.path = path
        self._data: dict[str, Any] = {"version": 1, "servers": {}, "clients": {}}
        if path is not None:
            self._data = self._read(path)

    @staticmethod
    def _read(path: Path) -> dict[str, Any]:
        try:
            raw = read_state(path)  # never blocks (a FIFO), a regular file, size-capped
        except StateFileError as exc:
            raise StoreError(f"cannot read the token file: {exc}") from exc
        if raw is None:
            return {"version": 1, "servers": {}, "clients": {}}
        try:
            data = json.loads(raw.decode("utf-8"))
        except (UnicodeDecodeError, ValueError) as exc:
            raise StoreError(f"{path}: cannot read the token file: {exc}") from exc
        if not isinstance(data, dict):
            raise StoreError(f"{path}: not a token file (the top level is not an object)")
        for key in ("servers", "clients"):
            if not isinstance(data.get(key), dict):
                data[key] = {}
        return data

    def _write(self) -> None:
        if self.path is None:
            return
        try:
            write_state(self.path, json.dumps(self._data, indent=1).encode("utf-8"))
        except StateFileError as exc:
            raise StoreError(f"cannot write the token file: {exc}") from exc

    # -- tokens, per server -------------------------------------------------------------

    def tokens(self, server_url: str) -> TokenSet | None:
        entry = self._data["servers"].get(server_url)
        return TokenSet.from_json(entry) if isinstance(entry, dict) else None

    def save_tokens(self, server_url: str, tokens: TokenSet) -> None:
        self._data["servers"][server_url] = tokens.to_json()
        self._write()

    def drop_tokens(self, server_url: str) -> None:
        if self._data["servers"].pop(server_url, None) is not None:
            self._write()

    # -- registrations, per authorization server ----------------------------------------

    def client(self, issuer: str) -> ClientIdentity | None:
        entry = self._data["clients"].get(issuer)
        return ClientIdentity.from_json(entry) if isinstance(entry, dict) else None

    def save_client(self, issuer: str, client: ClientIdentity) -> None:
        self._data["clients"][issuer] = client.to_json()
        self._write()

    def clients(self) -> list[ClientIdentity]:
        """Every stored registration."""
        found = [ClientIdentity.from_json(e) for e in self._data["clients"].values()]
        return [c for c in found if c is not None]

    def drop_client(self, issuer: str) -> None:
        if self._data["clients"].pop(issuer, None) is not None:
            self._write()

    # -- auth list | clear --------------------------------------------------------------

    def listing(self, url: str | None = None) -> dict[str, Any]:
        """What is stored, without a secret: for ``mcp-inspect auth list``."""
        now = time.time()
        servers = []
        for server, entry in sorted(self._data["servers"].items()):
            if url is not None and server != url:
                continue
            tokens = TokenSet.from_json(entry) if isinstance(entry, dict) else None
            if tokens is None:
                continue
            servers.append(
                {
                    "server": server,
                    "issuer": tokens.issuer,
                    "resource": tokens.resource,
                    "scopes": tokens.scopes,
                    "expiresAt": tokens.expires_at,
                    "expired": tokens.expires_at is not None and tokens.expires_at <= now,
                    "refreshToken": tokens.refresh_token is not None,
                    "dpopBound": tokens.dpop_key is not None,  # the key itself never
                    "obtainedAt": tokens.obtained_at,
                }
            )
        issuers = {s["issuer"] for s in servers}
        clients = [
            {
                "issuer": issuer,
                "clientId": entry.get("client_id"),
                "clientSecret": bool(entry.get("client_secret")),
                "redirectUris": entry.get("redirect_uris") or [],
                "registeredAt": entry.get("registered_at"),
            }
            for issuer, entry in sorted(self._data["clients"].items())
            if isinstance(entry, dict) and (url is None or issuer in issuers)
        ]
        return {
            "file": str(self.path) if self.path else None,
            "servers": servers,
            "clients": clients,
        }

    def clear(self, url: str | None = None) -> dict[str, int]:
        """Drop the tokens of ``url`` (and the registrations only it used), or everything."""
        if url is None:
            counts = {"servers": len(self._data["servers"]), "clients": len(self._data["clients"])}
            self._data["servers"], self._data["clients"] = {}, {}
        else:
            entry = self._data["servers"].pop(url, None)
            counts = {"servers": int(entry is not None), "clients": 0}
            issuer = entry.get("issuer") if isinstance(entry, dict) else None
            still_used = {
                e.get("issuer") for e in self._data["servers"].values() if isinstance(e, dict)
            }
            if issuer and issuer not in still_used and issuer in self._data["clients"]:
                del self._data["clients"][issuer]
                counts["clients"] = 1
        if any(counts.values()):
            self._write()
        return counts
