"""The OAuth building blocks on their own: challenges, masking, discovery order, resource
checks, JWT signatures, the token store, the loopback listener, options, and the flow's
refusals against scripted authorization servers (httpx.MockTransport)."""

from __future__ import annotations

import argparse
import base64
import json
import os
import stat
import subprocess
import sys
from pathlib import Path
from typing import Any

import anyio
import httpx
import pytest
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec, padding, rsa
from cryptography.hazmat.primitives.asymmetric.utils import encode_dss_signature

from inspector.auth.challenge import bearer_challenge, parse_www_authenticate
from inspector.auth.client import ClientIdentity
from inspector.auth.discovery import (
    ServerMetadata,
    resource_metadata_urls,
    same_resource,
    server_metadata_urls,
)
from inspector.auth.errors import AuthError, OptionError
from inspector.auth.flow import Authorizer
from inspector.auth.jwt import client_assertion, parse_private_key, sign_jwt
from inspector.auth.loopback import LoopbackListener
from inspector.auth.person import NoSteps, parse_redirect
from inspector.auth.redact import MASK, mask_body, mask_headers, mask_url
from inspector.auth.settings import AuthSettings
from inspector.auth.store import TokenStore
from inspector.auth.tokens import TokenSet, auth_method
from inspector.commands.oauth_options import add_oauth_options, auth_settings
from inspector.wire.events import Channel, Direction, WireEvent

# -- WWW-Authenticate -----------------------------------------------------------------------


def test_bearer_challenge_fields_and_other_schemes() -> None:
    value = (
        'Basic realm="a, b", Bearer error="insufficient_scope", scope="mcp:read mcp:admin", '
        'resource_metadata="https://h/.well-known/oauth-protected-resource/mcp", '
        'error_description="need \\"admin\\""'
    )
    schemes = [c.scheme for c in parse_www_authenticate(value)]
    assert schemes == ["Basic", "Bearer"]
    bearer = bearer_challenge({"WWW-Authenticate": value})
    assert bearer is not None
    assert bearer.error == "insufficient_scope"
    assert bearer.scopes == ["mcp:read", "mcp:admin"]
    assert bearer.resource_metadata == "https://h/.well-known/oauth-protected-resource/mcp"
    assert bearer.error_description == 'need "admin"'
    assert bearer_challenge({"www-authenticate": "Bearer"}) is not None
    assert bearer_challenge({"www-authenticate": 'Basic realm="x"'}) is None
    assert bearer_challenge({}) is None


# -- masking ---------------------------------------------------------------------------------


def test_bodies_urls_and_headers_are_masked_field_by_field() -> None:
    body = (
        b'{"access_token": "AT-1", "token_type":"Bearer","refresh_token":"RT\\"x","expires_in":5}'
    )
    masked = mask_body(body, "application/json")
    assert json.loads(masked) == {
        "access_token": MASK,
        "token_type": "Bearer",
        "refresh_token": MASK,
        "expires_in": 5,
    }
    form = b"grant_type=authorization_code&code=C0DE&code_verifier=V&client_id=me&client_secret=S"
    shown = mask_body(form, "application/x-www-form-urlencoded").decode()
    assert "C0DE" not in shown and "client_secret=S" not in shown and "client_id=me" in shown
    assert "grant_type=authorization_code" in shown
    url = mask_url("http://127.0.0.1:5/callback?code=SECRET&state=abc")
    assert "SECRET" not in url and "state=abc" in url
    headers = mask_headers(
        {"Authorization": "Bearer T0KEN", "Location": "http://x/?code=Z", "A": "b"}
    )
    assert headers == {
        "Authorization": f"Bearer {MASK}",
        "Location": mask_url("http://x/?code=Z"),
        "A": "b",
    }


# -- discovery ------------------------------------------------------------------------------


def test_discovery_orders() -> None:
    assert resource_metadata_urls("https://h/api/mcp", "https://h/custom.json") == [
        "https://h/custom.json",
        "https://h/.well-known/oauth-protected-resource/api/mcp",
        "https://h/.well-known/oauth-protected-resource",
    ]
    assert resource_metadata_urls("https://h", None) == [
        "https://h/.well-known/oauth-protected-resource"
    ]
    assert server_metadata_urls("https://as/tenant1") == [
        "https://as/.well-known/oauth-authorization-server/tenant1",
        "https://as/.well-known/openid-configuration/tenant1",
        "https://as/tenant1/.well-known/openid-configuration",
    ]
    assert server_metadata_urls("https://as:8443") == [
        "https://as:8443/.well-known/oauth-authorization-server",
        "https://as:8443/.well-known/openid-configuration",
    ]


@pytest.mark.parametrize(
    ("resource", "server", "same"),
    [
        ("https://h/mcp", "https://h/mcp", True),
        ("https://h", "https://h/mcp", True),  # a parent (root) resource
        ("https://H/mcp/", "https://h/mcp", True),
        ("https://h/mc", "https://h/mcp", False),  # not a path segment
        ("https://evil.example.com/mcp", "https://h/mcp", False),
        ("http://h/mcp", "https://h/mcp", False),
        ("https://h:444/mcp", "https://h/mcp", False),
    ],
)
def test_resource_must_name_this_server(resource: str, server: str, same: bool) -> None:
    assert same_resource(resource, server) is same


# -- client authentication ------------------------------------------------------------------


def meta(**kw: Any) -> ServerMetadata:
    return ServerMetadata(issuer="https://as", authorization_endpoint="a", token_endpoint="t", **kw)


def test_token_endpoint_auth_method_choice() -> None:
    secret = ClientIdentity("c", "s")
    assert auth_method(secret, meta()) == "client_secret_basic"  # RFC 8414 default
    assert auth_method(
        secret, meta(token_endpoint_auth_methods_supported=["client_secret_post"])
    ) == ("client_secret_post")
    assert auth_method(ClientIdentity("c", "s", auth_method="client_secret_post"), meta()) == (
        "client_secret_post"
    )
    assert auth_method(ClientIdentity("c"), meta()) == "none"


# -- JWT ------------------------------------------------------------------------------------


def _verify(token: str, public: Any) -> dict[str, Any]:
    head, claims, sig = token.split(".")
    signing_input = f"{head}.{claims}".encode()
    raw = base64.urlsafe_b64decode(sig + "=" * (-len(sig) % 4))
    if isinstance(public, ec.EllipticCurvePublicKey):
        der = encode_dss_signature(int.from_bytes(raw[:32], "big"), int.from_bytes(raw[32:], "big"))
        public.verify(der, signing_input, ec.ECDSA(hashes.SHA256()))
    else:
        public.verify(raw, signing_input, padding.PKCS1v15(), hashes.SHA256())
    header = json.loads(base64.urlsafe_b64decode(head + "=" * (-len(head) % 4)))
    body: dict[str, Any] = json.loads(base64.urlsafe_b64decode(claims + "=" * (-len(claims) % 4)))
    body["_alg"] = header["alg"]
    return body


@pytest.mark.parametrize("kind", ["ec", "rsa"])
def test_client_assertion_is_signed_and_names_client_and_issuer(kind: str) -> None:
    key: Any = (
        ec.generate_private_key(ec.SECP256R1())
        if kind == "ec"
        else rsa.generate_private_key(public_exponent=65537, key_size=2048)
    )
    pem = key.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
    )
    loaded = parse_private_key(pem)
    claims = _verify(client_assertion("cid", "https://as", loaded), key.public_key())
    assert claims["_alg"] == ("ES256" if kind == "ec" else "RS256")
    assert (claims["iss"], claims["sub"], claims["aud"]) == ("cid", "cid", "https://as")
    assert claims["exp"] > claims["iat"] and claims["jti"]
    assert sign_jwt({"a": 1}, loaded).count(".") == 2


def test_a_key_that_cannot_sign_es256_is_refused_clearly() -> None:
    p384 = ec.generate_private_key(ec.SECP384R1()).private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
    )
    with pytest.raises(ValueError, match="not P-256"):
        parse_private_key(p384)
    with pytest.raises(ValueError, match="not an unencrypted PEM private key"):
        parse_private_key(b"not a key")


# -- the token store ------------------------------------------------------------------------


def test_store_is_private_and_lists_no_secret(tmp_path: Path) -> None:
    path = tmp_path / "state" / "mcp-inspect" / "oauth.json"
    store = TokenStore(path)
    store.save_tokens(
        "https://h/mcp",
        TokenSet("AT-secret", refresh_token="RT-secret", scopes=["a"], issuer="https://as"),
    )
    store.save_client("https://as", ClientIdentity("cid", "CS-secret", issuer="https://as"))
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert stat.S_IMODE(path.parent.stat().st_mode) == 0o700
    again = TokenStore(path)
    tokens = again.tokens("https://h/mcp")
    assert tokens is not None and tokens.refresh_token == "RT-secret"
    listing = json.dumps(again.listing())
    assert "secret" not in listing.replace('"clientSecret": true', "")
    assert again.clear("https://h/mcp") == {"servers": 1, "clients": 1}
    assert TokenStore(path).listing()["servers"] == []


def test_memory_store_writes_nothing(tmp_path: Path) -> None:
    store = TokenStore(None)
    store.save_tokens("https://h/mcp", TokenSet("x"))
    assert store.tokens("https://h/mcp") is not None
    assert list(tmp_path.iterdir()) == []


def test_a_broken_token_file_is_named(tmp_path: Path) -> None:
    path = tmp_path / "oauth.json"
    path.write_text("{not json")
    with pytest.raises(Exception, match="cannot read the token file"):
        TokenStore(path)


# -- the loopback listener ------------------------------------------------------------------


async def test_loopback_listener_checks_state_and_closes() -> None:
    refused: list[str] = []
    async with LoopbackListener("S1", on_refused=refused.append) as listener:
        uri = listener.redirect_uri
        assert uri.startswith("http://127.0.0.1:") and uri.endswith("/callback")
        async with httpx.AsyncClient() as client:
            wrong = await client.get(uri, params={"code": "c", "state": "other"})
            assert wrong.status_code == 400 and refused
            assert listener.received is None
            missing = await client.get(uri.replace("/callback", "/elsewhere"))
            assert missing.status_code == 404
            right = await client.get(uri, params={"code": "c", "state": "S1"})
            assert right.status_code == 200
        with anyio.fail_after(5):
            assert await listener.result() == {"code": "c", "state": "S1"}
    with pytest.raises(httpx.ConnectError):
        async with httpx.AsyncClient() as client:
            await client.get(uri)


def test_pasted_redirects() -> None:
    assert parse_redirect("http://127.0.0.1:1/callback?code=c&state=s\n", "s")["code"] == "c"
    assert parse_redirect("?code=c&state=s", "s")["code"] == "c"
    with pytest.raises(AuthError, match="state"):
        parse_redirect("http://x/cb?code=c&state=t", "s")
    with pytest.raises(AuthError, match="no code"):
        parse_redirect("hello", "s")


# -- options --------------------------------------------------------------------------------


def parse(*argv: str) -> argparse.Namespace:
    parser = argparse.ArgumentParser()
    add_oauth_options(parser)
    return parser.parse_args(list(argv))


def test_flags_win_over_the_config_object_and_the_secret_comes_from_env() -> None:
    config = {"clientId": "from-config", "callbackPort": 8765, "scopes": "a b"}
    settings = auth_settings(parse(), config, {"MCP_CLIENT_SECRET": "env-secret"})
    assert settings is not None
    assert (settings.client_id, settings.callback_port, settings.scopes) == (
        "from-config",
        8765,
        ["a", "b"],
    )
    assert settings.client_secret == "env-secret"
    flagged = auth_settings(
        parse("--client-id", "flag", "--scope", "x y", "--scope", "z"), config, {}
    )
    assert flagged is not None and flagged.client_id == "flag" and flagged.scopes == ["x", "y", "z"]
    assert auth_settings(parse("--no-auth"), config, {}) is None


@pytest.mark.parametrize(
    ("argv", "config", "message"),
    [
        (["--client-credentials"], {}, "needs --client-id"),
        (["--client-metadata-url", "http://x/doc.json"], {}, "https URL with a path"),
        (["--idp-token-endpoint", "https://idp/token"], {}, "cross-app access needs"),
        ([], {"callbackPort": "x"}, "callbackPort must be a number"),
        ([], {"scopes": 5}, "oauth.scopes"),
        (["--private-key", "/nonexistent.pem"], {}, "no such file"),
        (["--workload-token-file", "/nonexistent.jwt"], {}, "--workload-token-file: cannot read"),
        (
            ["--workload-token-file", __file__, "--client-credentials", "--client-id", "c"],
            {},
            "a grant of its own",
        ),
    ],
)
def test_bad_oauth_options_say_what_is_wrong(
    argv: list[str], config: dict[str, Any], message: str
) -> None:
    with pytest.raises(OptionError, match=message):
        auth_settings(parse(*argv), config, {})


# -- refusals of the flow (scripted authorization servers) ----------------------------------

SERVER = "https://mcp.example/mcp"


def scripted(routes: dict[str, tuple[int, Any]]) -> httpx.MockTransport:
    """Answers GETs and POSTs by path; anything else is a 404."""

    def handle(request: httpx.Request) -> httpx.Response:
        status, body = routes.get(request.url.path, (404, {"error": "not_found"}))
        return httpx.Response(status, json=body)

    return httpx.MockTransport(handle)


PRM = {"resource": SERVER, "authorization_servers": ["https://as.example"]}
AS = {
    "issuer": "https://as.example",
    "authorization_endpoint": "https://as.example/authorize",
    "token_endpoint": "https://as.example/token",
    "registration_endpoint": "https://as.example/register",
    "code_challenge_methods_supported": ["S256"],
}
CHALLENGE = {"WWW-Authenticate": 'Bearer scope="x"'}


async def deny(routes: dict[str, tuple[int, Any]], **settings: Any) -> tuple[Any, list[WireEvent]]:
    events: list[WireEvent] = []
    auth = Authorizer(
        SERVER,
        AuthSettings(store=False, **settings),
        TokenStore(None),
        http_transport=scripted(routes),
    )
    auth.attach(events.append)
    try:
        with anyio.fail_after(10):
            return await auth.on_denied(401, CHALLENGE, {}, 0), events
    finally:
        await auth.aclose()


async def test_no_s256_no_authorization() -> None:
    plain = {**AS, "code_challenge_methods_supported": ["plain"]}
    denial, events = await deny(
        {
            "/.well-known/oauth-protected-resource/mcp": (200, PRM),
            "/.well-known/oauth-authorization-server": (200, plain),
        },
        follow=True,
    )
    assert not denial.retry and "S256" in denial.reason
    assert not any(e.meta.get("step") == "registration" for e in events)


async def test_issuer_mismatch_is_refused() -> None:
    other = {**AS, "issuer": "https://impostor.example"}
    denial, _ = await deny(
        {
            "/.well-known/oauth-protected-resource/mcp": (200, PRM),
            "/.well-known/oauth-authorization-server": (200, other),
            "/.well-known/openid-configuration": (200, other),
        },
        follow=True,
    )
    assert not denial.retry and "impostor" in denial.reason and "RFC 8414" in denial.reason


async def test_no_person_no_follow_is_a_clear_refusal() -> None:
    denial, events = await deny(
        {
            "/.well-known/oauth-protected-resource/mcp": (200, PRM),
            "/.well-known/oauth-authorization-server": (200, AS),
        }
    )
    assert not denial.retry and "--auth-follow" in denial.reason
    failed = [e for e in events if e.meta.get("auth") == "failed"]
    assert failed and failed[0].channel is Channel.AUTH and failed[0].direction is Direction.LOCAL


async def test_token_endpoint_error_names_step_and_what_the_server_said() -> None:
    def handle(request: httpx.Request) -> httpx.Response:
        if request.url.path == "/.well-known/oauth-protected-resource/mcp":
            return httpx.Response(200, json=PRM)
        if request.url.path == "/.well-known/oauth-authorization-server":
            return httpx.Response(200, json=AS)
        if request.url.path == "/token":
            return httpx.Response(
                401, json={"error": "invalid_client", "error_description": "who?"}
            )
        return httpx.Response(404)

    auth = Authorizer(
        SERVER,
        AuthSettings(store=False, client_credentials=True, client_id="c", client_secret="s"),
        TokenStore(None),
        http_transport=httpx.MockTransport(handle),
    )
    try:
        denial = await auth.on_denied(401, CHALLENGE, {}, 0)
    finally:
        await auth.aclose()
    assert not denial.retry
    assert denial.reason is not None and "client credentials step" in denial.reason
    assert "invalid_client (who?)" in denial.reason


async def test_a_403_that_is_not_about_scope_is_not_ours() -> None:
    auth = Authorizer(SERVER, AuthSettings(store=False), TokenStore(None))
    denial = await auth.on_denied(403, {"WWW-Authenticate": 'Bearer error="invalid_token"'}, {}, 0)
    assert not denial.retry and denial.reason is None
    denial = await auth.on_denied(403, {}, {}, 0)
    assert not denial.retry


@pytest.mark.slow
def test_auth_package_stays_headless() -> None:
    code = (
        "import sys, inspector.auth.flow, inspector.auth.options, inspector.auth.terminal, "
        "inspector.commands.auth; assert 'textual' not in sys.modules, 'textual imported'"
    )
    subprocess.run([sys.executable, "-c", code], check=True, timeout=60, env=dict(os.environ))


def test_a_config_entry_carries_its_oauth_object(tmp_path: Path) -> None:
    from inspector.config import ConfigError, load_server_config

    path = tmp_path / "mcp.json"
    entry = {"url": "https://h/mcp", "oauth": {"clientId": "cid", "callbackPort": 8765}}
    path.write_text(json.dumps({"mcpServers": {"remote": entry}}))
    config = load_server_config(path)
    assert config.oauth == {"clientId": "cid", "callbackPort": 8765}
    settings = auth_settings(parse(), config.oauth, {})
    assert settings is not None and (settings.client_id, settings.callback_port) == ("cid", 8765)
    path.write_text(json.dumps({"servers": {"remote": {"url": "https://h", "oauth": "x"}}}))
    with pytest.raises(ConfigError, match="'oauth' must be an object"):
        load_server_config(path)


async def test_no_redirect_within_the_timeout_is_said() -> None:
    class Away(NoSteps):
        can_prompt = True

        async def obtain_redirect(self, request: Any) -> dict[str, str]:
            await anyio.sleep_forever()
            raise AssertionError("unreachable")

    routes = {
        "/.well-known/oauth-protected-resource/mcp": (200, PRM),
        "/.well-known/oauth-authorization-server": (200, AS),
        "/register": (201, {"client_id": "c1"}),
    }
    auth = Authorizer(
        SERVER,
        AuthSettings(store=False, timeout=0.3),
        TokenStore(None),
        Away(),
        http_transport=scripted(routes),
    )
    events: list[WireEvent] = []
    auth.attach(events.append)
    try:
        with anyio.fail_after(10):
            denial = await auth.on_denied(401, CHALLENGE, {}, 0)
    finally:
        await auth.aclose()
    assert not denial.retry and "no redirect within 0.3 s" in (denial.reason or "")
    # the person's wait (each OAuth exchange holds the timeouts too, for its own length)
    holds = [e.meta["hold"] for e in events if "hold" in e.meta and e.meta.get("auth")]
    assert holds == [True, False]  # the session's timeouts held, then released


async def test_the_session_holds_request_timeouts_while_a_person_authorizes() -> None:
    from inspector.engine.session import RequestTimeoutError, Session
    from inspector.transports.memory import memory_pair
    from inspector.wire import jsonrpc

    transport, server = memory_pair()
    outcome: dict[str, Any] = {}
    with anyio.fail_after(10):
        async with (
            Session(transport, timeout=0.2, max_timeout=0.3) as session,
            anyio.create_task_group() as tg,
        ):

            async def ask() -> None:
                try:
                    outcome["result"] = await session.request("ping")
                except RequestTimeoutError as exc:
                    outcome["timeout"] = exc

            session.emit(WireEvent(Direction.LOCAL, Channel.AUTH, b"wait", meta={"hold": True}))
            tg.start_soon(ask)
            ping = await server.receive()
            await anyio.sleep(0.8)  # past the timeout and the hard maximum: held
            assert outcome == {}
            session.emit(WireEvent(Direction.LOCAL, Channel.AUTH, b"done", meta={"hold": False}))
            await server.send(jsonrpc.response(ping["id"], {}))
            while not outcome:
                await anyio.sleep(0.01)
    assert outcome == {"result": {}}


async def test_an_authorization_endpoint_that_is_not_http_is_refused() -> None:
    hostile = {**AS, "authorization_endpoint": "javascript:alert(1)"}
    denial, events = await deny(
        {
            "/.well-known/oauth-protected-resource/mcp": (200, PRM),
            "/.well-known/oauth-authorization-server": (200, hostile),
        },
        follow=True,
    )
    assert not denial.retry and "no http(s) authorization_endpoint" in (denial.reason or "")
    assert not any(e.meta.get("auth") == "authorize" for e in events)
