"""``mcp-inspect proxy --listen 127.0.0.1:PORT``: a Streamable HTTP front on the loopback,
checked against DNS rebinding, with hosts that are not ours."""

from __future__ import annotations

import json
import socket
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import httpx
import pytest
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp.client.streamable_http import streamable_http_client
from paths import DEMO, PY, ROOT, SERVERS
from processes import alive
from proxy_support import (
    INIT,
    events,
    inspector_cli,
    inspector_on,
    listening_proxy,
    runtime_folder,
    wait_for_proxy,
    wait_until,
)

from inspector.engine.client import McpClient
from inspector.proxy.loopback import host_allowed, origin_allowed, parse_listen
from inspector.wire.events import WireEvent
from inspector.wire.transport import TransportError
from tests.everything import everything_command
from tests.npm_packages import NODE, bin_entry, npm_env

CONFORMANCE = "@modelcontextprotocol/conformance"
CONFORMANCE_VERSION = "0.1.16"  # pinned: its scenarios change between releases
SCENARIO = "dns-rebinding-protection"
JSON = "application/json"
DUMP: dict[str, Any] = {"by_alias": True, "exclude_none": True, "mode": "json"}


@pytest.fixture
def runtime() -> Iterator[Path]:
    with runtime_folder() as folder:
        yield folder


def test_listen_is_loopback_only() -> None:
    assert parse_listen("127.0.0.1:8808") == ("127.0.0.1", 8808)
    assert parse_listen("localhost:0") == ("127.0.0.1", 0)
    assert parse_listen("[::1]:9") == ("::1", 9)
    assert parse_listen(":7") == ("127.0.0.1", 7)
    for bad in ("0.0.0.0:8808", "192.168.1.2:80", "example.com:80", "8808", "127.0.0.1:x"):
        with pytest.raises(ValueError):
            parse_listen(bad)


def test_host_and_origin_checks() -> None:
    assert host_allowed("127.0.0.1:8808", 8808)
    assert host_allowed("localhost:8808", 8808)
    assert host_allowed("[::1]:8808", 8808)
    assert host_allowed("localhost", 8808)
    assert not host_allowed("evil.example.com", 8808)
    assert not host_allowed("evil.example.com:8808", 8808)
    assert not host_allowed("127.0.0.1:9999", 8808)
    assert not host_allowed(None, 8808)
    assert origin_allowed(None)
    assert origin_allowed("http://localhost:6274")
    assert origin_allowed("http://127.0.0.1")
    assert not origin_allowed("http://evil.example.com")
    assert not origin_allowed("null")


@pytest.mark.slow
def test_the_conformance_suites_dns_rebinding_scenario() -> None:
    suite = bin_entry(CONFORMANCE, CONFORMANCE_VERSION, "conformance")
    with listening_proxy("--no-attach", "--", *DEMO) as (_proc, url):
        done = subprocess.run(
            [
                str(NODE),
                str(suite),
                "server",
                "--url",
                url,
                "--scenario",
                "dns-rebinding-protection",
            ],
            capture_output=True,
            text=True,
            timeout=180,
            env=npm_env(),
            check=False,
        )
    output = done.stdout + done.stderr
    assert done.returncode == 0, output
    assert "Passed: 2/2" in output


def test_rebinding_is_refused_before_anything_happens(tmp_path: Path) -> None:
    record = tmp_path / "p.jsonl"
    with listening_proxy("--no-attach", "--record", str(record), "--", *DEMO) as (_proc, url):
        port = httpx.URL(url).port
        with httpx.Client(timeout=30) as client:
            bad_host = client.post(url, json=INIT, headers={"Host": f"evil.example.com:{port}"})
            bad_origin = client.post(url, json=INIT, headers={"Origin": "http://evil.example.com"})
            good = client.post(
                url, json=INIT, headers={"Accept": "application/json, text/event-stream"}
            )
    assert bad_host.status_code == 421
    assert bad_origin.status_code == 403
    assert good.status_code == 200 and "mcp-session-id" in good.headers
    recorded = events(record)
    notes = [e["raw"] for e in recorded if e["dir"] == "local"]
    assert sum("is not the loopback" in n for n in notes) == 2
    started = [e for e in recorded if "started pid" in e["raw"]]
    assert len(started) == 1  # only the good request started a server


def test_what_the_front_refuses_is_on_the_wire(tmp_path: Path) -> None:
    """A host's request the front answers itself (a 2026-07-28 era probe before any
    session, a wrong Content-Type, an unknown session, a body that is not JSON, a request
    it cannot read) never
    reaches a server, but the recording says what came and what was answered."""
    record = tmp_path / "p.jsonl"
    probe = {"jsonrpc": "2.0", "id": 1, "method": "server/discover", "params": {}}
    with listening_proxy("--no-attach", "--record", str(record), "--", *DEMO) as (_proc, url):
        with httpx.Client(timeout=30) as client:
            refused = client.post(url, json=probe)
            wrong_type = client.post(url, content=b"{}", headers={"Content-Type": "text/plain"})
            unknown = client.post(url, json=probe, headers={"Mcp-Session-Id": "nope"})
            not_json = client.post(
                url, content=b'{"jsonrpc": "2.0", "id": 1,', headers={"Content-Type": JSON}
            )
        target = httpx.URL(url)
        with socket.create_connection((target.host, target.port or 80), timeout=30) as raw:
            raw.sendall(b"NOT HTTP\r\n\r\n")
            unreadable = raw.recv(1024)
    assert [refused.status_code, wrong_type.status_code, unknown.status_code] == [400, 415, 404]
    assert not_json.status_code == 400
    assert not_json.json()["error"]["code"] == -32700  # a JSON-RPC parse error, as the spec says
    assert unreadable.startswith(b"HTTP/1.1 400")
    notes = [e["raw"] for e in events(record) if e["dir"] == "local"]
    said = [n for n in notes if n.startswith("answered ")]
    assert said[0].startswith(
        'answered 400 to POST /mcp {"jsonrpc":"2.0","id":1,"method":"server/discover"'
    )
    assert said[0].endswith("send initialize first")
    # refused on its head: the body is never read (a huge one would cost memory for nothing)
    assert said[1].startswith("answered 415 to POST /mcp (its body, 2 bytes, not read)")
    assert said[2].startswith("answered 404 to POST /mcp (its body")
    assert said[2].endswith("initialize again")
    assert said[3].startswith('answered 400 to POST /mcp {"jsonrpc": "2.0", "id": 1,: not JSON')
    assert said[4].startswith("answered 400 to an unreadable request: not an HTTP/1.x request line")
    assert not [e for e in events(record) if "started pid" in e["raw"]]  # no server for any


def server(which: str) -> list[str]:
    if which == "sdk":
        return [PY, str(SERVERS / "sdk_stdio_server.py")]
    command, args = everything_command()
    return [command, *args]


async def exercise(session: ClientSession, which: str) -> dict[str, Any]:
    tool = "add" if which == "sdk" else "get-sum"
    init = await session.initialize()
    tools = await session.list_tools()
    called = await session.call_tool(tool, {"a": 2, "b": 40})
    return {
        "server": init.server_info.model_dump(**DUMP),
        "tools": tools.model_dump(**DUMP),
        "call": called.model_dump(**DUMP),
    }


@pytest.mark.slow
@pytest.mark.parametrize("which", ["sdk", "everything"])
async def test_the_sdk_client_over_http_gets_what_it_gets_directly(which: str) -> None:
    command = server(which)
    params = StdioServerParameters(command=command[0], args=command[1:], cwd=str(ROOT))
    with anyio.fail_after(90):
        async with stdio_client(params) as (read, write), ClientSession(read, write) as s:
            direct = await exercise(s, which)
        with listening_proxy("--no-attach", "--", *command) as (_proc, url):
            async with (
                streamable_http_client(url) as (read, write),
                ClientSession(read, write) as s,
            ):
                through = await exercise(s, which)
    assert through == direct


@pytest.mark.slow
@pytest.mark.parametrize("which", ["sdk", "everything"])
def test_the_official_inspector_cli_over_http(which: str, tmp_path: Path) -> None:
    tool = "add" if which == "sdk" else "get-sum"
    call = ["--method", "tools/call", "--tool-name", tool, "--tool-arg", "a=2"]
    call += ["--tool-arg", "b=40"]
    direct = inspector_cli(tmp_path, *call, "--", *server(which))
    with listening_proxy("--no-attach", "--", *server(which)) as (_proc, url):
        through = inspector_cli(tmp_path, *call, "--transport", "http", url)
    assert through == direct


async def test_sessions_get_their_own_server_and_delete_ends_it(tmp_path: Path) -> None:
    record = tmp_path / "p.jsonl"
    with listening_proxy("--no-attach", "--record", str(record), "--", *DEMO) as (_proc, url):
        headers = {"Accept": "application/json, text/event-stream"}
        async with httpx.AsyncClient(timeout=30) as client:
            one = await client.post(url, json=INIT, headers=headers)
            two = await client.post(url, json=INIT, headers=headers)
            sid_one, sid_two = one.headers["mcp-session-id"], two.headers["mcp-session-id"]
            assert sid_one != sid_two
            pids = [e["meta"]["pid"] for e in events(record) if "pid" in e.get("meta", {})]
            assert len(pids) == 2
            gone = await client.delete(url, headers={"Mcp-Session-Id": sid_one})
            assert gone.status_code == 200
            wait_until(lambda: not alive(pids[0]), what="the first session's server to stop")
            assert alive(pids[1])
            again = await client.post(
                url,
                json={"jsonrpc": "2.0", "id": 2, "method": "ping"},
                headers={**headers, "Mcp-Session-Id": sid_one},
            )
            assert again.status_code == 404
            ping = await client.post(
                url,
                json={"jsonrpc": "2.0", "id": 2, "method": "ping"},
                headers={"Accept": "application/json", "Mcp-Session-Id": sid_two},
            )
            assert ping.status_code == 200 and ping.json()["id"] == 2
    wait_until(lambda: not alive(pids[1]), what="the proxy's stop to end the second server")


async def test_an_inspector_attached_to_an_http_front(runtime: Path) -> None:
    seen: list[WireEvent] = []
    with listening_proxy("--name", "front", "--", *DEMO, runtime=runtime) as (_proc, url):
        async with (
            streamable_http_client(url) as (read, write),
            ClientSession(read, write) as host,
        ):
            await host.initialize()
            path = await wait_for_proxy("front")
            async with inspector_on(path, seen) as inspector:
                client = McpClient(inspector)
                mine: dict[int, str] = {}
                theirs: dict[int, str] = {}

                async def inspector_calls(n: int) -> None:
                    mine[n] = json.dumps(await client.call_tool("add", {"a": n, "b": 1000}))

                async def host_calls(n: int) -> None:
                    result = await host.call_tool("add", {"a": n, "b": 100})
                    theirs[n] = json.dumps(result.model_dump(**DUMP))

                async with anyio.create_task_group() as tg:  # both at once
                    for n in range(5):
                        tg.start_soon(inspector_calls, n)
                        tg.start_soon(host_calls, n)
            for n in range(5):
                assert f"{n} + 1000 = {n + 1000}" in mine[n]
                assert f"{n} + 100 = {n + 100}" in theirs[n]
    assert any(e.meta.get("observed") and e.meta.get("side") == "host" for e in seen)


async def test_attaching_before_any_host_says_what_to_do(runtime: Path) -> None:
    """An HTTP front with no host session has nothing to join: attach says so, and where
    the host should connect (it said "the proxy went away" while the proxy ran on)."""
    with listening_proxy("--name", "empty", "--", *DEMO, runtime=runtime) as (proc, url):
        path = await wait_for_proxy("empty")
        with pytest.raises(TransportError) as caught:
            async with inspector_on(path, []):
                pass
        assert proc.poll() is None  # the proxy is still there
    message = str(caught.value)
    assert "no host session to join" in message and url in message
    assert "attach again" in message


@pytest.mark.slow
async def test_an_idle_session_ends_and_its_server_stops(tmp_path: Path) -> None:
    record = tmp_path / "p.jsonl"
    args = ("--no-attach", "--idle-timeout", "2", "--record", str(record), "--", *DEMO)
    with listening_proxy(*args) as (_proc, url):
        headers = {"Accept": "application/json, text/event-stream"}
        async with httpx.AsyncClient(timeout=30) as client:
            idle = await client.post(url, json=INIT, headers=headers)
            busy = await client.post(url, json=INIT, headers=headers)
            pids = [e["meta"]["pid"] for e in events(record) if "pid" in e.get("meta", {})]
            ping = {"jsonrpc": "2.0", "id": 2, "method": "ping"}
            busy_headers = {
                "Accept": "application/json",
                "Mcp-Session-Id": busy.headers["mcp-session-id"],
            }
            # the busy host keeps asking; the idle one says nothing for longer than 2 s
            for _ in range(10):
                answer = await client.post(url, json=ping, headers=busy_headers)
                assert answer.status_code == 200
                await anyio.sleep(0.3)
            wait_until(lambda: not alive(pids[0]), what="the idle session's server to stop")
            assert alive(pids[1])
            late = await client.post(
                url,
                json=ping,
                headers={**headers, "Mcp-Session-Id": idle.headers["mcp-session-id"]},
            )
            assert late.status_code == 404  # initialize again
    notes = [e["raw"] for e in events(record) if e["ch"] == "system"]
    assert any("host session 1: no request for 2 s" in n for n in notes)
    assert not any("host session 2: no request" in n for n in notes)


def test_idle_timeout_needs_listen() -> None:
    done = subprocess.run(
        [PY, "-m", "inspector", "proxy", "--idle-timeout", "5", "--", *DEMO],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=str(ROOT),
        stdin=subprocess.DEVNULL,
        check=False,
    )
    assert done.returncode == 2 and "--idle-timeout goes with --listen" in done.stderr


@pytest.mark.parametrize("sig", ["SIGTERM", "SIGKILL"])
async def test_the_proxy_killed_leaves_no_server_and_a_full_recording(
    sig: str, tmp_path: Path
) -> None:
    import signal

    record = tmp_path / "p.jsonl"
    with listening_proxy("--no-attach", "--record", str(record), "--", *DEMO) as (proc, url):
        headers = {"Accept": "application/json"}
        async with httpx.AsyncClient(timeout=30) as client:
            opened = await client.post(url, json=INIT, headers=headers)
            sid = opened.headers["mcp-session-id"]
            answers = []
            for n in range(5):
                call = {"name": "add", "arguments": {"a": n, "b": 1}}
                body = {"jsonrpc": "2.0", "id": n + 1, "method": "tools/call", "params": call}
                answer = await client.post(
                    url, json=body, headers={**headers, "Mcp-Session-Id": sid}
                )
                answers.append(answer.json()["id"])
            pid = next(e["meta"]["pid"] for e in events(record) if "pid" in e.get("meta", {}))
            proc.send_signal(getattr(signal, sig))
            proc.wait(30)
            wait_until(lambda: not alive(pid), what="the server to stop with its proxy")
            with pytest.raises(httpx.TransportError):
                await client.post(url, json=INIT, headers=headers)
    recorded = events(record)  # readable to its last line
    got = {
        json.loads(e["raw"]).get("id") for e in recorded if e["dir"] == "in" and e["ch"] == "stdout"
    }
    assert set(answers) <= got and answers == [1, 2, 3, 4, 5]
    if sig == "SIGTERM":
        notes = [e["raw"] for e in recorded if e["ch"] == "system"]
        assert any("SIGTERM received" in n for n in notes)
        assert any("host session 1 ended" in n for n in notes)


async def test_a_killed_server_ends_its_host_session_only(tmp_path: Path) -> None:
    import os
    import signal

    record = tmp_path / "p.jsonl"
    with listening_proxy("--no-attach", "--record", str(record), "--", *DEMO) as (_proc, url):
        headers = {"Accept": "application/json"}
        async with httpx.AsyncClient(timeout=30) as client:
            first = await client.post(url, json=INIT, headers=headers)
            pid = next(e["meta"]["pid"] for e in events(record) if "pid" in e.get("meta", {}))
            os.kill(pid, signal.SIGKILL)
            sid = first.headers["mcp-session-id"]
            ping = {"jsonrpc": "2.0", "id": 2, "method": "ping"}

            async def ended() -> bool:
                answer = await client.post(
                    url, json=ping, headers={**headers, "Mcp-Session-Id": sid}
                )
                return answer.status_code == 404

            with anyio.fail_after(30):
                while not await ended():
                    await anyio.sleep(0.1)
            # the proxy carries on: a new host session gets a new server
            again = await client.post(url, json=INIT, headers=headers)
            assert again.status_code == 200 and again.json()["result"]["serverInfo"]
    notes = [e["raw"] for e in events(record) if e["ch"] == "system"]
    assert any("the server's side ended" in n for n in notes), notes
    assert not any("the host closed its side" in n for n in notes), notes


async def test_a_closed_get_stream_loses_no_server_message(tmp_path: Path) -> None:
    """The host closes its GET stream; a notification the server sends after that is not
    written into the dead stream (where the host would never see it): the front noticed
    the close at once, so it goes on the next open stream, the POST that caused it."""
    record = tmp_path / "p.jsonl"
    sse = {"Accept": "application/json, text/event-stream"}
    with listening_proxy("--no-attach", "--record", str(record), "--", *DEMO) as (_proc, url):
        async with httpx.AsyncClient(timeout=30) as client:
            opened = await client.post(url, json=INIT, headers=sse)
            session = {**sse, "Mcp-Session-Id": opened.headers["mcp-session-id"]}
            initialized = {"jsonrpc": "2.0", "method": "notifications/initialized"}
            assert (await client.post(url, json=initialized, headers=session)).status_code == 202
            get_headers = {**session, "Accept": "text/event-stream"}
            async with client.stream("GET", url, headers=get_headers) as standing:
                assert standing.status_code == 200
            ping = {"jsonrpc": "2.0", "id": 2, "method": "ping"}
            assert (await client.post(url, json=ping, headers=session)).status_code == 200
            toggle = {
                "jsonrpc": "2.0",
                "id": 3,
                "method": "tools/call",
                "params": {"name": "toggle_extra_tool", "arguments": {}},
            }
            answer = await client.post(url, json=toggle, headers=session)
    got = [json.loads(line[5:]) for line in answer.text.splitlines() if line.startswith("data:")]
    assert [m.get("method") or m.get("id") for m in got] == [
        "notifications/tools/list_changed",
        "notifications/prompts/list_changed",
        3,
    ]


async def test_a_request_larger_than_the_read_buffer_passes(tmp_path: Path) -> None:
    """A host's POST of several MB (the front pauses reading past 1 MB buffered): the
    whole body must still be read, passed on and answered, not wait forever."""
    big = "x" * (3 << 20)
    sse = {"Accept": "application/json, text/event-stream"}
    with listening_proxy("--no-attach", "--", *DEMO) as (_proc, url):
        async with httpx.AsyncClient(timeout=60) as client:
            opened = await client.post(url, json=INIT, headers=sse)
            session = {
                "Accept": "application/json",
                "Mcp-Session-Id": opened.headers["mcp-session-id"],
            }
            echo = {
                "jsonrpc": "2.0",
                "id": 2,
                "method": "tools/call",
                "params": {"name": "echo", "arguments": {"message": big}},
            }
            with anyio.fail_after(60):
                answer = await client.post(url, json=echo, headers=session)
    assert answer.status_code == 200
    assert answer.json()["result"]["content"][0]["text"] == big


@pytest.mark.parametrize("attempt", range(3))
def test_the_port_takes_connections_as_soon_as_listening_is_said(attempt: int) -> None:
    """A script connects on the ``listening on`` line: the port must be listening already
    (it was bound but not yet accepting, and a connect right away was refused)."""
    with listening_proxy("--", *DEMO) as (_proc, url):
        port = int(url.rsplit(":", 1)[1].split("/", 1)[0])
        with socket.create_connection(("127.0.0.1", port), timeout=5):
            pass


def _post_raw(raw: socket.socket, host: str, body: dict[str, Any], sid: str = "") -> None:
    data = json.dumps(body).encode()
    head = (
        f"POST /mcp HTTP/1.1\r\nHost: {host}\r\nContent-Type: {JSON}\r\n"
        f"Accept: {JSON}, text/event-stream\r\nContent-Length: {len(data)}\r\n"
        + (f"Mcp-Session-Id: {sid}\r\nMCP-Protocol-Version: 2025-11-25\r\n" if sid else "")
        + "\r\n"
    )
    raw.sendall(head.encode() + data)


def _until_end(raw: socket.socket, got: bytes) -> bytes:
    while not got.endswith(b"0\r\n\r\n"):
        more = raw.recv(65536)
        assert more, got
        got += more
    return got


def test_a_quick_answer_is_one_write_and_a_slow_one_gets_its_head_first() -> None:
    """A POST answered within the head's wait: head, event and end reach the host in one
    write (one read for it, one send for the proxy); a slow call still gets its head at
    once (a host may time its wait for it), the answer when it comes."""
    call = {"jsonrpc": "2.0", "id": 2, "method": "tools/call"}
    with listening_proxy("--no-attach", "--", *DEMO) as (_proc, url):
        target = httpx.URL(url)
        host = f"{target.host}:{target.port}"
        with socket.create_connection((target.host, target.port or 80), timeout=30) as raw:
            _post_raw(raw, host, INIT)
            opened = _until_end(raw, raw.recv(65536))
            sid = opened.lower().split(b"mcp-session-id: ", 1)[1].split(b"\r\n", 1)[0].decode()
            note = {"jsonrpc": "2.0", "method": "notifications/initialized"}
            _post_raw(raw, host, note, sid)
            assert raw.recv(65536).startswith(b"HTTP/1.1 202")

            _post_raw(
                raw, host, {**call, "params": {"name": "add", "arguments": {"a": 2, "b": 40}}}, sid
            )
            first = raw.recv(65536)
            assert first.startswith(b"HTTP/1.1 200") and first.endswith(b"0\r\n\r\n"), first
            assert b'"id":2' in first.replace(b" ", b"") and b"42" in first

            slow = {"name": "slow_count", "arguments": {"seconds": 1, "steps": 1}}
            _post_raw(raw, host, {**call, "id": 3, "params": slow}, sid)
            head = raw.recv(65536)
            assert head.startswith(b"HTTP/1.1 200") and b"text/event-stream" in head
            assert b"Counted to" not in head  # the head came before the answer
            assert b"Counted to" in _until_end(raw, head)
