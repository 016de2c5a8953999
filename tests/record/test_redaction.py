"""Issue 11.1: no secret reaches a session file, in any representation: text, base64
(frames that are not UTF-8), meta, findings, URLs, the header; over stdio, HTTP and the
TUI's default recording. Each test also checks that the secret was on the wire (the same
session recorded with --no-redact holds it), so a test that finds nothing means it."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import anyio
import pytest
from cli_inprocess import cli_inprocess
from leak_check import leaks, raw_b64_count
from paths import PY, ROOT, SERVERS
from servers.http_scripted import Conn, Request, ScriptedServer, answer_basics
from tui_helpers import select_item, wait_for

from inspector.commands.options import make_recorder
from inspector.credentials import credential_name, env_secret
from inspector.record.format import encode_event
from inspector.record.reader import read_session
from inspector.record.redact import REDACTED, Redactor
from inspector.target import Target
from inspector.tui.app import InspectorApp
from inspector.tui.widgets.catalog import Catalog
from inspector.tui.widgets.result_view import ResultView
from inspector.wire.events import Channel, Direction, Finding, WireEvent
from inspector.wire.jsonrpc import make_event

LEAKY = [PY, str(SERVERS / "stdio_leaky.py"), "TOKEN", "OTHER"]
SECRETS = {"TOKEN": "SECRET456", "OTHER": 'q"uo\\te-é-7'}  # one needs JSON escaping


def env_flags() -> list[str]:
    return [flag for name, value in SECRETS.items() for flag in ("-e", f"{name}={value}")]


def leak_call(path: Path, *extra: str) -> None:
    done = cli_inprocess(
        "--cli",
        *env_flags(),
        *extra,
        "--record",
        str(path),
        "--method",
        "tools/call",
        "--tool-name",
        "leak",
        "--",
        *LEAKY,
    )
    assert done.returncode == 0, done.stderr


@pytest.mark.slow
def test_cli_stdio_secrets_redacted_in_every_representation(tmp_path: Path) -> None:
    redacted, kept = tmp_path / "redacted.jsonl", tmp_path / "kept.jsonl"
    leak_call(redacted)
    leak_call(kept, "--no-redact")
    assert raw_b64_count(redacted) >= 2  # the non-UTF-8 stderr and stdout lines
    assert leaks(redacted, list(SECRETS.values())) == []
    found = leaks(kept, list(SECRETS.values()))
    assert any("SECRET456" in f for f in found) and any("te-é-7" in f for f in found)
    header = json.loads(redacted.read_text().splitlines()[0])
    assert header["redacted"] is True and header["target"]["env"]["TOKEN"] == REDACTED
    # the redacted base64 frame still says what it was: only the secret is gone
    assert REDACTED in "".join(
        e.text() for e in read_session(redacted).events if e.channel is Channel.STDERR
    )


@pytest.mark.slow
async def test_tui_default_recording_is_redacted(tmp_path: Path) -> None:
    """The recorder the TUI makes for its default session file, through the real app."""
    path = tmp_path / "tui.jsonl"
    target = Target(command=LEAKY[0], args=LEAKY[1:], env=dict(SECRETS))
    opts = argparse.Namespace(no_record=False, no_redact=False)
    recorder = make_recorder(opts, target, str(path))
    app = InspectorApp(target, recorder=recorder)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_for(pilot, lambda: app.controller is not None and app.controller.connected)
        # the list the user picks from (the controller's catalog reaches it a moment later)
        await wait_for(pilot, lambda: bool(app.query_one(Catalog).items["tools"]))
        await select_item(pilot, "tools", "leak")
        await pilot.press("ctrl+s")
        view = app.query_one(ResultView)
        await wait_for(pilot, lambda: view.outcome is not None and view.outcome.result is not None)
        await pilot.press("q")
    recorder.close()
    assert raw_b64_count(path) >= 2
    assert leaks(path, list(SECRETS.values())) == []


# ------------------------------------------------------------------ HTTP


async def echo_500(req: Request, conn: Conn) -> None:
    """Answers every request but initialize with a 500 whose body is not UTF-8 and
    echoes the request line and the Authorization header, as a debugging proxy might."""
    if await answer_basics(req, conn):
        return
    echo = f"{req.method} {req.path} authorization={req.headers.get('authorization')}"
    await conn.respond(500, b"\xff\xfe proxy error: " + echo.encode())


@pytest.mark.slow
async def test_cli_http_bearer_and_query_secrets_redacted(tmp_path: Path) -> None:
    secrets = ["SECRET789", "QUERYKEY55", "s1gn4ture"]
    async with ScriptedServer(echo_500) as server:
        url = server.url + "?api_key=QUERYKEY55&sig=s1gn4ture&page=2"
        paths = {}
        for name, extra in (("redacted", []), ("kept", ["--no-redact"])):
            paths[name] = tmp_path / f"{name}.jsonl"
            with anyio.fail_after(60):
                done = await anyio.run_process(
                    [
                        PY,
                        "-m",
                        "inspector",
                        "--cli",
                        "--method",
                        "tools/list",
                        "-H",
                        "Authorization: Bearer SECRET789",
                        "--record",
                        str(paths[name]),
                        *extra,
                        url,
                    ],
                    check=False,
                    cwd=ROOT,
                )
            assert done.returncode == 6, done.stderr  # the 500
            # stderr gets the session file's redaction (CI logs keep it); --no-redact both
            assert (b"SECRET789" in done.stderr) == (name == "kept"), done.stderr
    assert raw_b64_count(paths["redacted"]) >= 1
    assert leaks(paths["redacted"], secrets) == []
    assert {s for s in secrets if any(s in f for f in leaks(paths["kept"], secrets))} == set(
        secrets
    )
    text = paths["redacted"].read_text()
    assert f"api_key={REDACTED}" in text and "page=2" in text  # only credentials go


def test_plain_settings_given_with_e_stay_readable(tmp_path: Path) -> None:
    """``-e LEVEL=debug`` must not blank out every "debug" in the session; a value whose
    name says nothing (``DB_PASS=hunter22``) is still treated as a secret."""
    path = tmp_path / "settings.jsonl"
    done = cli_inprocess(
        "--cli",
        *("-e", "LEVEL=debug", "-e", "WORKERS=8", "-e", "DB_PASS=hunter22"),
        *("--record", str(path), "--method", "tools/call", "--tool-name", "leak"),
        *("--", PY, str(SERVERS / "stdio_leaky.py"), "LEVEL", "WORKERS", "DB_PASS"),
    )
    assert done.returncode == 0, done.stderr
    assert leaks(path, ["hunter22"]) == []
    stderr = "".join(e.text() for e in read_session(path).events if e.channel is Channel.STDERR)
    assert "LEVEL=debug" in stderr and "WORKERS=8" in stderr
    header = json.loads(path.read_text().splitlines()[0])
    assert header["target"]["env"]["LEVEL"] == "debug"
    assert header["target"]["env"]["DB_PASS"] == REDACTED


def test_env_secret_rule() -> None:
    for name, value in (("LEVEL", "debug"), ("PORT", "8080"), ("VERBOSE", "true")):
        assert not env_secret(name, value), (name, value)
    for name, value in (("API_KEY", "8080"), ("DB_PASS", "hunter22"), ("X", "sk-live-abc")):
        assert env_secret(name, value), (name, value)


# ------------------------------------------------------------------ the redactor


def test_credential_names() -> None:
    for name in ("api_key", "apiKey", "X-Api-Key", "access_token", "X-Amz-Signature", "code"):
        assert credential_name(name), name
    for name in ("Mcp-Session-Id", "Content-Type", "page", "Last-Event-ID", "WWW-Authenticate"):
        assert not credential_name(name), name
    # PKCE's challenge is public (a hash sent through the browser): the verifier is not
    assert not credential_name("code_challenge") and not credential_name("code_challenge_method")
    assert credential_name("code_verifier")


def test_an_authorization_url_keeps_its_pkce_method_and_s256_elsewhere() -> None:
    redactor = Redactor()
    url = "https://as/authorize?code_challenge=abc123xyz&code_challenge_method=S256&state=s1"
    assert redactor.url_text(url) == url
    metadata = b'{"code_challenge_methods_supported": ["S256"]}'
    assert "S256" in stored(redactor, WireEvent(Direction.IN, Channel.AUTH, metadata))


def stored(redactor: Redactor, event: WireEvent) -> str:
    return encode_event(event, redactor).decode()


def test_oauth_body_fields_json_and_form() -> None:
    redactor = Redactor()
    token = make_event(
        Direction.IN,
        Channel.BODY,
        b'{"access_token": "at-123456", "refresh_token": "rt-654321", "token_type": "Bearer"}',
    )
    line = stored(redactor, token)
    assert "at-123456" not in line and "rt-654321" not in line and "Bearer" in line
    form = WireEvent(
        Direction.OUT,
        Channel.BODY,
        b"grant_type=authorization_code&code=c0de%2Fxyz&code_verifier=verifier-99",
        meta={"content_type": "application/x-www-form-urlencoded"},
    )
    line = stored(redactor, form)
    assert "c0de" not in line and "verifier-99" not in line and "authorization_code" in line
    # learned values go wherever they appear later, decoded too
    later = WireEvent(Direction.LOCAL, Channel.SYSTEM, b"using at-123456 for c0de/xyz")
    assert "at-123456" not in stored(redactor, later) and "c0de/xyz" not in stored(redactor, later)


def test_jsonrpc_messages_are_not_rewritten_by_field_name() -> None:
    call = make_event(
        Direction.OUT,
        Channel.STDIN,
        b'{"jsonrpc":"2.0","id":1,"method":"tools/call",'
        b'"params":{"name":"run","arguments":{"code":"print(12345)"}}}',
    )
    assert "print(12345)" in stored(Redactor(), call)


def test_secret_added_at_run_time_covers_later_events() -> None:
    redactor = Redactor(["early-secret"])
    assert "late-secret" in stored(
        redactor, WireEvent(Direction.IN, Channel.STDERR, b"late-secret")
    )
    redactor.add_secret("late-secret")
    line = stored(redactor, WireEvent(Direction.IN, Channel.STDERR, b"\xffx late-secret"))
    assert "raw_b64" in line and b"late-secret" not in _b64(line)


def test_headers_seen_before_a_secret_is_learned_are_redacted_after() -> None:
    """Header sets are remembered once cleaned (every request repeats them); a secret
    learned later must still come out of the very same headers."""
    redactor = Redactor()
    event = WireEvent(
        Direction.OUT, Channel.HTTP, b"POST /mcp", meta={"headers": {"X-Trace": "tr-77-secret"}}
    )
    assert "tr-77-secret" in stored(redactor, event)
    assert "tr-77-secret" in stored(redactor, event)  # the remembered set, the same answer
    redactor.add_secret("tr-77-secret")
    assert "tr-77-secret" not in stored(redactor, event)
    auth = {"headers": {"Authorization": "Bearer tok-9f8e7d", "X-Trace": "tok-9f8e7d"}}
    for _ in range(2):  # the credential header's value is learned, and covers its copy
        line = stored(redactor, WireEvent(Direction.OUT, Channel.HTTP, b"POST /mcp", meta=auth))
        assert "tok-9f8e7d" not in line


def test_findings_and_meta_are_redacted() -> None:
    event = WireEvent(
        Direction.IN,
        Channel.SSE,
        b"garbage",
        meta={
            "ignored_lines": ["x: hunter22"],
            "headers": {"Cookie": "c=1", "Location": "/?token=zzzz9"},
        },
        findings=[Finding("invalid", "not an SSE event: 'hunter22'")],
    )
    line = stored(Redactor(["hunter22"]), event)
    assert "hunter22" not in line and "zzzz9" not in line and "c=1" not in line


def test_disabled_redactor_keeps_everything() -> None:
    event = WireEvent(Direction.IN, Channel.STDERR, b"\xff SECRET456", meta={"url": "/?key=abcd"})
    line = stored(Redactor(["SECRET456"], enabled=False), event)
    assert "abcd" in line and b"SECRET456" in _b64(line)


def _b64(line: str) -> bytes:
    import base64

    return base64.b64decode(json.loads(line)["raw_b64"])
