"""An OAuth-protected MCP server written with the official SDK's server auth (mcp 2.x).

Usage: python oauth_sdk_server.py [TOKEN_LIFETIME_SECONDS | sse]

One process is both the authorization server and the resource server (``MCPServer`` with an
``auth_server_provider``): RFC 8414 metadata, dynamic client registration, ``/authorize``,
``/token`` (rotating refresh tokens), protected resource metadata for ``/mcp``. It binds
127.0.0.1 on a free port and prints ``PORT <n>`` once listening.

- ``/authorize`` approves at once: the person's part (opening the URL, following the
  redirect to the client's loopback listener) is the test's.
- Every request needs scope ``mcp:read``. ``admin_echo`` needs ``mcp:admin`` too: without it
  the server answers 403 ``insufficient_scope`` naming both (the SDK's scopes are per
  endpoint, so a small ASGI wrapper reads the tools/call first).
- ``echo_token`` answers with the access token it got (a server that leaks it back).
- ``forget_tokens`` makes the server forget every access token it issued: the next request
  gets 401 and a client with a refresh token refreshes.
- Access tokens live TOKEN_LIFETIME_SECONDS (default 3600).
- ``sse`` (tokens live an hour): the legacy HTTP+SSE transport at ``/sse`` (and
  ``/messages/``) instead of Streamable HTTP at ``/mcp``; the protected resource is ``/sse``.
"""

from __future__ import annotations

import asyncio
import json
import secrets
import socket
import sys
import time
from typing import Any

import uvicorn
from mcp.server.auth.provider import (
    AccessToken,
    AuthorizationCode,
    AuthorizationParams,
    RefreshToken,
    construct_redirect_uri,
)
from mcp.server.auth.settings import AuthSettings, ClientRegistrationOptions
from mcp.server.mcpserver import MCPServer
from mcp.shared.auth import OAuthClientInformationFull, OAuthToken

SCOPES = ["mcp:read", "mcp:admin"]
ADMIN_TOOL = "admin_echo"


class Provider:
    """In-memory authorization server: clients, codes, access and refresh tokens."""

    def __init__(self, lifetime: int) -> None:
        self.lifetime = lifetime
        self.clients: dict[str, OAuthClientInformationFull] = {}
        self.codes: dict[str, AuthorizationCode] = {}
        self.access: dict[str, AccessToken] = {}
        self.refresh: dict[str, RefreshToken] = {}

    async def get_client(self, client_id: str) -> OAuthClientInformationFull | None:
        return self.clients.get(client_id)

    async def register_client(self, client_info: OAuthClientInformationFull) -> None:
        assert client_info.client_id is not None
        self.clients[client_info.client_id] = client_info

    async def authorize(
        self, client: OAuthClientInformationFull, params: AuthorizationParams
    ) -> str:
        code = secrets.token_urlsafe(16)
        assert client.client_id is not None
        self.codes[code] = AuthorizationCode(
            code=code,
            scopes=params.scopes or ["mcp:read"],
            expires_at=time.time() + 300,
            client_id=client.client_id,
            code_challenge=params.code_challenge,
            redirect_uri=params.redirect_uri,
            redirect_uri_provided_explicitly=params.redirect_uri_provided_explicitly,
            resource=params.resource,
        )
        return construct_redirect_uri(str(params.redirect_uri), code=code, state=params.state)

    async def load_authorization_code(
        self, client: OAuthClientInformationFull, authorization_code: str
    ) -> AuthorizationCode | None:
        return self.codes.get(authorization_code)

    async def exchange_authorization_code(
        self, client: OAuthClientInformationFull, authorization_code: AuthorizationCode
    ) -> OAuthToken:
        self.codes.pop(authorization_code.code, None)
        return self._issue(client, authorization_code.scopes, authorization_code.resource)

    async def load_refresh_token(
        self, client: OAuthClientInformationFull, refresh_token: str
    ) -> RefreshToken | None:
        return self.refresh.get(refresh_token)

    async def exchange_refresh_token(
        self, client: OAuthClientInformationFull, refresh_token: RefreshToken, scopes: list[str]
    ) -> OAuthToken:
        self.refresh.pop(refresh_token.token, None)  # rotated
        return self._issue(client, scopes or refresh_token.scopes, refresh_token.resource)

    async def load_access_token(self, token: str) -> AccessToken | None:
        found = self.access.get(token)
        if found is not None and found.expires_at is not None and found.expires_at < time.time():
            return None
        return found

    async def revoke_token(self, token: AccessToken | RefreshToken) -> None:
        self.access.pop(token.token, None)
        self.refresh.pop(token.token, None)

    def _issue(
        self, client: OAuthClientInformationFull, scopes: list[str], resource: str | None
    ) -> OAuthToken:
        assert client.client_id is not None
        access, refresh = f"at-{secrets.token_urlsafe(16)}", f"rt-{secrets.token_urlsafe(16)}"
        expires = int(time.time()) + self.lifetime
        self.access[access] = AccessToken(
            token=access,
            client_id=client.client_id,
            scopes=scopes,
            expires_at=expires,
            resource=resource,
        )
        self.refresh[refresh] = RefreshToken(
            token=refresh, client_id=client.client_id, scopes=scopes, resource=resource
        )
        return OAuthToken(
            access_token=access,
            expires_in=self.lifetime,
            scope=" ".join(scopes),
            refresh_token=refresh,
        )


def build(port: int, lifetime: int, legacy: bool = False) -> Any:
    base = f"http://127.0.0.1:{port}"
    path = "/sse" if legacy else "/mcp"
    provider = Provider(lifetime)
    mcp = MCPServer(
        "oauth-sdk-test-server",
        auth_server_provider=provider,
        auth=AuthSettings(
            issuer_url=base,
            resource_server_url=f"{base}{path}",
            validate_token_resource=False,
            required_scopes=["mcp:read"],
            client_registration_options=ClientRegistrationOptions(
                enabled=True, valid_scopes=SCOPES, default_scopes=["mcp:read"]
            ),
        ),
    )

    @mcp.tool()
    def whoami() -> str:
        """Say hello (any token with mcp:read)."""
        return "hello, authorized client"

    @mcp.tool()
    def admin_echo(text: str) -> str:
        """Echo the text; needs scope mcp:admin."""
        return f"admin: {text}"

    @mcp.tool()
    def echo_token() -> str:
        """Say which token came (a careless server: its answers carry the credential)."""
        from mcp.server.auth.middleware.auth_context import get_access_token

        token = get_access_token()
        return f"you sent {token.token if token else 'nothing'}"

    @mcp.tool()
    def forget_tokens() -> str:
        """Forget every access token issued so far (refresh tokens stay valid)."""
        provider.access.clear()
        return "forgotten"

    app = mcp.sse_app() if legacy else mcp.streamable_http_app()
    return StepUp(app, provider, base)


class StepUp:
    """ASGI wrapper: a tools/call of ``admin_echo`` without scope mcp:admin gets 403
    insufficient_scope, as MCP's step-up authorization describes."""

    def __init__(self, app: Any, provider: Provider, base: str) -> None:
        self.app, self.provider, self.base = app, provider, base

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http" or scope["method"] != "POST" or scope["path"] != "/mcp":
            await self.app(scope, receive, send)
            return
        chunks: list[bytes] = []
        while True:
            message = await receive()
            chunks.append(message.get("body", b""))
            if not message.get("more_body"):
                break
        body = b"".join(chunks)
        if self._needs_admin(scope, body):
            header = (
                'Bearer error="insufficient_scope", scope="mcp:read mcp:admin", '
                f'resource_metadata="{self.base}/.well-known/oauth-protected-resource/mcp"'
            )
            payload = json.dumps({"error": "insufficient_scope"}).encode()
            await send(
                {
                    "type": "http.response.start",
                    "status": 403,
                    "headers": [
                        (b"content-type", b"application/json"),
                        (b"www-authenticate", header.encode()),
                    ],
                }
            )
            await send({"type": "http.response.body", "body": payload})
            return
        sent = False

        async def replay() -> dict[str, Any]:
            nonlocal sent
            if not sent:
                sent = True
                return {"type": "http.request", "body": body, "more_body": False}
            return await receive()

        await self.app(scope, replay, send)

    def _needs_admin(self, scope: dict[str, Any], body: bytes) -> bool:
        try:
            message = json.loads(body)
        except ValueError:
            return False
        if not (
            isinstance(message, dict)
            and message.get("method") == "tools/call"
            and (message.get("params") or {}).get("name") == ADMIN_TOOL
        ):
            return False
        headers = dict(scope["headers"])
        auth = headers.get(b"authorization", b"").decode()
        token = self.provider.access.get(auth.removeprefix("Bearer ").strip())
        return token is not None and "mcp:admin" not in token.scopes


def main() -> None:
    mode = sys.argv[1] if len(sys.argv) > 1 else "3600"
    legacy = mode == "sse"
    lifetime = 3600 if legacy else int(mode)
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", 0))
    sock.listen(128)
    port = sock.getsockname()[1]
    app = build(port, lifetime, legacy)
    print(f"PORT {port}", flush=True)
    config = uvicorn.Config(app, log_level="warning", lifespan="on")
    asyncio.run(uvicorn.Server(config).serve(sockets=[sock]))


if __name__ == "__main__":
    main()
