"""OAuth against a server written with the official SDK's server auth
(tests/servers/oauth_sdk_server.py): the CLI as a user runs it, tokens kept on disk,
refresh, step-up, ``auth list|clear``, the loopback listener and a pasted redirect. The
CLI runs in the test process; the first test runs each command as a child process."""

from __future__ import annotations

import json
import os
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import httpx
import pytest
from cli_inprocess import cli_inprocess
from cli_runner import cli as run_cli
from cli_runner import inspector_argv
from paths import ROOT

from inspector.auth.flow import Authorizer
from inspector.auth.person import AuthorizationRequest, NoSteps
from inspector.auth.settings import AuthSettings
from inspector.auth.store import TokenStore
from inspector.engine.client import McpClient
from inspector.engine.session import Session
from inspector.record.reader import read_session
from inspector.replay.plan import build_plan
from inspector.transports.detect import connect_http
from inspector.wire.events import Channel, Direction, WireEvent
from tests.servers.http_support import sdk_server

pytestmark = pytest.mark.slow  # end to end: see pyproject's markers


@pytest.fixture
def server() -> Iterator[str]:
    with sdk_server("3600", script="oauth_sdk_server.py") as base:
        yield f"{base}/mcp"


def cli(
    state: Path,
    *args: str,
    stdin: str | None = None,
    timeout: float = 60,
    process: bool = False,
) -> subprocess.CompletedProcess[str]:
    """The CLI in the test process, or a child process (``process``: end to end, tokens
    handed from one process to the next only through the state folder)."""
    env = {**os.environ, "XDG_STATE_HOME": str(state)}
    env.pop("MCP_CLIENT_SECRET", None)
    run = run_cli if process else cli_inprocess
    return run(*args, env=env, input=stdin if stdin is not None else "", timeout=timeout)


def call(
    state: Path,
    url: str,
    tool: str,
    *flags: str,
    record: Path | None = None,
    process: bool = False,
) -> Any:
    args = ["--cli", "--method", "tools/call", "--tool-name", tool, *flags]
    if record is not None:
        args += ["--record", str(record)]
    return cli(state, *args, url, process=process)


def auth_steps(path: Path) -> list[str]:
    return [
        e.meta["step"]
        for e in read_session(path).events
        if e.channel is Channel.AUTH and e.direction is Direction.OUT and "method" in e.meta
    ]


def notes(path: Path, kind: str) -> list[WireEvent]:
    return [e for e in read_session(path).events if e.meta.get("auth") == kind]


def statuses(path: Path) -> list[int]:
    return [
        e.meta["status"]
        for e in read_session(path).events
        if e.channel is Channel.HTTP and e.direction is Direction.IN and "status" in e.meta
    ]


def test_tokens_are_kept_reused_listed_and_cleared(server: str, tmp_path: Path) -> None:
    first = call(
        tmp_path, server, "whoami", "--auth-follow", record=tmp_path / "1.jsonl", process=True
    )
    assert first.returncode == 0, first.stderr
    assert "hello, authorized client" in first.stdout
    steps = auth_steps(tmp_path / "1.jsonl")
    assert steps[:3] == ["resource metadata", "server metadata", "registration"]
    assert {"authorization", "redirect", "token"} <= set(steps)
    token_file = tmp_path / "mcp-inspect" / "oauth.json"
    assert oct(token_file.stat().st_mode & 0o777) == "0o600"
    stored = json.loads(token_file.read_text())["servers"][server]
    for leaked in (stored["access_token"], stored["refresh_token"]):
        assert leaked not in (tmp_path / "1.jsonl").read_text()
        assert leaked not in first.stdout + first.stderr
    # a second run needs no flow and no flag: the stored token goes with the first request
    # (the handshake era pinned: its standing GET stream must carry the token too)
    second = call(
        tmp_path,
        server,
        "whoami",
        "--protocol-version",
        "2025-11-25",
        record=tmp_path / "2.jsonl",
        process=True,
    )
    assert second.returncode == 0, second.stderr
    assert auth_steps(tmp_path / "2.jsonl") == []
    assert notes(tmp_path / "2.jsonl", "stored")
    assert 401 not in statuses(tmp_path / "2.jsonl")
    gets = [  # the standing GET stream carries the token too (and is let in)
        e
        for e in read_session(tmp_path / "2.jsonl").events
        if e.channel is Channel.HTTP and e.direction is Direction.OUT and e.meta["method"] == "GET"
    ]
    assert gets and gets[0].meta["headers"]["Authorization"] == "«redacted»"
    header = read_session(tmp_path / "2.jsonl").header.target
    assert header["oauth"]["grant"] == "authorization-code"
    listing = cli(tmp_path, "auth", "list", "--json", process=True)
    assert listing.returncode == 0, listing.stderr
    data = json.loads(listing.stdout)
    assert [s["server"] for s in data["servers"]] == [server]
    assert data["servers"][0]["scopes"] == ["mcp:read"] and data["servers"][0]["refreshToken"]
    assert stored["access_token"] not in listing.stdout
    assert stored["refresh_token"] not in listing.stdout
    cleared = cli(tmp_path, "auth", "clear", server, process=True)
    assert cleared.returncode == 0 and "1 token set" in cleared.stdout
    assert cli(tmp_path, "auth", "list", server, process=True).returncode == 1
    # without the token and without a person or --auth-follow: exit 7, naming the way out
    third = call(tmp_path, server, "whoami", process=True)
    assert third.returncode == 7
    error = json.loads(third.stderr.splitlines()[-1])["error"]
    assert error["kind"] == "auth" and "--auth-follow" in error["message"]


def test_refresh_on_401(server: str, tmp_path: Path) -> None:
    assert call(tmp_path, server, "whoami", "--auth-follow").returncode == 0
    assert call(tmp_path, server, "forget_tokens").returncode == 0  # the server drops them
    run = call(tmp_path, server, "whoami", record=tmp_path / "r.jsonl")
    assert run.returncode == 0, run.stderr
    assert 401 in statuses(tmp_path / "r.jsonl")
    # the resource metadata is read again (its authorization server may have changed:
    # SEP-2352), the token endpoint looked up, then a refresh: no new authorization
    assert auth_steps(tmp_path / "r.jsonl") == ["resource metadata", "server metadata", "refresh"]
    refreshed = notes(tmp_path / "r.jsonl", "refresh")
    assert refreshed and "401" in refreshed[0].text()


def test_refresh_before_expiry(server: str, tmp_path: Path) -> None:
    assert call(tmp_path, server, "whoami", "--auth-follow").returncode == 0
    token_file = tmp_path / "mcp-inspect" / "oauth.json"
    data = json.loads(token_file.read_text())
    entry = data["servers"][server]  # an hour later: five seconds left
    entry["obtained_at"], entry["expires_at"] = time.time() - 3595, time.time() + 5
    token_file.write_text(json.dumps(data))
    run = call(tmp_path, server, "whoami", record=tmp_path / "r.jsonl")
    assert run.returncode == 0, run.stderr
    assert auth_steps(tmp_path / "r.jsonl") == ["server metadata", "refresh"]
    assert 401 not in statuses(tmp_path / "r.jsonl")  # refreshed before it was sent
    assert "expires" in notes(tmp_path / "r.jsonl", "refresh")[0].text()
    renewed = json.loads(token_file.read_text())["servers"][server]
    assert renewed["expires_at"] > time.time() + 3000


def test_step_up_on_403_insufficient_scope(server: str, tmp_path: Path) -> None:
    assert call(tmp_path, server, "whoami", "--auth-follow").returncode == 0
    run = cli(
        tmp_path,
        "--cli",
        "--method",
        "tools/call",
        "--tool-name",
        "admin_echo",
        "--tool-arg",
        "text=hi",
        "--auth-follow",
        "--record",
        str(tmp_path / "s.jsonl"),
        server,
    )
    assert run.returncode == 0, run.stderr
    assert "admin: hi" in run.stdout
    assert 403 in statuses(tmp_path / "s.jsonl")
    started = notes(tmp_path / "s.jsonl", "start")
    assert started and started[-1].meta["scopes"] == ["mcp:read", "mcp:admin"]
    assert "step-up" in started[-1].text()
    assert "registration" not in auth_steps(tmp_path / "s.jsonl")  # the same client
    # replay's plan: the call once (not its re-send after the step-up), no OAuth exchange
    plan = build_plan(read_session(tmp_path / "s.jsonl").events)
    calls = [step for step in plan.steps if step.method == "tools/call"]
    assert len(calls) == 1 and calls[0].response is not None
    assert "result" in calls[0].response


def test_pasted_redirect(server: str, tmp_path: Path) -> None:
    """--auth-paste: the person's browser is elsewhere; the test plays it and pastes."""
    env = {**os.environ, "XDG_STATE_HOME": str(tmp_path)}
    args = inspector_argv("--cli", "--method", "tools/list", "--auth-paste")
    proc = subprocess.Popen(
        [*args, server],
        env=env,
        cwd=ROOT,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert proc.stderr is not None and proc.stdin is not None
        url = ""
        for _ in range(200):
            line = proc.stderr.readline()
            if line.strip().startswith("http"):
                url = line.strip()
                break
        assert "/authorize?" in url
        answer = httpx.get(url, follow_redirects=False)  # the browser, without the loopback
        assert answer.status_code in (302, 307)
        proc.stdin.write("not a url\n" + answer.headers["location"] + "\n")
        proc.stdin.flush()
        out, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait(5)
    assert proc.returncode == 0, err
    assert "whoami" in out
    assert "paste the whole URL again" in err


async def test_loopback_listener_flow_with_a_browser(server: str) -> None:
    """The default flow: a person opens the URL; the redirect reaches the loopback listener,
    which is open only during the flow."""
    opened: list[str] = []

    class Browser(NoSteps):
        can_prompt = True

        async def obtain_redirect(self, request: AuthorizationRequest) -> dict[str, str]:
            opened.append(request.url)
            async with httpx.AsyncClient(follow_redirects=True) as browser:
                page = await browser.get(request.url)
            assert page.status_code == 200 and "Authorization received" in page.text
            return await request.listener()

    auth = Authorizer(server, AuthSettings(store=False), TokenStore(None), Browser())
    events: list[WireEvent] = []
    try:
        transport = connect_http(server, auth=auth)
        with anyio.fail_after(30):
            async with Session(transport) as session:
                session.add_observer(events.append)
                await session.initialize()
                tools = await McpClient(session).list_tools()
    finally:
        await auth.aclose()
    assert {t["name"] for t in tools} >= {"whoami", "admin_echo"}
    assert len(opened) == 1
    # the person's wait (each OAuth exchange holds the timeouts too, for its own length)
    holds = [e.meta["hold"] for e in events if "hold" in e.meta and e.meta.get("auth")]
    assert holds == [True, False]  # no request timeout ran while the person was away
    redirect = opened[0]
    port = httpx.URL(httpx.URL(redirect).params["redirect_uri"]).port
    with pytest.raises(httpx.ConnectError):  # closed after the flow
        httpx.get(f"http://127.0.0.1:{port}/callback")


def test_legacy_sse_server_gets_the_token_on_its_stream(tmp_path: Path) -> None:
    """The 2024-11-05 HTTP+SSE transport: the GET stream and every POST carry the token."""
    with sdk_server("sse", script="oauth_sdk_server.py") as base:
        url = f"{base}/sse"
        run = cli(
            tmp_path,
            "--cli",
            "--transport",
            "sse",
            "--method",
            "tools/list",
            "--auth-follow",
            "--record",
            str(tmp_path / "sse.jsonl"),
            url,
        )
    assert run.returncode == 0, run.stderr
    assert "whoami" in run.stdout
    events = read_session(tmp_path / "sse.jsonl").events
    requests = [e for e in events if e.channel is Channel.HTTP and e.direction is Direction.OUT]
    with_token = [e for e in requests if e.meta["headers"].get("Authorization")]
    assert any(e.meta["method"] == "GET" for e in with_token)  # the SSE stream, again
    assert any(e.meta["method"] == "POST" for e in with_token)
    assert all(e.meta["headers"]["Authorization"] == "«redacted»" for e in with_token)
    assert "token" in auth_steps(tmp_path / "sse.jsonl")


def test_a_token_the_server_echoes_is_kept_out_of_the_session_file(
    server: str, tmp_path: Path
) -> None:
    """OAuth events are masked at the source; a token elsewhere (a tool's answer) is
    redacted by the recorder, which the authorizer tells every token it holds."""
    run = call(tmp_path, server, "echo_token", "--auth-follow", record=tmp_path / "e.jsonl")
    assert run.returncode == 0, run.stderr
    token = json.loads((tmp_path / "mcp-inspect" / "oauth.json").read_text())["servers"][server]
    assert f"you sent {token['access_token']}" in run.stdout  # the answer, as it came
    recorded = (tmp_path / "e.jsonl").read_text()
    assert "you sent «redacted»" in recorded
    assert token["access_token"] not in recorded and token["refresh_token"] not in recorded
    again = call(tmp_path, server, "echo_token", record=tmp_path / "f.jsonl")  # a stored token
    assert again.returncode == 0, again.stderr
    assert token["access_token"] not in (tmp_path / "f.jsonl").read_text()
