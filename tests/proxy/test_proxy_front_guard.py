"""``proxy --listen`` under attack and load: who may connect (the front's token), how much
they may take (connections, sessions, buffered bodies), how long a head may take, and
what happens past the file limit. Hostile clients are raw sockets (or
``tests/servers/front_client.py``, run as another user)."""

from __future__ import annotations

import json
import os
import resource
import select
import shutil
import socket
import stat
import subprocess
import tempfile
import time
from pathlib import Path
from typing import Any

import anyio
import httpx
import pytest
from cli_runner import inspector_argv
from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client
from paths import DEMO, PY, ROOT, SERVERS
from proxy_support import INIT, events, listening_proxy, wait_until

from inspector.proxy.fronttoken import token_path

ACCEPT = {"Accept": "application/json, text/event-stream"}


def token_of(name: str) -> str:
    """``mcp-inspect proxies --token NAME``, as the owner runs it."""
    done = subprocess.run(
        inspector_argv("proxies", "--token", name),
        capture_output=True,
        text=True,
        timeout=60,
        cwd=str(ROOT),
        check=False,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


def address(url: str) -> tuple[str, int]:
    target = httpx.URL(url)
    return target.host, target.port or 80


def raw_request(url: str, head: str, body: bytes = b"", timeout: float = 30) -> bytes:
    """One request's bytes as given (``HOSTPORT`` in ``head`` filled in); the answer's
    first bytes."""
    host, port = address(url)
    with socket.create_connection((host, port), timeout=timeout) as raw:
        raw.sendall(head.replace("HOSTPORT", f"{host}:{port}").encode("latin-1") + body)
        return raw.recv(4096)


# -- 1. the token ---------------------------------------------------------------------


def test_a_host_without_the_token_is_refused(tmp_path: Path) -> None:
    record = tmp_path / "p.jsonl"
    args = ("--no-attach", "--name", "guarded", "--record", str(record), "--", *DEMO)
    with listening_proxy(*args, token=True) as (_proc, url):
        token = token_of("guarded")
        path = token_path("guarded")
        assert stat.S_IMODE(path.stat().st_mode) == 0o600
        with httpx.Client(timeout=30, headers=ACCEPT) as client:
            missing = client.post(url, json=INIT)
            wrong = client.post(url, json=INIT, headers={"Authorization": "Bearer nope"})
            other_scheme = client.post(url, json=INIT, headers={"Authorization": token})
            good = client.post(url, json=INIT, headers={"Authorization": f"Bearer {token}"})
    assert [missing.status_code, wrong.status_code, other_scheme.status_code] == [401] * 3
    assert missing.headers["www-authenticate"].startswith("Bearer")
    assert "proxies --token NAME" in missing.json()["error"]
    assert good.status_code == 200
    started = [e for e in events(record) if "started pid" in e["raw"]]
    assert len(started) == 1  # only the host with the token got a server
    assert token not in record.read_text()  # the token is never recorded


async def test_the_sdk_client_with_the_token_gets_through() -> None:
    with listening_proxy("--no-attach", "--name", "sdk-host", "--", *DEMO, token=True) as (
        _proc,
        url,
    ):
        token = token_of("sdk-host")
        headers = {"Authorization": f"Bearer {token}"}
        async with (
            httpx.AsyncClient(headers=headers, timeout=30) as http,
            streamable_http_client(url, http_client=http) as (read, write),
            ClientSession(read, write) as session,
        ):
            await session.initialize()
            added = await session.call_tool("add", {"a": 2, "b": 40})
    assert added.content[0].model_dump()["text"] == "2 + 40 = 42"


def test_the_token_stays_across_restarts_and_proxies_says_when_there_is_none() -> None:
    with listening_proxy("--no-attach", "--name", "again", "--", *DEMO, token=True):
        first = token_of("again")
    with listening_proxy("--no-attach", "--name", "again", "--", *DEMO, token=True):
        assert token_of("again") == first  # a host config written once keeps working
    done = subprocess.run(
        inspector_argv("proxies", "--token", "never-started"),
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 2
    assert "no HTTP front token for a proxy named 'never-started'" in done.stderr
    assert "Traceback" not in done.stderr


@pytest.mark.skipif(os.getuid() != 0 or not shutil.which("setpriv"), reason="needs root")
def test_another_local_user_is_refused() -> None:
    """The attack of the issue: uid 1000 against a proxy run by root."""
    with listening_proxy("--no-attach", "--name", "mine", "--", *DEMO, token=True) as (
        _proc,
        url,
    ):
        token_of("mine")
        # the other user reads its script from a folder of its own: the checkout may sit
        # in a private one (mktemp -d is 0700)
        shared = Path(tempfile.mkdtemp(prefix="mi-other-"))
        shared.chmod(0o755)
        client = shared / "front_client.py"
        shutil.copyfile(SERVERS / "front_client.py", client)
        client.chmod(0o644)
        done = subprocess.run(
            [
                "setpriv",
                "--reuid=1000",
                "--regid=1000",
                "--clear-groups",
                "/usr/bin/python3",
                str(client),
                url,
                str(token_path("mine")),
            ],
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )
        shutil.rmtree(shared)
    assert done.returncode == 0, done.stderr
    seen = json.loads(done.stdout)
    assert seen == {"token_file": "PermissionError", "statuses": [401, 401, 401]}


def test_no_auth_front_warns() -> None:
    with listening_proxy("--no-attach", "--", *DEMO) as (proc, url):
        with httpx.Client(timeout=30, headers=ACCEPT) as client:
            assert client.post(url, json=INIT).status_code == 200
        said = proc.said
    assert b"warning: --no-auth-front: any local user can call the server" in said


# -- 2. the head before the body; caps -------------------------------------------------


def test_a_huge_body_without_a_host_is_refused_before_it_is_read() -> None:
    """The head says 60 MB without a Host: 421 at once, the body never waited for."""
    with listening_proxy("--no-attach", "--", *DEMO) as (_proc, url):
        head = (
            "POST /mcp HTTP/1.1\r\nContent-Type: application/json\r\n"
            f"Content-Length: {60 << 20}\r\n\r\n"
        )
        started = time.monotonic()
        answer = raw_request(url, head, b"{", timeout=10)
    assert answer.startswith(b"HTTP/1.1 421")
    assert b"Connection: close" in answer
    assert time.monotonic() - started < 5


def test_every_head_check_comes_before_the_body(tmp_path: Path) -> None:
    """Token, path, method, content type, session: each refused on the head alone."""
    args = ("--no-attach", "--name", "heads", "--", *DEMO)
    with listening_proxy(*args, token=True) as (_proc, url):
        auth = f"Authorization: Bearer {token_of('heads')}\r\n"
        big = f"Content-Length: {60 << 20}\r\n"
        json_type = "Content-Type: application/json\r\n"
        cases = {
            "401": f"POST /mcp HTTP/1.1\r\nHost: HOSTPORT\r\n{json_type}{big}\r\n",
            "404": f"POST /other HTTP/1.1\r\nHost: HOSTPORT\r\n{auth}{json_type}{big}\r\n",
            "405": f"PUT /mcp HTTP/1.1\r\nHost: HOSTPORT\r\n{auth}{json_type}{big}\r\n",
            "415": f"POST /mcp HTTP/1.1\r\nHost: HOSTPORT\r\n{auth}{big}\r\n",
            "404 ": (
                f"POST /mcp HTTP/1.1\r\nHost: HOSTPORT\r\n{auth}{json_type}"
                f"Mcp-Session-Id: gone\r\n{big}\r\n"
            ),
        }
        answers = {status: raw_request(url, head, timeout=10) for status, head in cases.items()}
    for status, answer in answers.items():
        assert answer.startswith(f"HTTP/1.1 {status.strip()}".encode()), (status, answer[:80])


def test_connections_past_the_cap_get_503_at_once() -> None:
    with listening_proxy("--no-attach", "--max-connections", "3", "--", *DEMO) as (_proc, url):
        host, port = address(url)
        held = [socket.create_connection((host, port), timeout=10) for _ in range(3)]
        try:
            time.sleep(0.3)  # accepted and counted
            answer = raw_request(url, "GET /mcp HTTP/1.1\r\nHost: HOSTPORT\r\n\r\n", timeout=10)
        finally:
            for conn in held:
                conn.close()
        wait_until(
            lambda: raw_request(url, "DELETE /mcp HTTP/1.1\r\nHost: HOSTPORT\r\n\r\n").startswith(
                b"HTTP/1.1 404"
            ),
            what="the front to take connections again",
        )
    assert answer.startswith(b"HTTP/1.1 503")
    assert b"Retry-After: 1" in answer and b"--max-connections" in answer


def test_sessions_past_the_cap_get_503(tmp_path: Path) -> None:
    record = tmp_path / "p.jsonl"
    args = ("--no-attach", "--max-sessions", "2", "--record", str(record), "--", *DEMO)
    with listening_proxy(*args) as (_proc, url), httpx.Client(timeout=30, headers=ACCEPT) as c:
        statuses = [c.post(url, json=INIT) for _ in range(3)]
    assert [s.status_code for s in statuses] == [200, 200, 503]
    assert statuses[2].headers["retry-after"] == "5"
    assert "--max-sessions" in statuses[2].json()["error"]
    assert len([e for e in events(record) if "started pid" in e["raw"]]) == 2


def test_bodies_past_the_buffer_cap_get_503_or_413() -> None:
    with listening_proxy("--no-attach", "--max-buffer", "1", "--", *DEMO) as (_proc, url):
        host, port = address(url)
        head = (
            f"POST /mcp HTTP/1.1\r\nHost: {host}:{port}\r\nContent-Type: application/json\r\n"
            "Content-Length: {}\r\n\r\n"
        )
        with socket.create_connection((host, port), timeout=10) as holder:
            holder.sendall(head.format(700_000).encode() + b"{")  # holds 700 kB of the 1 MB
            time.sleep(0.3)
            second = raw_request(url, head.format(700_000), b"{", timeout=10)
        too_big = raw_request(url, head.format(2 << 20), b"{", timeout=10)
    assert second.startswith(b"HTTP/1.1 503") and b"Retry-After: 1" in second
    assert too_big.startswith(b"HTTP/1.1 413")


def test_at_the_session_cap_the_idlest_old_session_makes_room(tmp_path: Path) -> None:
    """A client that never ends its sessions (the official Inspector's CLI) does not lock
    others out: at the cap, a session idle for --fresh-timeout gives its place."""
    args = ("--no-attach", "--max-sessions", "2", "--fresh-timeout", "1", "--", *DEMO)
    ping = {"jsonrpc": "2.0", "id": 2, "method": "ping"}
    with listening_proxy(*args) as (_proc, url), httpx.Client(timeout=30, headers=ACCEPT) as c:
        sids = [c.post(url, json=INIT).headers["mcp-session-id"] for _ in range(2)]
        for sid in sids:
            assert c.post(url, json=ping, headers={"Mcp-Session-Id": sid}).status_code == 200
        time.sleep(0.6)
        c.post(url, json=ping, headers={"Mcp-Session-Id": sids[1]})  # the newer stays busy
        time.sleep(0.6)
        third = c.post(url, json=INIT)
        first_again = c.post(url, json=ping, headers={"Mcp-Session-Id": sids[0]})
        second_again = c.post(url, json=ping, headers={"Mcp-Session-Id": sids[1]})
    assert third.status_code == 200
    assert first_again.status_code == 404  # initialize again, as the spec has it
    assert second_again.status_code == 200


async def test_a_session_with_nothing_after_initialize_ends_soon(tmp_path: Path) -> None:
    record = tmp_path / "p.jsonl"
    args = ("--no-attach", "--fresh-timeout", "1", "--record", str(record), "--", *DEMO)
    with listening_proxy(*args) as (_proc, url):
        async with httpx.AsyncClient(timeout=30, headers=ACCEPT) as client:
            fresh = (await client.post(url, json=INIT)).headers["mcp-session-id"]
            used = (await client.post(url, json=INIT)).headers["mcp-session-id"]
            ping = {"jsonrpc": "2.0", "id": 2, "method": "ping"}
            answer = await client.post(url, json=ping, headers={"Mcp-Session-Id": used})
            assert answer.status_code == 200
            wait_until(
                lambda: any("after initialize; ending it" in e["raw"] for e in events(record)),
                timeout=20,
                what="the unused session to end",
            )
            gone = await client.post(url, json=ping, headers={"Mcp-Session-Id": fresh})
            kept = await client.post(url, json=ping, headers={"Mcp-Session-Id": used})
    assert gone.status_code == 404
    assert kept.status_code == 200  # used: it keeps the idle timeout (30 minutes)


# -- 3. slow clients, the file limit ---------------------------------------------------


def test_a_head_must_arrive_within_the_bound() -> None:
    """One byte every 0.3 s: cut off at --head-timeout (it was 300 s a read, forever)."""
    with listening_proxy("--no-attach", "--head-timeout", "1", "--", *DEMO) as (_proc, url):
        host, port = address(url)
        with socket.create_connection((host, port), timeout=10) as raw:
            started = time.monotonic()
            answer, ended = b"", ""
            for byte in b"POST /mcp HTTP/1.1\r\nHost: x\r\nX-Slow: " + b"a" * 100:
                try:
                    raw.sendall(bytes([byte]))
                    time.sleep(0.3)
                    if select.select([raw], [], [], 0)[0]:
                        answer = raw.recv(4096)
                        break
                except OSError as exc:  # the 408 may be lost to a reset: it is an end too
                    ended = type(exc).__name__
                    break
            took = time.monotonic() - started
    assert answer.startswith(b"HTTP/1.1 408") or ended, answer
    assert took < 5


def test_strangers_keep_no_connection_open() -> None:
    """A connection that says nothing, or sends no token, is closed: only a host with the
    token keeps an idle connection (a cap of connections held by strangers would be a
    denial of service)."""
    args = ("--no-attach", "--name", "strangers", "--head-timeout", "1", "--", *DEMO)
    with listening_proxy(*args, token=True) as (_proc, url):
        host, port = address(url)
        with socket.create_connection((host, port), timeout=10) as silent:
            started = time.monotonic()
            assert silent.recv(100) == b""  # closed, nothing said
            assert time.monotonic() - started < 5
        with socket.create_connection((host, port), timeout=10) as stranger:
            stranger.sendall(f"GET /mcp HTTP/1.1\r\nHost: {host}:{port}\r\n\r\n".encode())
            answer = b""
            while chunk := stranger.recv(4096):
                answer += chunk
    assert answer.startswith(b"HTTP/1.1 401") and b"Connection: close" in answer


def _limit_files(soft: int, hard: int) -> Any:
    def limit() -> None:
        resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))

    return limit


def test_the_soft_file_limit_is_raised_to_the_hard_one() -> None:
    limited = _limit_files(256, 4096)
    with listening_proxy("--no-attach", "--", *DEMO, preexec_fn=limited) as (proc, _url):
        limits = Path(f"/proc/{proc.pid}/limits").read_text()
    row = next(line for line in limits.splitlines() if line.startswith("Max open files"))
    assert row.split()[3:5] == ["4096", "4096"]


def test_connections_fit_the_file_limit(tmp_path: Path) -> None:
    """200 files, 16 sessions' servers beside: 8 connections at most, the 9th gets 503."""
    record = tmp_path / "p.jsonl"
    args = ("--no-attach", "--record", str(record), "--", *DEMO)
    with listening_proxy(*args, preexec_fn=_limit_files(200, 200)) as (_proc, url):
        host, port = address(url)
        held = [socket.create_connection((host, port), timeout=10) for _ in range(8)]
        try:
            time.sleep(0.3)
            answer = raw_request(url, "GET /mcp HTTP/1.1\r\nHost: HOSTPORT\r\n\r\n", timeout=10)
        finally:
            for conn in held:
                conn.close()
    assert answer.startswith(b"HTTP/1.1 503")
    notes = [e["raw"] for e in events(record) if "ulimit -n" in e["raw"]]
    assert notes == ["only 200 open files allowed (ulimit -n): at most 8 host connections at once"]


def test_out_of_descriptors_is_one_line_and_the_front_recovers() -> None:
    """A hard limit of 64 descriptors and the connection cap above it: accept fails with
    EMFILE; the proxy says so in a line (no traceback) and serves again once they close."""
    limited = _limit_files(64, 64)
    args = ("--no-attach", "--max-connections", "500", "--", *DEMO)
    with listening_proxy(*args, preexec_fn=limited) as (proc, url):
        host, port = address(url)
        flood = [socket.create_connection((host, port), timeout=10) for _ in range(120)]
        time.sleep(1.5)
        for conn in flood:
            conn.close()
        time.sleep(1.5)  # asyncio accepts again a second after EMFILE
        with httpx.Client(timeout=30, headers=ACCEPT) as client:
            assert client.post(url, json=INIT).status_code == 200
        proc.terminate()
        _out, err = proc.communicate(timeout=30)
    text = err.decode()
    assert "cannot accept a connection: Too many open files; retrying" in text
    assert "Traceback" not in text


# -- 4. a stdio server's lines that are not JSON ---------------------------------------


@pytest.mark.slow
async def test_a_servers_banner_is_recorded_but_never_sent_to_an_http_host(
    tmp_path: Path,
) -> None:
    """The official SDK client through the front, in front of a server that prints a
    banner (and a blank line, and a line in its tool) on stdout."""
    record = tmp_path / "p.jsonl"
    server = [PY, str(SERVERS / "sdk_banner_server.py")]
    with (
        anyio.fail_after(90),
        listening_proxy("--no-attach", "--record", str(record), "--", *server) as (_proc, url),
    ):
        async with (
            streamable_http_client(url) as (read, write),
            ClientSession(read, write) as session,
        ):
            await session.initialize()
            added = await session.call_tool("add", {"a": 2, "b": 40})
            again = await session.call_tool("add", {"a": 1, "b": 1})
    assert not added.is_error and not again.is_error
    assert added.structured_content == {"result": 42}
    recorded = events(record)
    lines = [e["raw"] for e in recorded if e["dir"] == "in"]
    assert "Banner Server v1.0 ready on stdio" in lines and "adding 2 and 40" in lines
    notes = [e["raw"] for e in recorded if "is not sent to the HTTP host" in e["raw"]]
    assert len(notes) == 1


@pytest.mark.slow
async def test_messages_waiting_for_a_stream_are_bounded(tmp_path: Path) -> None:
    """24 MB of notifications while the host has no stream open: the proxy keeps the
    newest 16 MB for the host's next stream, says so once, and records every one."""
    record = tmp_path / "p.jsonl"
    server = [PY, str(SERVERS / "stdio_chatty.py"), "24", "1024"]
    with listening_proxy("--no-attach", "--record", str(record), "--", *server) as (_proc, url):
        async with httpx.AsyncClient(timeout=30, headers=ACCEPT) as client:
            init = await client.post(url, json=INIT)
            session = {"Mcp-Session-Id": init.headers["mcp-session-id"]}
            done = {"jsonrpc": "2.0", "method": "notifications/initialized"}
            assert (await client.post(url, json=done, headers=session)).status_code == 202
            wait_until(  # the file as it is written: its last line may be half there
                lambda: record.read_bytes().count(b"notifications/message") == 24,
                what="the server's 24 notifications on the wire",
            )
            numbers: list[int] = []
            async with client.stream("GET", url, headers=session) as standing:
                async for line in standing.aiter_lines():
                    if line.startswith("data: "):
                        numbers.append(json.loads(line[6:])["params"]["data"]["n"])
                        if numbers[-1] == 23:
                            break
    assert numbers == list(range(24 - len(numbers), 24))  # the newest, in order
    assert 12 <= len(numbers) <= 16
    notes = [e["raw"] for e in events(record) if "wait for a stream" in e["raw"]]
    assert len(notes) == 1


@pytest.mark.slow
async def test_a_host_that_stops_reading_its_stream_is_let_go(tmp_path: Path) -> None:
    """The host opens its GET stream and never reads it while the server sends 40 MB: past
    16 MB unread the proxy closes that connection (it held every byte), and says so."""
    record = tmp_path / "p.jsonl"
    server = [PY, str(SERVERS / "stdio_chatty.py"), "40", "1024"]
    with listening_proxy("--no-attach", "--record", str(record), "--", *server) as (_proc, url):
        host, port = address(url)
        async with httpx.AsyncClient(timeout=30, headers=ACCEPT) as client:
            init = await client.post(url, json=INIT)
            sid = init.headers["mcp-session-id"]
            deaf = socket.socket()
            deaf.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
            deaf.connect((host, port))
            deaf.sendall(
                f"GET /mcp HTTP/1.1\r\nHost: {host}:{port}\r\nAccept: text/event-stream\r\n"
                f"Mcp-Session-Id: {sid}\r\n\r\n".encode()
            )
            time.sleep(0.5)  # the stream is open
            done = {"jsonrpc": "2.0", "method": "notifications/initialized"}
            session = {"Mcp-Session-Id": sid}
            assert (await client.post(url, json=done, headers=session)).status_code == 202
            wait_until(
                lambda: b"unread (more than 16 MB)" in record.read_bytes(),
                what="the proxy to let the deaf stream go",
            )
            deaf.close()
            ping = {"jsonrpc": "2.0", "id": 2, "method": "ping"}
            assert (await client.post(url, json=ping, headers=session)).status_code == 200


@pytest.mark.slow
async def test_a_long_call_does_not_hold_its_share_of_the_buffer() -> None:
    """A 700 kB call that takes 3 s, then another 700 kB request under --max-buffer 1:
    the first body left the budget once passed on, so the second is not refused."""
    pad = "x" * 700_000
    with listening_proxy("--no-attach", "--max-buffer", "1", "--", *DEMO) as (_proc, url):
        async with httpx.AsyncClient(timeout=30, headers=ACCEPT) as client:
            sid = (await client.post(url, json=INIT)).headers["mcp-session-id"]
            session = {"Mcp-Session-Id": sid}
            arguments = {"seconds": 3, "steps": 3, "pad": pad}
            slow = {
                "jsonrpc": "2.0",
                "id": 2,
                "method": "tools/call",
                "params": {"name": "slow_count", "arguments": arguments},
            }
            ping = {"jsonrpc": "2.0", "id": 3, "method": "ping", "params": {"pad": pad}}
            async with anyio.create_task_group() as tg:
                answers: dict[str, int] = {}

                async def post(name: str, body: dict[str, Any]) -> None:
                    answers[name] = (await client.post(url, json=body, headers=session)).status_code

                tg.start_soon(post, "slow", slow)
                await anyio.sleep(0.8)
                await post("ping", ping)
                assert "slow" not in answers  # still running
    assert answers == {"ping": 200, "slow": 200}


@pytest.mark.parametrize("planted", ["fifo", "endless", "garbage"])
@pytest.mark.slow
def test_a_planted_token_file_is_refused_and_named(planted: str) -> None:
    """The token file is a state file: a FIFO there must not hang the command, a link to
    an endless file must not be read whole, and text that is no token is not sent."""
    name = f"planted-{planted}"
    path = token_path(name)
    path.parent.mkdir(parents=True, exist_ok=True)
    if planted == "fifo":
        os.mkfifo(path)
    elif planted == "endless":
        path.symlink_to("/dev/zero")
    else:
        path.write_text("<html>not a token</html>\n")
    try:
        for argv in (
            ["proxies", "--token", name],
            ["proxy", "--listen", "127.0.0.1:0", "--name", name, "--", *DEMO],
        ):
            done = subprocess.run(
                inspector_argv(*argv), capture_output=True, text=True, timeout=30, check=False
            )
            assert done.returncode == 2, (argv, done.stderr)
            assert str(path) in done.stderr and "Traceback" not in done.stderr
    finally:
        path.unlink()
