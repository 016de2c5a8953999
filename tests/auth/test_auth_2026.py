"""OAuth as the 2026-07-28 revision wants it, against scripted authorization servers
(``servers/oauth_scripted.py``): the registration's ``application_type`` (SEP-837), ``iss``
compared exactly (RFC 9207), a resource that moved to another authorization server
(SEP-2352). The conformance suite checks the same through the CLI
(``tests/cli/test_conformance_suites.py``)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import anyio
from servers.oauth_scripted import SERVER, ScriptedAuth, as_metadata

from inspector.auth.client import registration_metadata
from inspector.auth.discovery import ServerMetadata
from inspector.auth.flow import Authorizer
from inspector.auth.settings import AuthSettings
from inspector.auth.store import TokenStore
from inspector.auth.tokens import TokenSet
from inspector.transports.authhook import Denial
from inspector.wire.events import WireEvent

AS1 = "https://as1.example"
AS2 = "https://as2.example"
CHALLENGE = {"WWW-Authenticate": 'Bearer scope="mcp"'}


async def run(
    script: ScriptedAuth, store: TokenStore | None = None, **settings: Any
) -> tuple[Authorizer, Denial, list[WireEvent]]:
    events: list[WireEvent] = []
    auth = Authorizer(
        SERVER,
        AuthSettings(store=False, follow=True, **settings),
        store or TokenStore(None),
        http_transport=script.transport(),
    )
    auth.attach(events.append)
    try:
        with anyio.fail_after(20):
            sent = await auth.headers()
            denial = await auth.on_denied(401, CHALLENGE, sent, 0)
    finally:
        await auth.aclose()
    return auth, denial, events


def test_a_loopback_client_registers_as_native() -> None:
    server = ServerMetadata("https://as", "https://as/a", "https://as/t")
    assert registration_metadata("http://127.0.0.1:5000/callback", server)["application_type"] == (
        "native"
    )
    assert registration_metadata("https://app.example/cb", server)["application_type"] == "web"


async def test_the_registration_on_the_wire_names_its_application_type() -> None:
    script = ScriptedAuth({AS1: as_metadata(AS1)}, AS1)
    _, denial, _ = await run(script)
    assert denial.retry, denial.reason
    (registration,) = script.at(AS1, "/register")
    assert json.loads(registration.content)["application_type"] == "native"


async def test_an_iss_with_a_trailing_slash_is_another_issuer() -> None:
    script = ScriptedAuth(
        {AS1: as_metadata(AS1, authorization_response_iss_parameter_supported=True)},
        AS1,
        iss=lambda issuer: issuer + "/",
    )
    auth, denial, _ = await run(script)
    assert not denial.retry and "mix-up" in (denial.reason or "")
    assert "'https://as1.example/'" in (denial.reason or "")
    assert not script.at(AS1, "/token") and auth.tokens is None  # the code never sent


async def test_the_same_iss_is_accepted() -> None:
    script = ScriptedAuth({AS1: as_metadata(AS1)}, AS1)
    auth, denial, _ = await run(script)
    assert denial.retry and auth.tokens is not None


async def test_a_moved_authorization_server_is_followed_and_registered_with() -> None:
    """The resource metadata now names AS2: the token of AS1 is refused, the client reads
    the metadata again, registers at AS2 and never shows AS1's client there."""
    store = TokenStore(None)
    store.save_tokens(SERVER, TokenSet("token-of-as1", issuer=AS1, resource=SERVER))
    script = ScriptedAuth({AS1: as_metadata(AS1), AS2: as_metadata(AS2)}, AS2)
    auth, denial, events = await run(script, store)
    assert denial.retry, denial.reason
    assert len(script.at(AS2, "/register")) == 1 and not script.at(AS1, "/register")
    (token,) = script.at(AS2, "/token")
    assert script.form(token)["client_id"] == "client-of-as2.example"
    assert auth.tokens is not None and auth.tokens.access_token == "token-of-as2.example"
    assert [e.meta["previous"] for e in events if e.meta.get("auth") == "migrated"] == [AS1]


JWT_BEARER = "urn:ietf:params:oauth:grant-type:jwt-bearer"


def wif_script(refuse: bool) -> ScriptedAuth:
    def token(request: Any) -> Any:
        import httpx

        if refuse:
            return httpx.Response(
                400, json={"error": "invalid_grant", "error_description": "audience is wrong"}
            )
        return httpx.Response(200, json={"access_token": "wif-token", "token_type": "Bearer"})

    issuer = as_metadata(AS1, grant_types_supported=[JWT_BEARER])
    del issuer["registration_endpoint"]
    return ScriptedAuth({AS1: issuer}, AS1, token=token)


async def test_workload_identity_sends_the_platform_token_as_the_assertion(
    tmp_path: Path,
) -> None:
    token_file = tmp_path / "workload.jwt"
    token_file.write_text("eyJ.workload.jwt\n")
    script = wif_script(refuse=False)
    auth, denial, events = await run(script, client_id="workload-1", workload_token_file=token_file)
    assert denial.retry and auth.tokens is not None
    (request,) = script.requests[-1:]
    form = script.form(request)
    assert form["grant_type"] == JWT_BEARER and form["assertion"] == "eyJ.workload.jwt"
    assert form["client_id"] == "workload-1" and form["resource"] == SERVER
    assert not script.at(AS1, "/authorize") and not script.at(AS1, "/register")
    shown = [e.raw.decode() for e in events]
    assert not any("eyJ.workload.jwt" in text for text in shown)  # masked on the wire


async def test_a_refused_workload_token_is_said_once_and_not_retried(tmp_path: Path) -> None:
    token_file = tmp_path / "workload.jwt"
    token_file.write_text("eyJ.expired")
    script = wif_script(refuse=True)
    _, denial, _ = await run(script, client_id="workload-1", workload_token_file=token_file)
    assert not denial.retry
    assert "jwt bearer step" in (denial.reason or "") and "invalid_grant" in (denial.reason or "")
    assert len(script.at(AS1, "/token")) == 1
