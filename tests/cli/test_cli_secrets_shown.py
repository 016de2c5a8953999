"""Secrets never reach stderr or a toast: a server that echoes the ``Authorization``
header (given with ``-H``, or an OAuth token from the store) in its HTTP error body gets
the session file's redaction in the error JSON (``message`` and ``body``), with or
without ``--record``, and in the TUI's toast."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from cli_runner import cli
from servers.http_support import sdk_server
from tui_helpers import wait_for

from inspector.record.redact import REDACTED, Redactor
from inspector.safe_text import LineStream
from inspector.target import Target
from inspector.tui.app import InspectorApp

TOKEN = "sekrit-token-123"
API_KEY = "apikey-999-abc"


@pytest.fixture(scope="module")
def echo_url() -> Iterator[str]:
    with sdk_server("500", script="http_echo_auth.py") as base:
        yield f"{base}/mcp"


def error_line(stderr: str) -> dict[str, object]:
    (line,) = [ln for ln in stderr.splitlines() if ln.startswith('{"error"')]
    error: dict[str, object] = json.loads(line)["error"]
    return error


@pytest.mark.parametrize("record", [False, True])
def test_a_header_echoed_in_an_error_body_is_redacted_on_stderr(
    echo_url: str, tmp_path: Path, record: bool
) -> None:
    more = ["--record", str(tmp_path / "s.jsonl")] if record else []
    done = cli(
        "--cli", "--method", "tools/list", "-H", f"Authorization: Bearer {TOKEN}",
        "-H", f"X-Api-Key: {API_KEY}", *more, echo_url,
    )  # fmt: skip
    assert done.returncode == 6, done.stderr
    assert TOKEN not in done.stderr and API_KEY not in done.stderr
    error = error_line(done.stderr)
    assert f"Authorization: {REDACTED} X-Api-Key: {REDACTED}" in str(error["message"])
    assert f"Authorization: {REDACTED}" in str(error["body"])


def test_a_stored_oauth_token_echoed_in_an_error_body_is_redacted(
    echo_url: str, private_state: Path
) -> None:
    store = private_state / "mcp-inspect" / "oauth.json"
    store.parent.mkdir(parents=True)
    servers = {echo_url: {"access_token": TOKEN, "token_type": "Bearer"}}
    store.write_text(json.dumps({"version": 1, "servers": servers, "clients": {}}))
    done = cli("--cli", "--method", "tools/list", echo_url)
    assert done.returncode == 6, done.stderr
    assert TOKEN not in done.stderr
    assert f"Bearer {REDACTED}" in str(error_line(done.stderr)["message"])


def test_a_line_written_in_pieces_is_redacted_whole(tmp_path: Path) -> None:
    out = (tmp_path / "err").open("w")
    stream = LineStream(out, Redactor([TOKEN]).url_text)
    stream.write("said: sekrit-")
    stream.write("token-123 and more\nnext ")
    stream.write("sekrit-token-123")
    assert stream.buffer is out.buffer  # bytes writers (the proxy's stderr relay) still work
    out.close()
    assert (tmp_path / "err").read_text() == f"said: {REDACTED} and more\nnext {REDACTED}"


async def test_the_tui_toast_is_redacted(echo_url: str) -> None:
    target = Target(url=echo_url, headers={"Authorization": f"Bearer {TOKEN}"})
    app = InspectorApp(target)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_for(pilot, lambda: bool(app._notifications))
        shown = " ".join(f"{n.title} {n.message}" for n in app._notifications)
        assert "connection failed" in shown and "500" in shown
        assert TOKEN not in shown and REDACTED in shown
