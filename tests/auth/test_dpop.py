"""DPoP (RFC 9449): proofs signed with the client's key and verified here with the public
key their header carries; the authorization server's and the MCP server's nonces; the key
kept with the tokens (0600) and never shown. Scripted authorization server
(``servers/oauth_scripted.py``); the conformance suite's ``auth/dpop`` and
``auth/dpop-nonce`` run the same through the CLI."""

from __future__ import annotations

import base64
import hashlib
import json
import stat
from pathlib import Path
from typing import Any

import anyio
import httpx
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.asymmetric.utils import encode_dss_signature
from servers.oauth_scripted import SERVER, ScriptedAuth, as_metadata

from inspector.auth.dpop import DpopKey
from inspector.auth.flow import Authorizer
from inspector.auth.settings import AuthSettings
from inspector.auth.store import TokenStore
from inspector.wire.events import WireEvent

AS = "https://as.example"
NONCE = "as-nonce-1"


def unb64(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def verified(proof: str) -> tuple[dict[str, Any], dict[str, Any]]:
    """Header and claims of a proof whose ES256 signature verifies with its own jwk."""
    head_b64, claims_b64, sig_b64 = proof.split(".")
    header = json.loads(unb64(head_b64))
    assert header["typ"] == "dpop+jwt" and header["alg"] == "ES256"
    jwk = header["jwk"]
    assert "d" not in jwk  # the public key only
    public = ec.EllipticCurvePublicNumbers(
        int.from_bytes(unb64(jwk["x"]), "big"),
        int.from_bytes(unb64(jwk["y"]), "big"),
        ec.SECP256R1(),
    ).public_key()
    sig = unb64(sig_b64)
    der = encode_dss_signature(int.from_bytes(sig[:32], "big"), int.from_bytes(sig[32:], "big"))
    public.verify(der, f"{head_b64}.{claims_b64}".encode(), ec.ECDSA(hashes.SHA256()))
    return header, json.loads(unb64(claims_b64))


def test_a_proof_names_its_request_and_token_and_is_fresh() -> None:
    key = DpopKey.generate()
    one = key.proof("post", "https://rs.example/mcp?x=1#f", access_token="tok", nonce="n")
    two = key.proof("POST", "https://rs.example/mcp", access_token="tok")
    _, claims = verified(one.jwt)
    assert claims["htm"] == "POST" and claims["htu"] == "https://rs.example/mcp"
    ath = base64.urlsafe_b64encode(hashlib.sha256(b"tok").digest()).rstrip(b"=").decode()
    assert claims["ath"] == ath and claims["nonce"] == "n" and isinstance(claims["iat"], int)
    assert verified(two.jwt)[1]["jti"] != claims["jti"]
    again = DpopKey.from_json(key.to_json())
    assert again is not None and again.thumbprint() == key.thumbprint()


def token_endpoint(seen: list[httpx.Request]) -> Any:
    """Asks for a nonce first, then issues a DPoP-bound token."""

    def answer(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        _, claims = verified(request.headers["DPoP"])
        if claims.get("nonce") != NONCE:
            return httpx.Response(
                400, headers={"DPoP-Nonce": NONCE}, json={"error": "use_dpop_nonce"}
            )
        return httpx.Response(
            200, json={"access_token": "bound-token", "token_type": "DPoP", "expires_in": 60}
        )

    return answer


async def test_tokens_are_bound_nonces_answered_and_the_key_never_shown(tmp_path: Path) -> None:
    seen: list[httpx.Request] = []
    script = ScriptedAuth(
        {AS: as_metadata(AS, dpop_signing_alg_values_supported=["ES256"])},
        AS,
        token=token_endpoint(seen),
    )
    events: list[WireEvent] = []
    store = TokenStore(tmp_path / "oauth.json")
    auth = Authorizer(SERVER, AuthSettings(follow=True), store, http_transport=script.transport())
    auth.attach(events.append)
    try:
        with anyio.fail_after(20):
            denial = await auth.on_denied(401, {"WWW-Authenticate": "DPoP"}, {}, 0)
            assert denial.retry, denial.reason
            first = await auth.headers()
            # the MCP server asks for its own nonce: the same request again, no new token
            nonce = {"WWW-Authenticate": 'DPoP error="use_dpop_nonce"', "DPoP-Nonce": "rs-1"}
            again = await auth.on_denied(401, nonce, first, 1)
            second = await auth.headers(method="GET", url=SERVER)
    finally:
        await auth.aclose()
    assert again.retry and len(seen) == 2  # the token request: without, then with the nonce
    proofs = [verified(r.headers["DPoP"]) for r in seen]
    assert [c.get("nonce") for _, c in proofs] == [None, NONCE]
    assert proofs[0][1]["jti"] != proofs[1][1]["jti"]
    assert first["Authorization"] == "DPoP bound-token"
    header, claims = verified(first["DPoP"])
    assert claims["htu"] == SERVER and "nonce" not in claims
    assert header["jwk"] == proofs[0][0]["jwk"]  # one key for the token and the resource
    _, later = verified(second["DPoP"])
    assert (later["htm"], later["nonce"]) == ("GET", "rs-1")
    # kept with the tokens, in the 0600 file
    stored = json.loads((tmp_path / "oauth.json").read_text())["servers"][SERVER]
    assert stored["token_type"] == "DPoP" and stored["dpop_key"]["d"]
    assert stat.S_IMODE((tmp_path / "oauth.json").stat().st_mode) == 0o600
    (listed,) = store.listing()["servers"]  # mcp-inspect auth list
    assert listed["dpopBound"] is True and stored["dpop_key"]["d"] not in json.dumps(listed)
    # every proof is shown on the auth channel with its jti, the private key never
    notes = [e for e in events if e.meta.get("auth") == "dpop-proof"]
    assert [n.meta["claims"]["jti"] for n in notes[:2]] == [c["jti"] for _, c in proofs]
    assert all(n.meta["claims"]["jti"] in n.text() for n in notes)
    private = stored["dpop_key"]["d"]
    assert not any(private in e.raw.decode() or private in json.dumps(e.meta) for e in events)


async def test_a_server_without_dpop_gets_bearer() -> None:
    script = ScriptedAuth({AS: as_metadata(AS)}, AS)
    auth = Authorizer(
        SERVER,
        AuthSettings(store=False, follow=True),
        TokenStore(None),
        http_transport=script.transport(),
    )
    try:
        with anyio.fail_after(20):
            assert (await auth.on_denied(401, {}, {}, 0)).retry
            sent = await auth.headers()
    finally:
        await auth.aclose()
    assert "DPoP" not in script.at(AS, "/token")[0].headers
    assert sent == {"Authorization": "Bearer token-of-as.example"}
