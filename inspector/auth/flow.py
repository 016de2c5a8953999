"""The authorizer: the HTTP transports' auth hook (``inspector.transports.authhook``).

It sends ``Authorization: Bearer`` on every request (a stored token from the first one,
refreshed before expiry), and answers a 401 or a 403 ``insufficient_scope``:

1. read ``WWW-Authenticate`` (``resource_metadata``, ``scope``, ``error``);
2. discover the protected resource metadata and check its ``resource`` is this server, then
   the authorization server's metadata (no resource metadata: a 2025-03-26 server);
3. get tokens by the configured grant: authorization code with PKCE S256 (a person, or
   ``follow``), client credentials, or cross-app access (token exchange at the identity
   provider, then the JWT bearer grant);
4. keep them (``TokenStore``) and tell the transport to send the request again.

A refresh token is used first on a 401. A 403 ``insufficient_scope`` asks again for the
union of the scopes held and those challenged; at most ``max_authorizations`` per request.
Every exchange is on the wire (``AuthWire``); failures name their step.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping

import anyio
import httpx

from inspector.auth.challenge import Challenge, bearer_challenge
from inspector.auth.client import ClientIdentity
from inspector.auth.code_grant import authorization_code
from inspector.auth.discovery import (
    ResourceMetadata,
    ServerMetadata,
    canonical_resource,
    check_resource,
    discover_resource,
    discover_server,
    origin,
)
from inspector.auth.dpop import DpopKey, nonce_asked, proof_note
from inspector.auth.dpop import supported as dpop_supported
from inspector.auth.errors import AuthError, PrivateKeyError, StoreError
from inspector.auth.grants import GrantContext, client_credentials, cross_app, workload_identity
from inspector.auth.jwt import PrivateKey, load_private_key
from inspector.auth.person import Interaction, NoPerson
from inspector.auth.redact import mask_headers, mask_url
from inspector.auth.settings import AuthSettings
from inspector.auth.store import TokenStore
from inspector.auth.tokens import TokenSet, token_request
from inspector.auth.wire import AuthWire
from inspector.transports.authhook import Denial
from inspector.wire.events import WireEvent


class Authorizer:
    """OAuth for one MCP server URL; see the module doc."""

    def __init__(
        self,
        server_url: str,
        settings: AuthSettings,
        store: TokenStore,
        interaction: Interaction | None = None,
        *,
        verify: bool | str = True,
        http_transport: httpx.AsyncBaseTransport | None = None,
    ) -> None:
        self.server_url = server_url
        self.http_transport = http_transport  # tests: httpx.MockTransport
        self.settings = settings
        self.store = store
        self.interaction: Interaction = interaction or NoPerson()
        self.verify = verify
        self.tokens: TokenSet | None = store.tokens(server_url)
        self.resource_meta: ResourceMetadata | None = None
        self.server_meta: ServerMetadata | None = None
        self.resource: str | None = self.tokens.resource if self.tokens else None
        self.requested: list[str] | None = list(self.tokens.scopes) if self.tokens else None
        self.authorizations = 0  # in this session, for the UI
        self._header_url: str | None = None
        self._discovered = False
        self._legacy = False
        self._lock = anyio.Lock()
        self._key: PrivateKey | None = None
        self._emit: Callable[[WireEvent], None] = lambda event: None
        self._wire: AuthWire | None = None
        self._announced = False
        self._sinks: list[Callable[[str], None]] = []
        self._rs_nonce: str | None = None  # the MCP server's DPoP nonce, once it asked
        self._bound: tuple[TokenSet, DpopKey | None] | None = None  # tokens -> their key
        # a flow that needs a person asks this first: a reason not to start it now (a
        # workspace's server not chosen yet: it "needs authorization"), or None: go
        self.hold: Callable[[], str | None] | None = None

    def add_secret_sink(self, sink: Callable[[str], None]) -> None:
        """Tell ``sink`` (a recorder's ``add_secret``) every token and secret this
        authorizer holds or learns: the stored ones now, new ones as they come. Its own
        events are masked already; this covers a server that echoes a token elsewhere."""
        self._sinks.append(sink)
        if self.tokens is not None:
            self.learned(self.tokens.access_token, self.tokens.refresh_token)
            self.learned(self.tokens.dpop.secret if self.tokens.dpop else None)
        for client in self.store.clients():
            self.learned(client.client_secret)

    def learned(self, *values: str | None) -> None:
        for value in values:
            if value:
                for sink in self._sinks:
                    sink(value)

    # -- the hook ---------------------------------------------------------------------

    def attach(self, emit: Callable[[WireEvent], None]) -> None:
        self._emit = emit
        if self._wire is not None:
            self._wire.emit = emit

    @property
    def wire(self) -> AuthWire:
        if self._wire is None:
            self._wire = AuthWire(
                self._emit,
                verify=self.verify,
                timeout=self.settings.exchange_timeout,
                pause=self._pause,
                transport=self.http_transport,
                insecure=self.settings.insecure,
            )
        return self._wire

    async def aclose(self) -> None:
        if self._wire is not None:
            await self._wire.aclose()

    async def _pause(self, step: str, method: str, url: str) -> None:
        """Step-by-step mode: the person sees the next request before it goes."""
        if not self.interaction.step_mode:
            return
        shown = mask_url(url)
        self.wire.note(
            f"step by step: next is {method} {shown} ({step})",
            auth="paused",
            hold=True,
            step=step,
            method=method,
            url=shown,
        )
        try:
            await self.interaction.pause(step, method, url)
        finally:
            self.wire.note("continuing", auth="continue", hold=False)

    def shown(self, headers: Mapping[str, str]) -> dict[str, str]:
        return mask_headers(headers)

    async def headers(
        self, *, refresh: bool = True, method: str = "POST", url: str | None = None
    ) -> dict[str, str]:
        if not self._lock.locked():
            quick = self._ready_headers(refresh, method, url)
            if quick is not None:
                return quick  # every request asks: nothing to wait for or to do
        async with self._lock:
            if self.tokens is not None and not self._announced:
                self._announced = True
                self.wire.note(
                    f"using the stored token for {self.server_url} ({_describe(self.tokens)})",
                    auth="stored",
                )
            if (
                refresh
                and self.tokens is not None
                and self.tokens.refresh_token
                and self.tokens.due_for_refresh()
            ):
                await self._try_refresh("the access token expires soon")
            if self.tokens is None:
                return {}
            return self._presented(self.tokens, method, url)

    def _ready_headers(self, refresh: bool, method: str, url: str | None) -> dict[str, str] | None:
        """The headers when they need no step (no note, no refresh), else None."""
        tokens = self.tokens
        if tokens is None:
            return {}
        if not self._announced or (refresh and tokens.refresh_token and tokens.due_for_refresh()):
            return None
        return self._presented(tokens, method, url)

    def _presented(self, tokens: TokenSet, method: str, url: str | None) -> dict[str, str]:
        """The token as a request presents it: Bearer, or DPoP with a fresh proof (its
        ``jti`` shown on the auth channel) for this request's method and URL."""
        if self._bound is None or self._bound[0] is not tokens:
            self._bound = (tokens, tokens.dpop)  # loaded once, not for every request
        key = self._bound[1]
        if key is None:
            return {"Authorization": f"{tokens.token_type} {tokens.access_token}"}
        proof = key.proof(
            method, url or self.server_url, access_token=tokens.access_token, nonce=self._rs_nonce
        )
        text, meta = proof_note(proof, key, "MCP request")
        self.wire.note(text, **meta)
        return {"Authorization": f"DPoP {tokens.access_token}", "DPoP": proof.jwt}

    async def on_denied(
        self, status: int, headers: Mapping[str, str], sent: Mapping[str, str], attempt: int
    ) -> Denial:
        challenge = bearer_challenge(headers) or _bare_challenge()
        nonce = nonce_asked(headers, challenge.error) if status == 401 else None
        if nonce is not None and self.tokens is not None and self.tokens.dpop is not None:
            if attempt >= self.settings.max_authorizations or nonce == self._rs_nonce:
                return Denial(False, f"the server keeps asking for the DPoP nonce {nonce!r}")
            self._rs_nonce = nonce  # RFC 9449 section 9: the same request, with its nonce
            self.wire.note("the MCP server asks for a DPoP nonce; sending the request again")
            return Denial(True)
        step_up = status == 403
        if step_up and challenge.error != "insufficient_scope":
            return Denial(False)  # a refusal that more authorization will not change
        async with self._lock:
            if self._sent_is_stale(sent):
                return Denial(True)  # another request got a new token meanwhile
            if attempt >= self.settings.max_authorizations:
                what = f"{status} {challenge.error or ''}".strip()
                text = (
                    f"OAuth gave up after {attempt} authorizations for this request: the "
                    f"server still answers {what}"
                )
                if challenge.scopes:
                    text += f" (asking for scope {' '.join(challenge.scopes)!r})"
                self.wire.note(text, "error", auth="gave-up")
                return Denial(False, text)
            try:
                if status == 401 and self.tokens is not None:
                    await self._rediscover(challenge)
                if (
                    status == 401
                    and attempt == 0
                    and self.tokens is not None
                    and self.tokens.refresh_token
                    and await self._try_refresh("the server answered 401")
                ):
                    return Denial(True)
                held = self._held()
                if held is not None:
                    self.wire.note(held, "warning", auth="held")
                    return Denial(False, held)
                await self._authorize(challenge, step_up)
            except AuthError as exc:
                text = f"OAuth failed at the {exc.step} step: {exc.message}"
                self.wire.note(text, "error", auth="failed", step=exc.step)
                return Denial(False, text)
            except StoreError as exc:
                self.wire.note(str(exc), "error", auth="failed")
                return Denial(False, str(exc))
            return Denial(True)

    def _held(self) -> str | None:
        """Why a flow that needs a person does not start now (``hold``); None: it may.
        Grants without a person (client credentials, --auth-follow...) are never held."""
        if self.hold is None or self.settings.grant != "authorization-code":
            return None
        if self.settings.follow:
            return None
        return self.hold()

    def _sent_is_stale(self, sent: Mapping[str, str]) -> bool:
        if self.tokens is None:
            return False
        used = next((v for k, v in sent.items() if k.lower() == "authorization"), None)
        return used != f"{self.tokens.token_type} {self.tokens.access_token}"

    # -- one authorization ------------------------------------------------------------

    async def _authorize(self, challenge: Challenge, step_up: bool) -> None:
        await self._discover(challenge)
        assert self.server_meta is not None
        scopes = self._scopes(challenge, step_up)
        grant = self.settings.grant
        self.wire.note(
            f"authorizing ({grant}) at {self.server_meta.issuer}"
            + (f" for scope {' '.join(scopes)!r}" if scopes else " (no scope)")
            + (" — step-up: the server wants more scope" if step_up else ""),
            auth="start",
            grant=grant,
            scopes=scopes or [],
        )
        assert self.server_meta is not None
        ctx = GrantContext(
            self.wire,
            self.server_meta,
            self.resource,
            self.settings,
            self.store,
            self.interaction,
            self.resource_meta,
            self._private_key,
            self.learned,
            self._dpop_key(self.server_meta),
        )
        if grant == "cross-app":
            tokens = await cross_app(ctx, scopes)
        elif grant == "client-credentials":
            tokens = await client_credentials(ctx, scopes)
        elif grant == "workload-identity":
            tokens = await workload_identity(ctx, scopes)
        else:
            tokens = await authorization_code(ctx, scopes)
        self.authorizations += 1
        self.requested = scopes
        self._keep(tokens)

    def _dpop_key(self, server: ServerMetadata) -> DpopKey | None:
        """The key to bind tokens to, when the authorization server binds them: the one
        the current tokens are bound to, else a new one (kept with the tokens it binds)."""
        if not dpop_supported(server.raw):
            return None
        key = self.tokens.dpop if self.tokens is not None else None
        return key or DpopKey.generate()

    def _keep(self, tokens: TokenSet) -> None:
        self.learned(tokens.access_token, tokens.refresh_token)
        self.learned(tokens.dpop.secret if tokens.dpop else None)
        self.tokens = tokens
        self._announced = True
        self.wire.note(
            f"token for {self.server_url}: {_describe(tokens)}",
            auth="token",
            scopes=tokens.scopes,
            expires_at=tokens.expires_at,
            refresh=tokens.refresh_token is not None,
        )
        self.store.save_tokens(self.server_url, tokens)

    async def _discover(self, challenge: Challenge) -> None:
        header_url = challenge.resource_metadata
        if self._discovered and header_url in (None, self._header_url):
            return
        self._header_url = header_url
        prm = await discover_resource(self.wire, self.server_url, header_url)
        self.resource_meta = prm
        if prm is None:
            self._legacy = True
            self.resource = canonical_resource(self.server_url)
            issuer = origin(self.server_url)
        else:
            self._legacy = False
            self.resource = check_resource(prm, self.server_url)
            if not prm.authorization_servers:
                raise AuthError(
                    "resource metadata",
                    f"the protected resource metadata at {prm.url} names no authorization server",
                )
            issuer = prm.authorization_servers[0]
        if self.server_meta is None or self.server_meta.issuer.rstrip("/") != issuer.rstrip("/"):
            self.server_meta = await discover_server(self.wire, issuer, legacy=self._legacy)
        self._discovered = True
        self.wire.note(
            f"authorization server {self.server_meta.issuer}; resource {self.resource}",
            auth="discovered",
            issuer=self.server_meta.issuer,
            resource=self.resource,
        )

    async def _rediscover(self, challenge: Challenge) -> None:
        """A token was refused: read the resource metadata again, since the resource may
        have moved to another authorization server (SEP-2352). Tokens of the old one are
        dropped (never refreshed there, never offered to the new one), and its client
        registration is not reused: registrations are per issuer."""
        self._discovered = False
        await self._discover(challenge)
        assert self.server_meta is not None
        tokens = self.tokens
        if tokens is not None and tokens.issuer and tokens.issuer != self.server_meta.issuer:
            self.wire.note(
                f"the resource's authorization server changed from {tokens.issuer} to "
                f"{self.server_meta.issuer}: its tokens are dropped, authorizing there",
                "warning",
                auth="migrated",
                previous=tokens.issuer,
                issuer=self.server_meta.issuer,
            )
            self.tokens = None
            self.store.drop_tokens(self.server_url)

    def _scopes(self, challenge: Challenge, step_up: bool) -> list[str] | None:
        """The challenge's scope, else the resource's scopes_supported, else none; the
        union with what was held on a step-up; offline_access when the server lists it."""
        if self.settings.scopes is not None:
            chosen: list[str] | None = list(self.settings.scopes)
        elif challenge.scopes is not None:
            chosen = list(challenge.scopes)
        elif self.resource_meta is not None and self.resource_meta.scopes_supported is not None:
            chosen = list(self.resource_meta.scopes_supported)
        else:
            chosen = None
        if step_up and self.requested:
            chosen = list(dict.fromkeys([*self.requested, *(chosen or [])]))
        supported = self.server_meta.scopes_supported if self.server_meta else None
        if (
            chosen is not None
            and self.settings.grant == "authorization-code"
            and supported is not None
            and "offline_access" in supported
            and "offline_access" not in chosen
        ):
            chosen.append("offline_access")
        return chosen or None

    # -- authorization code + PKCE ----------------------------------------------------

    def _private_key(self) -> PrivateKey | None:
        path = self.settings.private_key
        if path is None:
            return None
        if self._key is None:
            try:
                self._key = load_private_key(path)
            except PrivateKeyError as exc:
                raise AuthError("client authentication", str(exc)) from exc
        return self._key

    # -- machine to machine -----------------------------------------------------------

    # -- refresh ----------------------------------------------------------------------

    async def _try_refresh(self, why: str) -> bool:
        """Refresh the access token; on failure forget it (a new authorization follows)."""
        tokens = self.tokens
        assert tokens is not None and tokens.refresh_token
        try:
            if self.server_meta is None:
                issuer = tokens.issuer or origin(self.server_url)
                self.server_meta = await discover_server(
                    self.wire, issuer, legacy=tokens.issuer is None
                )
            server = self.server_meta
            client = self._refresh_client(server)
            form = {"grant_type": "refresh_token", "refresh_token": tokens.refresh_token}
            if tokens.resource:
                form["resource"] = tokens.resource
            self.wire.note(f"refreshing the token: {why}", auth="refresh")
            # once sent, its answer must be read: the server may have rotated the refresh
            # token, and a cancelled read would leave us holding a dead one
            with anyio.CancelScope(shield=True):
                fresh = await token_request(
                    self.wire,
                    "refresh",
                    server,
                    client,
                    form,
                    resource=tokens.resource,
                    requested=tokens.scopes,
                    dpop=tokens.dpop,
                )
        except AuthError as exc:
            self.wire.note(
                f"refresh failed ({exc.message}): the token is dropped", "warning", auth="refresh"
            )
            self.tokens = None
            self.store.drop_tokens(self.server_url)
            return False
        if fresh.refresh_token is None:
            fresh.refresh_token = tokens.refresh_token  # RFC 6749 6: the old one stays valid
        self._keep(fresh)
        return True

    def _refresh_client(self, server: ServerMetadata) -> ClientIdentity | None:
        settings = self.settings
        if settings.client_id:
            return ClientIdentity(
                settings.client_id, settings.client_secret, private_key=self._private_key()
            )
        if settings.client_metadata_url and server.client_id_metadata_document_supported:
            return ClientIdentity(settings.client_metadata_url, auth_method="none")
        return self.store.client(server.issuer)


def _bare_challenge() -> Challenge:
    return Challenge("Bearer")


def _describe(tokens: TokenSet) -> str:
    parts = [f"scope {' '.join(tokens.scopes)!r}" if tokens.scopes else "no scope"]
    if tokens.expires_at is not None:
        left = tokens.expires_at - time.time()
        parts.append(f"expires in {left:.0f} s" if left > 0 else "expired")
    parts.append("refreshable" if tokens.refresh_token else "no refresh token")
    return ", ".join(parts)
