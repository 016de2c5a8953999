"""``proxy --listen`` serves 2026-07-28 hosts (self-contained POSTs, no session) as well
as handshake ones: the official SDK client in its default mode gets the stateless era
from a server that speaks it, falls back to initialize through the front when the server
behind speaks only the handshake, and the front's own refusals are JSON-RPC errors."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import anyio
import httpx
import pytest
from mcp import StdioServerParameters
from mcp.client import Client
from paths import DEMO, PY, ROOT, SERVERS
from proxy_support import events, listening_proxy

from inspector.proxy.front_stateless import request_refusal, stateless_version
from inspector.proxy.httpserve import Request

SDK = [PY, str(SERVERS / "stateless_server.py")]  # the official SDK server: both eras
HANDSHAKE_ONLY = [PY, str(SERVERS / "era_server.py"), "handshake-stdio"]
STATELESS_ONLY = [PY, str(SERVERS / "era_server.py"), "stateless-stdio"]
VERSION = "2026-07-28"
ACCEPT = "application/json, text/event-stream"
META = {
    "io.modelcontextprotocol/protocolVersion": VERSION,
    "io.modelcontextprotocol/clientInfo": {"name": "t", "version": "0"},
    "io.modelcontextprotocol/clientCapabilities": {},
}


def call(id_: Any, name: str, arguments: dict[str, Any], version: str = VERSION) -> dict[str, Any]:
    meta = {**META, "io.modelcontextprotocol/protocolVersion": version}
    params = {"name": name, "arguments": arguments, "_meta": meta}
    return {"jsonrpc": "2.0", "id": id_, "method": "tools/call", "params": params}


def headers_for(message: dict[str, Any], version: str = VERSION) -> dict[str, str]:
    out = {"Accept": ACCEPT, "MCP-Protocol-Version": version, "Mcp-Method": message["method"]}
    name = message.get("params", {}).get("name")
    if name is not None:
        out["Mcp-Name"] = name
    return out


def last_message(body: str) -> dict[str, Any]:
    """The last message of an answer (an SSE stream's last event, or a JSON body)."""
    data = [line[5:] for line in body.splitlines() if line.startswith("data:")]
    message: dict[str, Any] = json.loads(data[-1] if data else body)
    return message


async def use(url: str, mode: str) -> dict[str, Any]:
    with anyio.fail_after(60):
        async with Client(url, mode=mode) as client:
            tools = await client.list_tools()
            added = await client.call_tool("add", {"a": 2, "b": 40})
            return {
                "version": client.protocol_version,
                "tools": sorted(t.name for t in tools.tools),
                "added": added.content[0].model_dump()["text"],
            }


@pytest.mark.parametrize("mode", ["auto", "legacy"])
@pytest.mark.slow
async def test_the_sdk_client_in_either_mode_through_the_front(mode: str, tmp_path: Path) -> None:
    record = tmp_path / "p.jsonl"
    with listening_proxy("--no-attach", "--record", str(record), "--", *SDK) as (_p, url):
        got = await use(url, mode)
    assert got["added"] == "42" and "add" in got["tools"]
    recorded = events(record)
    http = [e for e in recorded if e["dir"] == "out" and e.get("ch") == "http"]
    if mode == "auto":
        assert got["version"] == VERSION
        # no session: no initialize, no GET stream, no DELETE; each POST stands alone
        assert [e["raw"] for e in http] == ["POST /mcp"] * len(http)
        assert not any('"initialize"' in e["raw"] for e in recorded)
        assert any("speaks 2026-07-28" in e["raw"] for e in recorded if e["dir"] == "local")
    else:
        assert got["version"] != VERSION
        assert any('"method":"initialize"' in e["raw"] for e in recorded)


async def test_a_handshake_only_server_behind_makes_the_host_fall_back(tmp_path: Path) -> None:
    record = tmp_path / "p.jsonl"
    with listening_proxy("--no-attach", "--record", str(record), "--", *HANDSHAKE_ONLY) as (
        _p,
        url,
    ):
        got = await use(url, "auto")
        # known now: a 2026-07-28 request is answered at once, as a handshake server would
        probe = {"jsonrpc": "2.0", "id": 7, "method": "server/discover", "params": {"_meta": META}}
        async with httpx.AsyncClient(timeout=30) as http:
            again = await http.post(url, json=probe, headers=headers_for(probe))
    assert got == {"version": "2025-11-25", "tools": ["add"], "added": "42"}
    assert again.status_code == 400
    body = again.json()
    assert body["id"] == 7 and body["error"]["code"] == -32000  # no 2026-07-28 error: fall back
    assert "handshake era" in body["error"]["message"]
    notes = [e["raw"] for e in events(record) if e["dir"] == "local"]
    assert any("speaks the handshake era" in n for n in notes)
    started = [n for n in notes if n.startswith("started pid")]
    assert len(started) == 2  # the probe's server (stopped), then the host session's


async def test_a_legacy_host_of_a_stateless_only_server_gets_its_refusal() -> None:
    with (
        listening_proxy("--no-attach", "--", *STATELESS_ONLY) as (_p, url),
        anyio.fail_after(60),
        pytest.raises(Exception) as refused,  # an MCPError in a group
    ):
        async with Client(url, mode="legacy"):
            pass
    assert "Unsupported protocol version" in str(refused.value) or "-32022" in repr(refused.value)


@pytest.mark.slow
async def test_the_front_answers_with_json_rpc_errors_and_2026_statuses() -> None:
    good = call(1, "add", {"a": 1, "b": 2})
    with listening_proxy("--no-attach", "--", *SDK) as (_p, url):
        async with httpx.AsyncClient(timeout=60) as http:
            # first, a request without the _meta envelope: refused by the front (the SDK
            # server behind would take it for the handshake era, for every host after it)
            bare = {"jsonrpc": "2.0", "id": 0, "method": "server/discover", "params": {}}
            no_meta = await http.post(url, json=bare, headers=headers_for(bare))
            answered = await http.post(url, json=good, headers=headers_for(good))
            # the server's own -32022, for a version it does not serve: 400, its body
            old = call(2, "add", {"a": 1, "b": 2}, version="2099-01-01")
            unsupported = await http.post(url, json=old, headers=headers_for(old, "2099-01-01"))
            # routing headers that do not match the body: the front's -32020
            lying = {**headers_for(good), "Mcp-Name": "delete_everything"}
            mismatch = await http.post(url, json=good, headers=lying)
            no_method = {k: v for k, v in headers_for(good).items() if k != "Mcp-Method"}
            missing = await http.post(url, json=good, headers=no_method)
            # neither a session nor a 2026-07-28 version: a JSON-RPC error, 400
            plain = {"jsonrpc": "2.0", "id": 3, "method": "tools/list"}
            sessionless = await http.post(url, json=plain, headers={"Accept": ACCEPT})
            get = await http.get(url, headers={"Accept": "text/event-stream"})
            # an initialize that names 2026-07-28: no session, the server's answer to it
            init = {
                "jsonrpc": "2.0",
                "id": 4,
                "method": "initialize",
                "params": {"_meta": META, "protocolVersion": VERSION, "capabilities": {}},
            }
            modern_init = await http.post(url, json=init, headers=headers_for(init))
    assert no_meta.status_code == 400
    assert no_meta.json()["error"]["code"] == -32602 and no_meta.json()["id"] == 0
    assert answered.status_code == 200
    assert last_message(answered.text)["result"]["content"][0]["text"] == "3"
    assert unsupported.status_code == 400
    assert unsupported.json()["error"]["code"] == -32022
    assert VERSION in json.dumps(unsupported.json()["error"].get("data"))
    for refused in (mismatch, missing):
        assert refused.status_code == 400
        assert refused.json()["error"]["code"] == -32020
        assert refused.json()["id"] == 1
    assert "delete_everything" in mismatch.json()["error"]["message"]
    assert "mcp-session-id" not in modern_init.headers
    assert "error" in last_message(modern_init.text)  # no handshake at 2026-07-28
    for refused in (sessionless, get):
        assert refused.status_code == 400
        assert refused.json()["jsonrpc"] == "2.0"
        assert refused.json()["error"]["code"] == -32000


@pytest.mark.slow
async def test_two_hosts_with_the_same_id_in_flight_get_their_own_answers() -> None:
    with listening_proxy("--no-attach", "--", *SDK) as (_p, url):
        async with httpx.AsyncClient(timeout=60) as http:
            slow = call(1, "slow", {"seconds": 1.0})
            quick = call(1, "add", {"a": 20, "b": 22})
            answers: dict[str, str] = {}

            async def post(name: str, message: dict[str, Any]) -> None:
                answer = await http.post(url, json=message, headers=headers_for(message))
                answers[name] = answer.text

            await post("warm", call(9, "add", {"a": 0, "b": 0}))  # the server is up
            async with anyio.create_task_group() as tg:
                tg.start_soon(post, "slow", slow)
                await anyio.sleep(0.3)
                tg.start_soon(post, "quick", quick)
    for name, expected in (("slow", "slept"), ("quick", "42")):
        message = last_message(answers[name])
        assert message["id"] == 1  # the host's own id, though the server saw another
        assert message["result"]["content"][0]["text"] == expected


def test_what_is_stateless_and_what_mismatches() -> None:
    def request(**headers: str) -> Request:
        return Request(
            "POST", "/mcp", "HTTP/1.1", {k.replace("_", "-"): v for k, v in headers.items()}
        )

    message = call(1, "add", {})
    assert stateless_version(request(mcp_protocol_version=VERSION), None) == VERSION
    assert stateless_version(request(mcp_protocol_version="2025-11-25"), message) is None
    assert stateless_version(request(), message) == VERSION  # the body's _meta names it
    assert stateless_version(request(), {"jsonrpc": "2.0", "id": 1, "method": "x"}) is None
    ok = request(mcp_protocol_version=VERSION, mcp_method="tools/call", mcp_name="add")
    assert request_refusal(ok, message) is None
    encoded = request(
        mcp_protocol_version=VERSION, mcp_method="tools/call", mcp_name="=?base64?YWRk?="
    )
    assert request_refusal(encoded, message) is None
    assert request_refusal(request(mcp_method="tools/call"), message) == (
        -32020,
        "Header mismatch: the MCP-Protocol-Version header is missing",
    )
    bare = {"jsonrpc": "2.0", "id": 1, "method": "server/discover", "params": {}}
    code, text = request_refusal(request(mcp_protocol_version=VERSION), bare) or (0, "")
    assert code == -32602 and "io.modelcontextprotocol/protocolVersion" in text
    wrong = request(mcp_protocol_version="2099-01-01", mcp_method="tools/call", mcp_name="add")
    assert "does not match" in str(request_refusal(wrong, message))


@pytest.mark.slow
async def test_a_closed_response_stream_cancels_the_request(tmp_path: Path) -> None:
    """2026-07-28: closing a request's stream is its cancellation; a stdio server hears
    it as notifications/cancelled, and the connection all hosts share goes on."""
    record = tmp_path / "p.jsonl"
    with listening_proxy("--no-attach", "--record", str(record), "--", *SDK) as (_p, url):
        async with httpx.AsyncClient(timeout=60) as http:
            warm = call(1, "add", {"a": 0, "b": 0})
            assert (await http.post(url, json=warm, headers=headers_for(warm))).status_code == 200
            slow = call(5, "slow", {"seconds": 30})
            with anyio.fail_after(20):
                async with http.stream("POST", url, json=slow, headers=headers_for(slow)) as got:
                    assert got.status_code == 200  # the head: then the host hangs up
            after = call(6, "add", {"a": 40, "b": 2})
            with anyio.fail_after(20):
                again = await http.post(url, json=after, headers=headers_for(after))
    assert last_message(again.text)["result"]["content"][0]["text"] == "42"
    recorded = events(record)
    cancels = [
        json.loads(e["raw"])
        for e in recorded
        if e["dir"] == "out" and "notifications/cancelled" in e.get("raw", "")
    ]
    assert [c["params"]["requestId"] for c in cancels] == [5]
    notes = [e["raw"] for e in recorded if e["dir"] == "local"]
    assert any("closed the response stream of request 5" in n for n in notes)
    assert not any(e["dir"] == "in" and '"id": 5' in e.get("raw", "") for e in recorded)


@pytest.mark.slow
async def test_two_hosts_with_the_same_progress_token_get_their_own_progress() -> None:
    sdk = [PY, str(SERVERS / "sdk_stdio_server.py")]
    with listening_proxy("--no-attach", "--", *sdk) as (_p, url):
        async with httpx.AsyncClient(timeout=60) as http:
            answers: dict[int, str] = {}

            async def post(steps: int) -> None:
                message = call(1, "progress_steps", {"steps": steps})
                message["params"]["_meta"]["progressToken"] = "p"
                answer = await http.post(url, json=message, headers=headers_for(message))
                answers[steps] = answer.text

            warm = call(9, "add", {"a": 0, "b": 0})
            await http.post(url, json=warm, headers=headers_for(warm))
            async with anyio.create_task_group() as tg:
                tg.start_soon(post, 40)
                tg.start_soon(post, 30)
    for steps, body in answers.items():
        data = [json.loads(line[5:]) for line in body.splitlines() if line.startswith("data:")]
        progress = [m["params"] for m in data if m.get("method") == "notifications/progress"]
        assert [p["progressToken"] for p in progress] == ["p"] * steps  # its own, all of them
        assert {p["total"] for p in progress} == {steps}
        assert data[-1]["result"]["content"][0]["text"] == f"did {steps} steps"


@pytest.mark.parametrize("mode", ["auto", "legacy"])
async def test_the_demo_through_the_front_speaks_what_it_speaks_directly(mode: str) -> None:
    """Whatever era the demo speaks (the handshake, or 2026-07-28 too), the SDK client gets
    the same through the front as over stdio."""
    params = StdioServerParameters(command=DEMO[0], args=DEMO[1:], cwd=str(ROOT))

    async def add(server: Any) -> tuple[str, str]:
        with anyio.fail_after(60):
            async with Client(server, mode=mode) as client:
                added = await client.call_tool("add", {"a": 2, "b": 40})
                return client.protocol_version, added.content[0].model_dump()["text"]

    direct = await add(params)
    with listening_proxy("--no-attach", "--", *DEMO) as (_p, url):
        through = await add(url)
    assert through == direct
