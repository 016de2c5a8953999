"""The official conformance suite's client scenarios, run through ``mcp-inspect --cli``.

Each scenario runs the command line ``tests/conformance_client.py`` chooses (printed on the
client's stderr), and each test asserts both the suite's verdict and what mcp-inspect's own
recording of the session shows: the suite passes some scenarios for a client that does
nothing.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl, urlsplit

import pytest

from inspector.record.format import REDACTED as MASK
from inspector.record.reader import read_session
from inspector.wire.events import Channel, Direction, WireEvent
from tests.conformance import ScenarioResult, run_through_adapter
from tests.conformance_client import CIMD_URL


def run(scenario: str, record_dir: Path, runs: Path) -> tuple[ScenarioResult, list[WireEvent]]:
    """The scenario's run (shared with test_conformance_suites through ``runs``, the
    session's ``conformance_runs``: each is run once a session), its recordings copied
    into ``record_dir``."""
    result = run_through_adapter(scenario, record_dir, runs)
    path = record_dir / (scenario.replace("/", "_") + ".jsonl")
    assert path.exists(), result.explain()
    return result, read_session(path).events


def sent_methods(events: list[WireEvent]) -> list[str]:
    return [
        e.message["method"]
        for e in events
        if e.direction is Direction.OUT
        and e.channel is Channel.BODY
        and isinstance(e.message, dict)
        and "method" in e.message
    ]


def responses(events: list[WireEvent]) -> list[dict[str, object]]:
    return [
        e.message
        for e in events
        if e.direction is Direction.IN
        and isinstance(e.message, dict)
        and ("result" in e.message or "error" in e.message)
    ]


@pytest.mark.slow
def test_initialize(tmp_path: Path, conformance_runs: Path) -> None:
    result, events = run("initialize", tmp_path, conformance_runs)
    assert result.passed, result.explain()
    # the suite records no check when no initialize comes: the recording must show it
    assert result.check("mcp-client-initialization"), result.explain()
    # no --protocol-version: the era probe first, refused by the suite's server (HTTP 400)
    assert sent_methods(events)[:4] == [
        "server/discover",
        "initialize",
        "notifications/initialized",
        "tools/list",
    ]
    assert any("tools" in (r.get("result") or {}) for r in responses(events))
    # the line a user types, printed by the adapter before it runs it
    assert " --cli --method tools/list " in result.client_stderr


@pytest.mark.slow
def test_tools_call(tmp_path: Path, conformance_runs: Path) -> None:
    result, events = run("tools_call", tmp_path, conformance_runs)
    assert result.passed, result.explain()
    assert [c["details"] for c in result.check("tool-add-numbers")] == [
        {"a": 2, "b": 3, "result": 5}
    ]
    assert "tools/call" in sent_methods(events)


@pytest.mark.slow
def test_elicitation_defaults(tmp_path: Path, conformance_runs: Path) -> None:
    result, events = run("elicitation-sep1034-client-defaults", tmp_path, conformance_runs)
    assert result.passed, result.explain()
    assert "elicitation/create" in [
        e.message.get("method") for e in events if isinstance(e.message, dict)
    ]


@pytest.mark.slow
def test_sse_retry(tmp_path: Path, conformance_runs: Path) -> None:
    result, events = run("sse-retry", tmp_path, conformance_runs)
    assert result.passed, result.explain()
    resumed = [
        e
        for e in events
        if e.channel is Channel.HTTP
        and e.direction is Direction.OUT
        and e.meta.get("method") == "GET"
        and e.meta.get("last_event_id")
    ]
    assert resumed, "no GET with Last-Event-ID in the recording"


# -- OAuth ---------------------------------------------------------------------------------

SECRETS_SERVED = ("test-token", "cc-token", "test-auth-code", "test-client-secret", "test-secret-")


@dataclass
class AuthExchange:
    """One OAuth request in the recording: its step, line, headers and (form or JSON) body."""

    step: str
    method: str
    url: str
    headers: dict[str, str]
    body: dict[str, Any]
    status: int | None = None


def auth_exchanges(events: list[WireEvent]) -> list[AuthExchange]:
    out: list[AuthExchange] = []
    for e in events:
        if e.channel is not Channel.AUTH or e.direction is Direction.LOCAL:
            continue
        if e.direction is Direction.OUT and "method" in e.meta:
            out.append(
                AuthExchange(e.meta["step"], e.meta["method"], e.meta["url"], e.meta["headers"], {})
            )
        elif e.direction is Direction.OUT and out:
            text = e.raw.decode()
            out[-1].body = json.loads(text) if text.startswith("{") else dict(parse_qsl(text))
        elif e.direction is Direction.IN and "status" in e.meta and out:
            out[-1].status = e.meta["status"]
    return out


def auth_notes(events: list[WireEvent], kind: str) -> list[WireEvent]:
    return [
        e
        for e in events
        if e.channel is Channel.AUTH
        and e.direction is Direction.LOCAL
        and e.meta.get("auth") == kind
    ]


def query(url: str) -> dict[str, str]:
    return dict(parse_qsl(urlsplit(url).query))


def steps(exchanges: list[AuthExchange], step: str) -> list[AuthExchange]:
    return [x for x in exchanges if x.step == step]


def called_tool(events: list[WireEvent]) -> bool:
    """The tools/call came back with a result (after whatever authorization it took)."""
    return any(
        isinstance(r.get("result"), dict) and "content" in r["result"] for r in responses(events)
    )


AUTH_CODE_SCENARIOS = [
    "auth/metadata-default",
    "auth/metadata-var1",
    "auth/metadata-var2",
    "auth/metadata-var3",
    "auth/basic-cimd",
    "auth/scope-from-www-authenticate",
    "auth/scope-from-scopes-supported",
    "auth/scope-omitted-when-undefined",
    "auth/scope-step-up",
    "auth/token-endpoint-auth-basic",
    "auth/token-endpoint-auth-post",
    "auth/token-endpoint-auth-none",
    "auth/pre-registration",
    "auth/2025-03-26-oauth-metadata-backcompat",
    "auth/2025-03-26-oauth-endpoint-fallback",
    "auth/offline-access-scope",
    "auth/offline-access-not-supported",
]


@pytest.mark.slow
@pytest.mark.parametrize("scenario", AUTH_CODE_SCENARIOS)
def test_authorization_code(scenario: str, tmp_path: Path, conformance_runs: Path) -> None:
    result, events = run(scenario, tmp_path, conformance_runs)
    assert result.passed, result.explain()
    assert called_tool(events), result.explain()
    exchanges = auth_exchanges(events)
    authorize = steps(exchanges, "authorization")
    tokens = steps(exchanges, "token")
    assert authorize and tokens, [x.step for x in exchanges]
    first = query(authorize[0].url)
    assert first["code_challenge_method"] == "S256" and first["state"]
    assert tokens[0].body["grant_type"] == "authorization_code"
    assert tokens[0].body["code_verifier"] == MASK and tokens[0].body["code"] == MASK
    # RFC 8707: the same resource on the authorization and the token request
    assert first.get("resource") == tokens[0].body.get("resource")
    recorded = (tmp_path / (scenario.replace("/", "_") + ".jsonl")).read_text()
    for secret in SECRETS_SERVED:  # tokens, codes and secrets the servers handed out
        assert secret not in recorded, secret
    check_scenario(scenario, first, exchanges, events)


def check_scenario(
    scenario: str, first: dict[str, str], exchanges: list[AuthExchange], events: list[WireEvent]
) -> None:
    """What each scenario is about, as the recording shows it."""
    metadata = [urlsplit(x.url).path for x in steps(exchanges, "server metadata")]
    registered = steps(exchanges, "registration")
    token_headers = steps(exchanges, "token")[0].headers
    token_body = steps(exchanges, "token")[0].body
    if scenario == "auth/metadata-var1":
        assert metadata[-1] == "/.well-known/openid-configuration"
    elif scenario == "auth/metadata-var2":
        assert metadata == ["/.well-known/oauth-authorization-server/tenant1"]
    elif scenario == "auth/metadata-var3":
        assert metadata[-1] == "/tenant1/.well-known/openid-configuration"
        assert "/.well-known/oauth-authorization-server" not in metadata
    elif scenario == "auth/basic-cimd":
        assert first["client_id"] == CIMD_URL and not registered
    elif scenario == "auth/scope-from-www-authenticate":
        assert first["scope"] == "mcp:basic"
    elif scenario == "auth/scope-from-scopes-supported":
        assert first["scope"].split() == ["mcp:basic", "mcp:read", "mcp:write"]
    elif scenario == "auth/scope-omitted-when-undefined":
        assert "scope" not in first
    elif scenario == "auth/scope-step-up":
        second = query(steps(exchanges, "authorization")[1].url)
        assert (first["scope"], second["scope"]) == ("mcp:basic", "mcp:basic mcp:write")
        assert len(steps(exchanges, "token")) == 2
    elif scenario in ("auth/token-endpoint-auth-basic", "auth/pre-registration"):
        assert token_headers.get("Authorization") == MASK  # client_secret_basic
        assert "client_secret" not in token_body
        assert bool(registered) is (scenario != "auth/pre-registration")
    elif scenario == "auth/token-endpoint-auth-post":
        assert token_body["client_secret"] == MASK and "Authorization" not in token_headers
    elif scenario == "auth/token-endpoint-auth-none":
        assert "client_secret" not in token_body and "Authorization" not in token_headers
        assert token_body["client_id"]
    elif scenario == "auth/2025-03-26-oauth-metadata-backcompat":
        assert not any(x.status == 200 for x in steps(exchanges, "resource metadata"))
        assert metadata == ["/.well-known/oauth-authorization-server"]
        assert urlsplit(steps(exchanges, "authorization")[0].url).path == "/oauth/authorize"
    elif scenario == "auth/2025-03-26-oauth-endpoint-fallback":
        assert urlsplit(steps(exchanges, "authorization")[0].url).path == "/authorize"
        assert urlsplit(steps(exchanges, "token")[0].url).path == "/token"
    elif scenario == "auth/offline-access-scope":
        assert first["scope"].split() == ["mcp:basic", "offline_access"]
        assert "refresh_token" in registered[0].body["grant_types"]
    elif scenario == "auth/offline-access-not-supported":
        assert "offline_access" not in first["scope"].split()
    if scenario == "auth/metadata-default":
        assert metadata == ["/.well-known/oauth-authorization-server"]
        prm = [urlsplit(x.url).path for x in steps(exchanges, "resource metadata")]
        assert prm == ["/.well-known/oauth-protected-resource/mcp"]


@pytest.mark.slow
def test_retry_limit(tmp_path: Path, conformance_runs: Path) -> None:
    result, events = run("auth/scope-retry-limit", tmp_path, conformance_runs)
    assert result.passed, result.explain()
    assert len(steps(auth_exchanges(events), "authorization")) == 3
    assert auth_notes(events, "gave-up")
    error = json.loads(result.client_stdout + result.client_stderr.splitlines()[-1])["error"]
    assert error["exitCode"] == 7 and "gave up after 3 authorizations" in error["message"]


@pytest.mark.slow
def test_resource_mismatch(tmp_path: Path, conformance_runs: Path) -> None:
    # the suite passes a client that does nothing: the recording shows the refusal
    result, events = run("auth/resource-mismatch", tmp_path, conformance_runs)
    assert result.passed, result.explain()
    exchanges = auth_exchanges(events)
    assert [x.step for x in exchanges] == ["resource metadata"]
    failed = auth_notes(events, "failed")
    assert failed and "evil.example.com" in failed[0].text()
    error = json.loads(result.client_stderr.splitlines()[-1])["error"]
    assert error["exitCode"] == 7 and "RFC 9728" in error["message"]


@pytest.mark.slow
@pytest.mark.parametrize(
    "scenario", ["auth/client-credentials-basic", "auth/client-credentials-jwt"]
)
def test_client_credentials(scenario: str, tmp_path: Path, conformance_runs: Path) -> None:
    result, events = run(scenario, tmp_path, conformance_runs)
    assert result.passed, result.explain()
    assert called_tool(events)
    exchanges = auth_exchanges(events)
    assert not steps(exchanges, "authorization") and not steps(exchanges, "registration")
    (grant,) = steps(exchanges, "client credentials")
    assert grant.body["grant_type"] == "client_credentials"
    if scenario.endswith("jwt"):
        assert grant.body["client_assertion"] == MASK
        assert grant.body["client_assertion_type"].endswith("client-assertion-type:jwt-bearer")
    else:
        assert grant.headers["Authorization"] == MASK and "client_secret" not in grant.body
    recorded = (tmp_path / (scenario.replace("/", "_") + ".jsonl")).read_text()
    assert "cc-token" not in recorded and "conformance-test-secret" not in recorded


@pytest.mark.slow
def test_cross_app_access(tmp_path: Path, conformance_runs: Path) -> None:
    result, events = run("auth/cross-app-access-complete-flow", tmp_path, conformance_runs)
    assert result.passed, result.explain()
    assert called_tool(events)
    exchanges = auth_exchanges(events)
    (exchange,) = steps(exchanges, "token exchange")
    (bearer,) = steps(exchanges, "jwt bearer")
    assert exchange.body["requested_token_type"].endswith(":id-jag")
    assert exchange.body["subject_token"] == MASK
    assert bearer.body["assertion"] == MASK
    assert bearer.headers["Authorization"] == MASK and "client_secret" not in bearer.body
    recorded = (tmp_path / "auth_cross-app-access-complete-flow.jsonl").read_text()
    assert "eyJ" not in recorded  # no JWT (ID token, ID-JAG) in the file
