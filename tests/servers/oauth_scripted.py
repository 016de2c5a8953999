"""Scripted authorization servers for flow tests (``httpx.MockTransport``): metadata,
registration, an authorization endpoint that approves at once, a token endpoint; every
request kept. The redirect to the loopback listener is sent for real (to 127.0.0.1), so
the flow runs as with ``--auth-follow`` against a real server. For cases no real server
produces on demand (a wrong ``iss``, a moved authorization server, DPoP nonces)."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import parse_qsl, urlencode

import httpx

SERVER = "https://mcp.example/mcp"
PRM_PATH = "/.well-known/oauth-protected-resource/mcp"
Route = Callable[[httpx.Request], httpx.Response]


def as_metadata(issuer: str, **extra: Any) -> dict[str, Any]:
    return {
        "issuer": issuer,
        "authorization_endpoint": f"{issuer}/authorize",
        "token_endpoint": f"{issuer}/token",
        "registration_endpoint": f"{issuer}/register",
        "code_challenge_methods_supported": ["S256"],
        **extra,
    }


@dataclass
class ScriptedAuth:
    """One MCP server's resource metadata and its authorization servers, by host."""

    servers: dict[str, dict[str, Any]]  # issuer -> its metadata
    resource_as: str  # the issuer the resource metadata names
    iss: Callable[[str], str | None] = lambda issuer: issuer  # the redirect's iss
    token: Callable[[httpx.Request], httpx.Response] | None = None
    requests: list[httpx.Request] = field(default_factory=list)

    def transport(self) -> httpx.MockTransport:
        return httpx.MockTransport(self.handle)

    def form(self, request: httpx.Request) -> dict[str, str]:
        return dict(parse_qsl(request.content.decode()))

    def at(self, issuer: str, path: str) -> list[httpx.Request]:
        host = httpx.URL(issuer).host
        return [r for r in self.requests if r.url.host == host and r.url.path == path]

    async def handle(self, request: httpx.Request) -> httpx.Response:
        if request.url.host == "127.0.0.1":  # the redirect: to the real loopback listener
            async with httpx.AsyncClient() as client:
                real = await client.get(str(request.url))
            return httpx.Response(real.status_code, content=real.content)
        self.requests.append(request)
        path = request.url.path
        if path == PRM_PATH:
            return httpx.Response(
                200, json={"resource": SERVER, "authorization_servers": [self.resource_as]}
            )
        issuer = next((i for i in self.servers if httpx.URL(i).host == request.url.host), None)
        if issuer is None:
            return httpx.Response(404)
        if path == "/.well-known/oauth-authorization-server":
            return httpx.Response(200, json=self.servers[issuer])
        if path == "/register":
            body = json.loads(request.content)
            return httpx.Response(201, json={"client_id": f"client-of-{request.url.host}", **body})
        if path == "/authorize":
            query = dict(request.url.params)
            back = {"code": "the-code", "state": query["state"]}
            iss = self.iss(issuer)
            if iss is not None:
                back["iss"] = iss
            return httpx.Response(
                302, headers={"Location": f"{query['redirect_uri']}?{urlencode(back)}"}
            )
        if path == "/token":
            if self.token is not None:
                return self.token(request)
            return httpx.Response(
                200, json={"access_token": f"token-of-{request.url.host}", "token_type": "Bearer"}
            )
        return httpx.Response(404)
