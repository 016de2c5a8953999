"""Hostile authorization servers through the CLI as a user runs it
(``servers/oauth_hostile.py``): OAuth endpoints over plain http:// to a host that is not
loopback are refused before anything is sent there (``--insecure-oauth`` allows them), and
failures name the OAuth step that failed: a token endpoint that never answers, a token
response cut at the size cap."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from typing import Any

import pytest
from cli_runner import cli

from inspector.record.reader import read_session
from inspector.wire.events import Channel, Direction, WireEvent
from tests.servers.http_support import sdk_server

HOSTILE_TOKEN = "http://oauth-lab.invalid/token"


def call(
    tmp_path: Path, mode: str, *flags: str, timeout: float = 90
) -> tuple[subprocess.CompletedProcess[str], dict[str, Any], list[WireEvent]]:
    record = tmp_path / "s.jsonl"
    env = {**os.environ, "XDG_STATE_HOME": str(tmp_path / "state")}
    with sdk_server(mode, script="oauth_hostile.py") as base:
        done = cli(
            "--cli",
            "--method",
            "tools/list",
            "--auth-follow",
            "--no-store",
            "--record",
            str(record),
            *flags,
            f"{base}/mcp",
            env=env,
            timeout=timeout,
        )
    error = json.loads(done.stderr.splitlines()[-1])["error"] if done.stderr.strip() else {}
    return done, error, read_session(record).events


def auth_requests(events: list[WireEvent]) -> list[tuple[str, str]]:
    return [
        (e.meta["step"], e.meta["url"])
        for e in events
        if e.channel is Channel.AUTH and e.direction is Direction.OUT and "method" in e.meta
    ]


@pytest.mark.slow
def test_a_plain_http_token_endpoint_elsewhere_is_refused(tmp_path: Path) -> None:
    done, error, events = call(tmp_path, "plain-http")
    assert done.returncode == 7, done.stderr
    message = error["message"]
    assert "token_endpoint" in message and HOSTILE_TOKEN in message
    assert "--insecure-oauth" in message and "server metadata step" in message
    steps = [step for step, _ in auth_requests(events)]
    assert "registration" not in steps and "token" not in steps  # nothing sent, no code got
    assert not any(url.startswith("http://oauth-lab") for _, url in auth_requests(events))


def test_insecure_oauth_allows_it_for_a_lab(tmp_path: Path) -> None:
    done, error, events = call(tmp_path, "plain-http", "--insecure-oauth", "--timeout", "10")
    assert done.returncode == 7, done.stderr
    assert "--insecure-oauth" not in error["message"]
    token = [url for step, url in auth_requests(events) if step == "token"]
    assert token == [HOSTILE_TOKEN]  # sent there (and it did not resolve)
    assert "token step" in error["message"] and "oauth-lab.invalid" in error["message"]


def test_a_token_endpoint_that_never_answers_is_named(tmp_path: Path) -> None:
    done, error, _ = call(tmp_path, "token-hangs", "--timeout", "3")
    assert done.returncode == 7, (done.returncode, done.stderr)
    message = error["message"]
    assert "OAuth failed at the token step" in message and "/token" in message
    assert "no data from the server for 3 s" in message
    assert "server/discover then initialize" not in message


def test_a_token_response_cut_at_the_cap_says_it_was_too_big(tmp_path: Path) -> None:
    done, error, events = call(tmp_path, "token-huge")
    assert done.returncode == 7, done.stderr
    message = error["message"]
    assert "too big for a token response" in message and "token step" in message
    assert "without an access_token" not in message
    status = [e for e in events if e.meta.get("step") == "token" and "status" in e.meta]
    assert status and status[0].meta["truncated"] == 1024 * 1024
