"""The authorization code grant with PKCE S256 (OAuth 2.1, MCP 2025-11-25): the client
chosen (pre-registered, metadata document, stored or new registration), the loopback
listener open only during the flow, the person (or ``--auth-follow``) at the authorization
URL, ``state`` and ``iss`` checked, the code exchanged with ``resource``."""

from __future__ import annotations

from urllib.parse import urlencode

import anyio
import httpx

from inspector.auth.client import ClientIdentity, register
from inspector.auth.errors import AuthError
from inspector.auth.grants import GrantContext
from inspector.auth.loopback import LoopbackListener
from inspector.auth.person import AuthorizationRequest
from inspector.auth.pkce import Pkce, new_state
from inspector.auth.tokens import TokenSet, token_request

MAX_HOPS = 10  # redirects followed by --auth-follow


async def authorization_code(ctx: GrantContext, scopes: list[str] | None) -> TokenSet:
    """Authorization code with PKCE S256: a person (or ``--auth-follow``) at the
    authorization URL, the redirect on the loopback listener (or pasted), then the code
    for tokens."""
    server = ctx.server
    methods = server.code_challenge_methods_supported
    if not server.is_default and (methods is None or "S256" not in methods):
        listed = ", ".join(methods) if methods else "none listed"
        raise AuthError(
            "server metadata",
            f"the authorization server {server.issuer} does not support PKCE with S256 "
            f"(code_challenge_methods_supported: {listed}); MCP requires it, so "
            "mcp-inspect will not authorize there",
        )
    endpoint = server.authorization_endpoint
    if not endpoint.lower().startswith(("https://", "http://")):
        raise AuthError(
            "server metadata",
            f"{server.issuer} gives no http(s) authorization_endpoint ({endpoint!r}); "
            "not sending anyone there",
        )
    if not (ctx.settings.follow or ctx.settings.paste or ctx.interaction.can_prompt):
        raise AuthError(
            "authorization",
            "the server needs a person to authorize in a browser and no one can here "
            "(no terminal): pass --auth-follow (an authorization server that approves "
            "without a person), --auth-paste, or --client-credentials; or run where "
            "the authorization URL can be seen",
        )
    pkce, state = Pkce(), new_state()
    stored = ctx.store.client(server.issuer)
    port = ctx.settings.callback_port or _loopback_port(stored)
    listener = await _listen(ctx, state, port)
    async with listener:
        client = await choose_client(ctx, listener.redirect_uri, stored, scopes)
        params: dict[str, str] = {
            "response_type": "code",
            "client_id": client.client_id,
            "redirect_uri": listener.redirect_uri,
            "code_challenge": pkce.challenge,
            "code_challenge_method": pkce.method,
            "state": state,
        }
        if scopes:
            params["scope"] = " ".join(scopes)
        if ctx.resource:
            params["resource"] = ctx.resource
        url = _with_query(server.authorization_endpoint, params)
        ctx.wire.note(
            f"authorization URL: {url}",
            auth="authorize",
            url=url,
            redirect_uri=listener.redirect_uri,
        )
        request = AuthorizationRequest(
            url, listener.redirect_uri, state, listener.result, ctx.settings.timeout
        )
        if ctx.settings.follow:
            answer = await _follow(ctx, url, listener)
        else:
            answer = await _ask_person(ctx, request)
    if "error" in answer:
        said = answer["error"] + (
            f" ({answer['error_description']})" if answer.get("error_description") else ""
        )
        raise AuthError("authorization", f"the authorization server answered {said}")
    iss = answer.get("iss")
    # RFC 9207 section 2.4: simple string comparison, no normalization (a trailing slash,
    # case or a default port make another issuer): this is the mix-up attack defence
    if iss is not None and iss != server.issuer:
        raise AuthError(
            "authorization",
            f"the redirect's iss {iss!r} is not the issuer {server.issuer!r} (RFC 9207 "
            "compares them exactly): possibly a mix-up attack; not exchanging the code",
        )
    if iss is None and server.authorization_response_iss_parameter_supported:
        raise AuthError("authorization", "the redirect has no iss, which the server promised")
    ctx.wire.note("authorization code received (state checked)", auth="code")
    form = {
        "grant_type": "authorization_code",
        "code": answer.get("code", ""),
        "redirect_uri": listener.redirect_uri,
        "code_verifier": pkce.verifier,
    }
    if ctx.resource:
        form["resource"] = ctx.resource
    return await token_request(
        ctx.wire,
        "token",
        server,
        client,
        form,
        resource=ctx.resource,
        requested=scopes or [],
        dpop=ctx.dpop,
    )


async def _listen(ctx: GrantContext, state: str, port: int) -> LoopbackListener:
    def refused(text: str) -> None:
        ctx.wire.note(text, "warning", auth="redirect-refused")

    listener = LoopbackListener(state, port, on_refused=refused)
    if port and port != ctx.settings.callback_port:
        try:  # the port a stored registration knows, if it is free
            async with LoopbackListener(state, port):
                pass
        except OSError:
            listener = LoopbackListener(state, 0, on_refused=refused)
    return listener


async def _ask_person(ctx: GrantContext, request: AuthorizationRequest) -> dict[str, str]:
    ctx.wire.note(
        "waiting for the authorization redirect",
        auth="waiting",
        hold=True,
        url=request.url,
        redirect_uri=request.redirect_uri,  # an observer (an attached inspector) shows it
    )
    try:
        with anyio.fail_after(request.timeout):
            return await ctx.interaction.obtain_redirect(request)
    except TimeoutError:
        raise AuthError(
            "authorization",
            f"no redirect within {request.timeout:g} s (--auth-timeout); the "
            f"authorization URL was {request.url}",
        ) from None
    finally:
        ctx.wire.note("stopped waiting for the redirect", auth="waited", hold=False)


async def _follow(ctx: GrantContext, url: str, listener: LoopbackListener) -> dict[str, str]:
    """``--auth-follow``: request the authorization URL and follow its redirects to the
    loopback listener, as a browser of an automatic approver would."""
    current = url
    for _ in range(MAX_HOPS):
        response = await ctx.wire.request("authorization", "GET", current)
        target = response.location if response.is_redirect else None
        if target is None:
            raise AuthError(
                "authorization",
                f"--auth-follow: {current} answered HTTP {response.status} instead of a "
                "redirect: this authorization server wants a person (open the URL in a "
                "browser, without --auth-follow)",
                status=response.status,
            )
        if target.split("?", 1)[0] == listener.redirect_uri:
            redirect = await ctx.wire.request("redirect", "GET", target)
            answer = listener.received
            if answer is None:
                raise AuthError(
                    "redirect",
                    f"the redirect to {listener.redirect_uri} was refused "
                    f"(HTTP {redirect.status}): its state or parameters are wrong",
                )
            return answer
        current = target
    raise AuthError("authorization", f"more than {MAX_HOPS} redirects from {url}")


async def choose_client(
    ctx: GrantContext,
    redirect_uri: str | None,
    stored: ClientIdentity | None,
    scopes: list[str] | None,
) -> ClientIdentity:
    """Pre-registered, metadata document, stored registration, or a new registration."""
    server = ctx.server
    settings = ctx.settings
    if settings.client_id:
        client = ClientIdentity(
            settings.client_id, settings.client_secret, private_key=ctx.private_key()
        )
        ctx.wire.note(f"client: {client.client_id} (pre-registered)", auth="client")
        return client
    if settings.client_metadata_url:
        if server.client_id_metadata_document_supported:
            ctx.wire.note(
                f"client: {settings.client_metadata_url} (client ID metadata document)",
                auth="client",
            )
            return ClientIdentity(
                settings.client_metadata_url, auth_method="none", source="metadata-document"
            )
        ctx.wire.note(
            f"{server.issuer} does not advertise client_id_metadata_document_supported: "
            "registering instead of using --client-metadata-url",
            "warning",
        )
    if stored is not None:
        if not (
            redirect_uri is None or not stored.redirect_uris or redirect_uri in stored.redirect_uris
        ):
            ctx.wire.note(
                f"the registered client {stored.client_id} has other redirect URIs: "
                "registering again"
            )
        elif not stored.allows(scopes):
            ctx.wire.note(
                f"the registered client {stored.client_id} is allowed scope "
                f"{' '.join(stored.scopes or [])!r}, fewer than asked: registering again"
            )
        else:
            ctx.wire.note(f"client: {stored.client_id} (registered earlier)", auth="client")
            return stored
    client = await register(ctx.wire, server, redirect_uri, _registration_scopes(ctx, scopes))
    ctx.learned(client.client_secret)
    ctx.store.save_client(server.issuer, client)
    ctx.wire.note(f"client: {client.client_id} (registered now)", auth="client")
    return client


def _registration_scopes(ctx: GrantContext, scopes: list[str] | None) -> list[str] | None:
    """Register for every scope the server names, not only this request's: an
    authorization server may refuse a client more later (a step-up), and registering
    again gives a new client_id, which servers that bind sessions to it refuse."""
    known = [
        *(scopes or []),
        *((ctx.resource_meta.scopes_supported or []) if ctx.resource_meta else []),
        *((ctx.server.scopes_supported or []) if ctx.server else []),
    ]
    return list(dict.fromkeys(known)) or None


def _loopback_port(client: ClientIdentity | None) -> int:
    """The port of a stored registration's loopback redirect URI (0 when none)."""
    for uri in client.redirect_uris if client else []:
        try:
            url = httpx.URL(uri)
        except httpx.InvalidURL:
            continue
        if url.host == "127.0.0.1" and url.port:
            return url.port
    return 0


def _with_query(endpoint: str, params: dict[str, str]) -> str:
    joiner = "&" if "?" in endpoint else "?"
    return endpoint + joiner + urlencode(params)
