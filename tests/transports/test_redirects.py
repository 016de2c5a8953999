"""Issue 11.5: redirects. A redirect to another origin is refused unless
``--follow-redirects``, with a message naming both origins; same-origin ones are followed
and shown; credential headers never reach another origin; a redirect that turns the
POST into a GET is reported with the URL and method that actually answered."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from cli_inprocess import cli_inprocess_async
from servers.http_scripted import Conn, Handler, Request, ScriptedServer, answer_basics, ok

from inspector.commands.failures import ExitCode

SECRET_HEADERS = ["-H", "Authorization: Bearer SECRET-A1", "-H", "X-Api-Key: KEY-A2"]


async def cli(*args: str) -> tuple[int, str, str]:
    """``--cli --method tools/list ARGS`` run in the test process."""
    done = await cli_inprocess_async("--cli", "--method", "tools/list", *args)
    return done.returncode, done.stdout, done.stderr


async def mcp_server(req: Request, conn: Conn) -> None:
    """A working server: one tool."""
    if await answer_basics(req, conn):
        return
    await conn.respond(200, ok(req, {"tools": [{"name": "there", "inputSchema": {}}]}))


def redirecting(status: int, location: str) -> Handler:
    async def handler(req: Request, conn: Conn) -> None:
        await conn.respond(status, "", {"Location": location})

    return handler


def error_of(stderr: str) -> dict[str, object]:
    return json.loads(stderr.strip().splitlines()[-1])["error"]  # type: ignore[no-any-return]


async def test_cross_origin_redirect_is_refused_and_names_both_origins(tmp_path: Path) -> None:
    record = tmp_path / "s.jsonl"
    async with (
        ScriptedServer(mcp_server) as other,
        ScriptedServer(redirecting(307, other.url)) as first,
    ):
        code, _, stderr = await cli("--record", str(record), *SECRET_HEADERS, first.url)
    assert code == ExitCode.HTTP, stderr
    message = str(error_of(stderr)["message"])
    assert first.base in message and other.base in message and "--follow-redirects" in message
    assert other.requests == []  # nothing, credentials least of all, went there
    events = [json.loads(line) for line in record.read_text().splitlines()[1:]]
    hops = [e for e in events if e.get("meta", {}).get("refused") == "cross-origin"]
    assert hops and hops[0]["meta"]["status"] == 307  # the log shows the redirect


@pytest.mark.slow
async def test_follow_redirects_goes_there_without_credentials() -> None:
    async with (
        ScriptedServer(mcp_server) as other,
        ScriptedServer(redirecting(307, other.url)) as first,
    ):
        code, stdout, stderr = await cli("--follow-redirects", *SECRET_HEADERS, first.url)
    assert code == 0, stderr
    assert json.loads(stdout)["tools"][0]["name"] == "there"
    assert first.requests and first.requests[0].headers["authorization"] == "Bearer SECRET-A1"
    assert other.requests
    for request in other.requests:
        assert "authorization" not in request.headers
        assert "x-api-key" not in request.headers
        assert "mcp-session-id" not in request.headers


@pytest.mark.slow
async def test_same_origin_redirect_is_followed_and_shown(tmp_path: Path) -> None:
    record = tmp_path / "s.jsonl"

    async def handler(req: Request, conn: Conn) -> None:
        if req.path == "/old":
            await conn.respond(307, "", {"Location": "/mcp"})
        else:
            await mcp_server(req, conn)

    async with ScriptedServer(handler, path="/old") as server:
        code, stdout, stderr = await cli("--record", str(record), *SECRET_HEADERS, server.url)
    assert code == 0, stderr
    assert json.loads(stdout)["tools"][0]["name"] == "there"
    moved = [r for r in server.requests if r.path == "/mcp"]
    assert moved and all(r.headers.get("authorization") == "Bearer SECRET-A1" for r in moved)
    events = [json.loads(line) for line in record.read_text().splitlines()[1:]]
    assert any(e.get("meta", {}).get("status") == 307 for e in events)


@pytest.mark.slow
async def test_302_that_makes_the_post_a_get_names_who_answered() -> None:
    async def handler(req: Request, conn: Conn) -> None:
        if req.path == "/mcp":
            await conn.respond(302, "", {"Location": "/elsewhere"})
        else:
            await conn.respond(405, "GET not here")

    async with ScriptedServer(handler) as server:
        code, _, stderr = await cli("--transport", "http", server.url)
    assert code == ExitCode.HTTP, stderr
    message = str(error_of(stderr)["message"])
    assert f"{server.base}/elsewhere does not accept GET" in message
    assert f"redirected from POST {server.url} by 302, which made it a GET" in message


@pytest.mark.slow
async def test_legacy_sse_stream_redirect_to_another_origin_is_refused() -> None:
    async with (
        ScriptedServer(mcp_server, path="/sse") as other,
        ScriptedServer(redirecting(302, other.url), path="/sse") as first,
    ):
        code, _, stderr = await cli("--transport", "sse", *SECRET_HEADERS, first.url)
    assert code != 0
    message = str(error_of(stderr)["message"])
    assert first.base in message and other.base in message
    assert other.requests == []
