"""``mcp-inspect --cli`` over HTTP, run in the test process (once as a subprocess, end to
end: ``test_streamable_sse_mode_auto``) against real servers: official-SDK servers
under uvicorn (Streamable HTTP in SSE and JSON modes, legacy HTTP+SSE detected and
forced), config files with url entries, headers, recording without the token, and
scripted servers for every documented failure exit code."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from cli_inprocess import cli_inprocess_async
from cli_runner import cli_async
from servers.http_scripted import (
    Conn,
    ExpiringSessions,
    Request,
    ScriptedServer,
    answer_basics,
    ok,
)
from servers.http_support import dead_port

from inspector.commands.failures import ExitCode

pytestmark = pytest.mark.slow  # end to end: see pyproject's markers

TOOLS = ["--cli", "--method", "tools/list"]
ADD = [
    "--cli",
    "--method",
    "tools/call",
    "--tool-name",
    "add",
    "--tool-arg",
    "a=40",
    "--tool-arg",
    "b=2",
]


class Done:
    def __init__(self, code: int, stdout: str, stderr: str) -> None:
        self.code = code
        self.stdout = stdout
        self.stderr = stderr

    def error(self) -> dict[str, Any]:
        """The one JSON error line on stderr (and nothing on stdout)."""
        assert self.stdout == "", self.stdout
        lines = self.stderr.strip().splitlines()
        assert len(lines) == 1, self.stderr
        error: dict[str, Any] = json.loads(lines[0])["error"]
        assert error["exitCode"] == self.code
        return error

    def result(self) -> Any:
        assert self.code == 0, self.stderr
        return json.loads(self.stdout)


async def cli(*args: str, timeout: float = 60) -> Done:
    """Run the CLI in this process without blocking the event loop (scripted servers
    live in it)."""
    done = await cli_inprocess_async(*args, timeout=timeout)
    return Done(done.returncode, done.stdout, done.stderr)


async def cli_process(*args: str, timeout: float = 60) -> Done:
    """:func:`cli` as a child process: ``python -m inspector ...``, end to end."""
    done = await cli_async(*args, timeout=timeout)
    return Done(done.returncode, done.stdout, done.stderr)


# the worker's shared servers (conftest): each run opens its own session


@pytest.fixture
def sdk_sse(sdk_sse_base: str) -> str:
    return sdk_sse_base


@pytest.fixture
def sdk_json(sdk_json_base: str) -> str:
    return sdk_json_base


@pytest.fixture
def sdk_legacy(sdk_legacy_base: str) -> str:
    return sdk_legacy_base


def tool_names(result: dict[str, Any]) -> set[str]:
    return {t["name"] for t in result["tools"]}


# ------------------------------------------------------------------ official SDK servers


async def test_streamable_sse_mode_auto(sdk_sse: str) -> None:
    listed = await cli_process(*TOOLS, sdk_sse + "/mcp")
    assert {"add", "progress_steps"} <= tool_names(listed.result())
    done = await cli(*ADD, sdk_sse + "/mcp")
    assert done.result()["content"][0]["text"] == "42"


async def test_streamable_json_mode_forced_http(sdk_json: str) -> None:
    done = await cli(*ADD, "--transport", "http", sdk_json + "/mcp")
    assert done.result()["content"][0]["text"] == "42"


async def test_legacy_sse_detected_by_fallback(sdk_legacy: str) -> None:
    assert "add" in tool_names((await cli(*TOOLS, sdk_legacy + "/sse")).result())


async def test_legacy_sse_forced(sdk_legacy: str) -> None:
    done = await cli(*ADD, "--transport", "sse", sdk_legacy + "/sse")
    assert done.result()["content"][0]["text"] == "42"


async def test_forced_sse_against_streamable_endpoint_is_an_http_error(sdk_sse: str) -> None:
    done = await cli(*TOOLS, "--transport", "sse", sdk_sse + "/mcp")
    error = done.error()
    assert done.code == ExitCode.HTTP and error["httpStatus"] == 400
    assert "Missing session ID" in error["message"]


async def test_config_file_with_url_entries(sdk_json: str, sdk_legacy: str, tmp_path: Path) -> None:
    config = tmp_path / "mcp.json"
    config.write_text(
        json.dumps(
            {
                "servers": {
                    "remote": {
                        "type": "http",
                        "url": sdk_json + "/mcp",
                        "headers": {"X-Test": "from-config"},
                    },
                    "old": {"type": "sse", "url": sdk_legacy + "/sse"},
                    "plain": {"url": sdk_json + "/mcp"},
                }
            }
        )
    )
    for name in ("remote", "old", "plain"):
        done = await cli(*TOOLS, "--config", str(config), "--server", name)
        assert "add" in tool_names(done.result()), name


async def test_wrong_path_404_then_sse_fallback_404(sdk_sse: str) -> None:
    done = await cli(*TOOLS, sdk_sse + "/nothing")
    error = done.error()
    assert done.code == ExitCode.HTTP and error["httpStatus"] == 404
    assert "HTTP 404" in error["message"] and "falling back to legacy HTTP+SSE" in error["message"]
    assert "Not Found" in error["message"]  # the body's excerpt


async def test_record_redacts_the_bearer_token(sdk_json: str, tmp_path: Path) -> None:
    url = sdk_json + "/mcp"
    redacted, kept = tmp_path / "redacted.jsonl", tmp_path / "kept.jsonl"
    (
        await cli(*TOOLS, "-H", "Authorization: Bearer sekrit", "--record", str(redacted), url)
    ).result()
    (
        await cli(
            *TOOLS, "-H", "Authorization: Bearer sekrit", "--record", str(kept), "--no-redact", url
        )
    ).result()
    text = redacted.read_text()
    lines = [json.loads(line) for line in text.splitlines()]
    assert lines[0]["target"]["headers"]["Authorization"] != "Bearer sekrit"
    posts = [e for e in lines[1:] if e.get("ch") == "http" and e.get("dir") == "out"]
    assert posts and all("Authorization" in e["meta"]["headers"] for e in posts)
    assert "sekrit" not in text
    assert "Bearer sekrit" in kept.read_text()


# ------------------------------------------------------------------ failures, scripted


def answering(
    status: int, body: Any = b"", headers: dict[str, str] | None = None, on: str = "initialize"
) -> Any:
    """A server that answers the POST of ``on`` with ``status`` (and serves the rest)."""

    async def handler(req: Request, conn: Conn) -> None:
        if req.method == "POST" and req.rpc_method == on:
            await conn.respond(status, body, headers)
        elif not await answer_basics(req, conn):
            await conn.respond(200, ok(req, {"tools": []}))

    return handler


async def test_connection_refused() -> None:
    url = f"http://127.0.0.1:{dead_port()}/mcp"
    done = await cli(*TOOLS, url)
    error = done.error()
    assert done.code == ExitCode.CONNECTION and error["kind"] == "connection"
    assert "connection refused" in error["message"] and "is the server running?" in error["message"]


@pytest.mark.parametrize("status", [401, 403])
async def test_auth_needed(status: int) -> None:
    async with ScriptedServer(
        answering(status, "no token", {"WWW-Authenticate": "Bearer"})
    ) as server:
        done = await cli(*TOOLS, server.url)
    error = done.error()
    assert done.code == ExitCode.AUTH and error["kind"] == "auth"
    assert error["httpStatus"] == status and "authorization needed" in error["message"]
    assert error["body"] == "no token"


async def test_header_is_sent_and_unlocks_the_server() -> None:
    async def handler(req: Request, conn: Conn) -> None:
        if req.headers.get("authorization") != "Bearer sekrit":
            await conn.respond(401, "who are you?")
        elif not await answer_basics(req, conn):
            await conn.respond(
                200, ok(req, {"tools": [{"name": "t", "inputSchema": {"type": "object"}}]})
            )

    async with ScriptedServer(handler) as server:
        refused = await cli(*TOOLS, server.url)
        allowed = await cli(*TOOLS, "-H", "Authorization: Bearer sekrit", server.url)
    assert refused.code == ExitCode.AUTH and "who are you?" in refused.error()["message"]
    assert tool_names(allowed.result()) == {"t"}


async def test_server_error_500_with_body() -> None:
    async with ScriptedServer(
        answering(500, "database on fire\n" * 100, on="tools/list")
    ) as server:
        done = await cli(*TOOLS, server.url)
    error = done.error()
    assert done.code == ExitCode.HTTP and error["httpStatus"] == 500
    assert "HTTP 500 Internal Server Error" in error["message"]
    assert "database on fire" in error["message"] and len(error["message"]) < 600
    assert error["body"].startswith("database on fire") and len(error["body"]) <= 300


@pytest.mark.parametrize(("status", "header"), [(406, "Accept"), (415, "Content-Type")])
async def test_rejected_headers_are_named(status: int, header: str) -> None:
    async with ScriptedServer(answering(status, "nope")) as server:
        done = await cli(*TOOLS, server.url)
    error = done.error()
    assert done.code == ExitCode.HTTP and error["httpStatus"] == status
    assert f"our {header} header" in error["message"] and "nope" in error["message"]


async def test_timeout() -> None:
    async def handler(req: Request, conn: Conn) -> None:
        if not await answer_basics(req, conn):
            await conn.hang()

    async with ScriptedServer(handler) as server:
        done = await cli(*TOOLS, "--timeout", "1", server.url)
        cancels = server.posts("notifications/cancelled")
    error = done.error()
    assert done.code == ExitCode.TIMEOUT and error["kind"] == "timeout"
    assert "tools/list: no response within the timeout of 1 s" in error["message"]
    assert cancels  # the server was told


async def test_session_expired() -> None:
    expiring = ExpiringSessions(after=1)  # notifications/initialized passes, tools/list 404s
    async with ScriptedServer(expiring) as server:
        done = await cli(*TOOLS, server.url)
    error = done.error()
    assert done.code == ExitCode.CONNECTION and error["kind"] == "session-expired"
    assert "session expired" in error["message"] and error["httpStatus"] == 404
    assert expiring.expired == ["sess-1"]
