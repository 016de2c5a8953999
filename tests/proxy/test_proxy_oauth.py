"""``mcp-inspect proxy URL`` in front of an OAuth-protected server (the SDK's server auth,
tests/servers/oauth_sdk_server.py): the proxy authorizes headlessly (a host on stdio
cannot), every step of the flow is on the proxy's wire and in its recording with tokens
masked, a stored token is reused, and ``-H`` headers go with every request."""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import httpx
import pytest
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp.client.streamable_http import streamable_http_client
from proxy_support import ROOT, listening_proxy, proxy_argv

from inspector.record.reader import read_session
from inspector.wire.events import Channel, Direction
from tests.servers.http_support import sdk_server

DUMP: dict[str, Any] = {"by_alias": True, "exclude_none": True, "mode": "json"}


@pytest.fixture
def server() -> Iterator[str]:
    with sdk_server("3600", script="oauth_sdk_server.py") as base:
        yield f"{base}/mcp"


def host_params(state: Path, *args: str) -> StdioServerParameters:
    """The proxy as a stdio-only host's config would start it (its own token store)."""
    argv = proxy_argv("--no-attach", *args)
    env = {**os.environ, "XDG_STATE_HOME": str(state)}
    env.pop("MCP_CLIENT_SECRET", None)
    return StdioServerParameters(command=argv[0], args=argv[1:], env=env, cwd=str(ROOT))


async def host_calls(params: StdioServerParameters, errlog: Any = None) -> dict[str, Any]:
    """The official SDK client as the host: list the tools, call two."""
    kwargs = {"errlog": errlog} if errlog is not None else {}
    with anyio.fail_after(90):
        async with (
            stdio_client(params, **kwargs) as (read, write),
            ClientSession(read, write) as session,
        ):
            await session.initialize()
            tools = await session.list_tools()
            hello = await session.call_tool("whoami", {})
            echoed = await session.call_tool("echo_token", {})
    return {
        "tools": sorted(t.name for t in tools.tools),
        "whoami": hello.model_dump(**DUMP)["content"][0]["text"],
        "echo_token": echoed.model_dump(**DUMP)["content"][0]["text"],
    }


def auth_steps(path: Path) -> list[str]:
    return [
        e.meta["step"]
        for e in read_session(path).events
        if e.channel is Channel.AUTH and e.direction is Direction.OUT and "method" in e.meta
    ]


def stored_tokens(state: Path, url: str) -> dict[str, Any]:
    data = json.loads((state / "mcp-inspect" / "oauth.json").read_text())
    servers: dict[str, Any] = data["servers"]
    return dict(servers[url])


@pytest.mark.slow
async def test_the_proxy_authorizes_for_a_stdio_host(server: str, tmp_path: Path) -> None:
    state = tmp_path / "state"
    first = tmp_path / "first.jsonl"
    got = await host_calls(host_params(state, "--record", str(first), "--auth-follow", server))
    assert got["whoami"] == "hello, authorized client"
    assert "whoami" in got["tools"]
    # every step of the flow is on the proxy's wire, in order, before the retried request
    steps = auth_steps(first)
    assert steps[:3] == ["resource metadata", "server metadata", "registration"]
    assert {"authorization", "redirect", "token"} <= set(steps)
    session = read_session(first)
    statuses = [e.meta.get("status") for e in session.events if e.channel is Channel.HTTP]
    assert 401 in statuses
    posts = [
        e
        for e in session.events
        if e.channel is Channel.HTTP and e.direction is Direction.OUT and e.meta["method"] == "POST"
    ]
    assert posts[-1].meta["headers"]["Authorization"] == "«redacted»"
    # the tokens never reach the recording, even the one a careless server echoes back
    tokens = stored_tokens(state, server)
    text = first.read_text()
    for secret in (tokens["access_token"], tokens["refresh_token"]):
        assert secret not in text
    assert got["echo_token"] == f"you sent {tokens['access_token']}"  # the host's own answer
    # the next host session: the stored token goes with the first request, no flow
    second = tmp_path / "second.jsonl"
    again = await host_calls(host_params(state, "--record", str(second), server))
    assert again["whoami"] == "hello, authorized client"
    assert auth_steps(second) == []
    assert 401 not in [e.meta.get("status") for e in read_session(second).events]


@pytest.mark.slow
async def test_a_person_completes_the_authorization_from_the_hosts_log(
    server: str, tmp_path: Path
) -> None:
    """No --auth-follow: the URL goes to stderr (the host's log of the server); a person
    opens it and the browser's redirect reaches the proxy's loopback listener."""
    state = tmp_path / "state"
    record = tmp_path / "p.jsonl"
    log = tmp_path / "host-log.txt"
    params = host_params(state, "--record", str(record), "--auth-timeout", "60", server)

    async def person() -> None:
        with anyio.fail_after(60):
            while not (found := re.search(r"https?://\S+/authorize\?\S+", _read(log))):
                await anyio.sleep(0.1)
        async with httpx.AsyncClient(follow_redirects=True) as browser:
            answer = await browser.get(found.group(0))
        assert answer.status_code == 200, answer.text

    with log.open("w") as errlog:
        async with anyio.create_task_group() as tg:
            tg.start_soon(person)
            got = await host_calls(params, errlog)
    assert got["whoami"] == "hello, authorized client"
    assert "authorization needed" in _read(log)
    assert {"registration", "token"} <= set(auth_steps(record))  # the person did the rest
    assert stored_tokens(state, server)["access_token"] not in record.read_text()


@pytest.mark.slow
async def test_headers_go_with_every_request_and_credentials_are_masked(
    server: str, tmp_path: Path
) -> None:
    state = tmp_path / "state"
    await host_calls(host_params(state, "--no-record", "--auth-follow", server))
    token = stored_tokens(state, server)["access_token"]
    record = tmp_path / "h.jsonl"
    other = tmp_path / "elsewhere"  # no stored token: the header is the only credential
    params = host_params(
        other,
        "--record",
        str(record),
        "-H",
        f"Authorization: Bearer {token}",
        "-H",
        "X-Trace: proxy-test",
        server,
    )
    got = await host_calls(params)
    assert got["whoami"] == "hello, authorized client"
    assert auth_steps(record) == []  # the user's Authorization is sent as it is: no OAuth
    requests = [
        e
        for e in read_session(record).events
        if e.channel is Channel.HTTP and e.direction is Direction.OUT and "headers" in e.meta
    ]
    assert requests and all(e.meta["headers"].get("X-Trace") == "proxy-test" for e in requests)
    assert all(e.meta["headers"]["Authorization"] == "«redacted»" for e in requests)
    assert token not in record.read_text()


@pytest.mark.slow
async def test_an_http_front_authorizes_once_for_every_host_session(
    server: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``--listen`` in front of the OAuth server: the first host session runs the flow,
    the next one uses the token it got."""
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    monkeypatch.delenv("MCP_CLIENT_SECRET", raising=False)
    record = tmp_path / "front.jsonl"
    answers = []
    with listening_proxy("--no-attach", "--record", str(record), "--auth-follow", server) as (
        _proc,
        url,
    ):
        for _ in range(2):
            with anyio.fail_after(90):
                async with (
                    streamable_http_client(url) as (read, write),
                    ClientSession(read, write) as session,
                ):
                    await session.initialize()
                    hello = await session.call_tool("whoami", {})
                    answers.append(hello.model_dump(**DUMP)["content"][0]["text"])
    assert answers == ["hello, authorized client"] * 2
    steps = auth_steps(record)
    assert steps.count("token") == 1  # one flow for both sessions
    assert "registration" in steps


@pytest.mark.slow
async def test_an_authorization_nobody_completes_fails_the_hosts_request(
    server: str, tmp_path: Path
) -> None:
    """Nobody opens the URL: after --auth-timeout the host's initialize gets an error that
    says which step failed and what to do (no hang until the host's own timeout)."""
    params = host_params(tmp_path / "state", "--no-record", "--auth-timeout", "2", server)
    with pytest.raises(BaseException) as failed, anyio.fail_after(60):
        async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
            await session.initialize()
    text = repr(failed.value)
    assert "authorization needed and not obtained" in text and "--auth-timeout" in text


@pytest.mark.parametrize(
    ("flag", "reason"),
    [("--auth-paste", "stdin is the host's"), ("--auth-step", "runs headless")],
)
def test_flags_for_a_person_at_the_terminal_are_refused(flag: str, reason: str) -> None:
    import subprocess

    done = subprocess.run(
        proxy_argv("--no-record", flag, "http://127.0.0.1:9/mcp"),
        capture_output=True,
        text=True,
        timeout=60,
        cwd=str(ROOT),
        stdin=subprocess.DEVNULL,
        check=False,
    )
    assert done.returncode == 2
    assert reason in done.stderr
    assert "Traceback" not in done.stderr


def _read(path: Path) -> str:
    try:
        return path.read_text()
    except OSError:
        return ""
