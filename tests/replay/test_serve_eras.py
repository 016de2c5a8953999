"""``replay FILE --serve`` answers a client of either era whatever era was recorded, gives
the empty success a server would to what it did not record (said on stderr), and errors
only for a call, a read or a prompt it never saw. Clients: the official Python SDK's
``Client`` in its default (``auto``: 2026-07-28) and ``legacy`` modes, and the official
Inspector CLI (pinned), over stdio."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import anyio
import pytest
from cli_inprocess import cli_inprocess
from mcp import Client, StdioServerParameters
from mcp.shared.exceptions import MCPError
from paths import PY, ROOT, SERVERS

from inspector.record.reader import read_session
from tests.official_inspector import official_cli

sys.path.insert(0, str(SERVERS))
from replay_record import record

STATELESS_SERVER = [PY, str(SERVERS / "stateless_server.py")]


@pytest.fixture(scope="module")
def handshake_recording(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("serve-eras") / "handshake.jsonl"
    anyio.run(record, path)
    return path


@pytest.fixture(scope="module")
def stateless_recording(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One ``--cli`` call recorded at 2026-07-28 (discover, tools/list, tools/call)."""
    path = tmp_path_factory.mktemp("serve-eras") / "stateless.jsonl"
    done = cli_inprocess(
        "--cli", "--record", str(path), "--protocol-version", "2026-07-28",
        "--method", "tools/call", "--tool-name", "add", "--tool-args-json", '{"a": 1, "b": 2}',
        "--", *STATELESS_SERVER,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    return path


def params(recording: Path, errlog: Path) -> StdioServerParameters:
    return StdioServerParameters(
        command=PY,
        args=["-c", REDIRECT, str(errlog), "-m", "inspector", "replay", str(recording), "--serve"],
        cwd=str(ROOT),
    )


# the replay's stderr into a file (the SDK's stdio client passes it to ours otherwise)
REDIRECT = (
    "import os, runpy, sys; fd = os.open(sys.argv[1], os.O_WRONLY | os.O_CREAT); "
    "os.dup2(fd, 2); sys.argv = ['mcp-inspect', *sys.argv[4:]]; "
    "runpy.run_module('inspector', run_name='__main__')"
)


@pytest.mark.parametrize("mode", ["auto", "legacy"])
@pytest.mark.parametrize("recorded", ["handshake", "stateless"])
@pytest.mark.slow
async def test_sdk_client_of_either_era(
    handshake_recording: Path,
    stateless_recording: Path,
    tmp_path: Path,
    mode: str,
    recorded: str,
) -> None:
    recording = handshake_recording if recorded == "handshake" else stateless_recording
    errlog = tmp_path / "replay.err"
    with anyio.fail_after(60):
        async with Client(params(recording, errlog), mode=mode) as client:
            result = await client.call_tool("add", {"a": 1, "b": 2})
            assert result.content[0].text == "3"  # type: ignore[union-attr]
            prompts = await client.list_prompts()  # never recorded: the empty success
            assert prompts.prompts == []
            if mode == "legacy":
                await client.set_logging_level("info")  # never recorded either
                await client.send_ping()
            with pytest.raises(MCPError) as never:
                await client.get_prompt("never", {})
            assert "replay: prompts/get was" in str(never.value)  # never seen: an error
    said = errlog.read_text()
    assert "prompts/list was not recorded" in said and "empty success" in said
    if mode == "legacy":
        assert "logging/setLevel was not recorded" in said


def test_a_stateless_client_gets_the_era_fields(handshake_recording: Path, tmp_path: Path) -> None:
    """Our CLI at 2026-07-28 on a handshake recording: every result has resultType, and
    the cacheable ones ttlMs and cacheScope."""
    client = tmp_path / "client.jsonl"
    done = cli_inprocess(
        "--cli", "--record", str(client), "--protocol-version", "2026-07-28",
        "--method", "tools/list", "--", PY, "-m", "inspector", "replay",
        str(handshake_recording), "--serve",
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    results = [
        (e.message or {}).get("result")
        for e in read_session(client).events
        if e.direction.value == "in" and isinstance(e.message, dict) and "result" in e.message
    ]
    assert results and all(r["resultType"] == "complete" for r in results)
    assert all(r["ttlMs"] == 0 and r["cacheScope"] == "private" for r in results)
    assert not [f for e in read_session(client).events for f in e.findings]


def test_the_official_inspector_cli_on_a_handshake_recording(
    handshake_recording: Path, tmp_path: Path
) -> None:
    """Inspector 2.12's CLI sends logging/setLevel first: answered, the call goes on."""
    serve = [PY, "-m", "inspector", "replay", str(handshake_recording), "--serve"]
    done = official_cli(
        tmp_path, *serve, "--method", "tools/call", "--tool-name", "add",
        "--tool-arg", "a=1", "--tool-arg", "b=2",
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    assert json.loads(done.stdout)["content"][0]["text"] == "3"
