"""OAuth 2.1 for MCP servers (MCP authorization 2025-11-25, with the 2025-03-26 fallbacks).

Headless: never imports Textual. Every HTTP exchange of a flow (metadata discovery,
registration, authorization, token requests) becomes ``WireEvent``s on ``Channel.AUTH``,
with tokens, codes and secrets masked before the event exists (``redact``).

    errors.py        the one error of a flow: which step failed, what the server said
    redact.py        masking of tokens, codes and secrets in bodies, URLs and headers
    challenge.py     WWW-Authenticate parsing (resource_metadata, scope, error)
    wire.py          the HTTP client of a flow: one request, its events
    discovery.py     protected resource metadata (RFC 9728), server metadata (RFC 8414, OIDC)
    client.py        who we are: pre-registered, client ID metadata document, DCR (RFC 7591)
    tokens.py        token endpoint requests and client authentication
    jwt.py           signed JWT assertions (RFC 7523; ES256, RS256)
    pkce.py          PKCE S256 and state
    loopback.py      the one-shot loopback redirect listener
    store.py         tokens and registrations on disk (0600), per server and per issuer
    flow.py          the authorizer: the transports' auth hook (discovery, scopes, refresh)
    grants.py        machine to machine grants (client credentials, cross-app access)
    code_grant.py    the authorization code grant with PKCE, and choosing the client
    person.py        how a flow reaches its person (the Interaction protocol)
    terminal.py      the person at a terminal (--cli)
    settings.py      what the user configured; options.py: the flags and config object
"""
