"""``replay FILE --serve``: a captured server answering real clients (the official SDK
client and our own CLI) from the recording."""

from __future__ import annotations

import io
import json
import subprocess
import sys
from pathlib import Path

import anyio
import pytest
from cli_inprocess import cli_inprocess
from cli_runner import inspector_argv
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp.shared.exceptions import MCPError
from paths import PY, ROOT, SERVERS

from inspector.record.reader import read_session
from inspector.replay.plan import build_plan
from inspector.replay.serve import RecordedServer, serve
from inspector.wire.jsonrpc import INVALID_PARAMS, METHOD_NOT_FOUND

sys.path.insert(0, str(SERVERS))
from replay_record import record


@pytest.fixture(scope="module")
def recording(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("serve") / "session.jsonl"
    anyio.run(record, path)
    return path


def serve_params(recording: Path) -> StdioServerParameters:
    return StdioServerParameters(
        command=PY, args=["-m", "inspector", "replay", str(recording), "--serve"], cwd=str(ROOT)
    )


@pytest.mark.slow
async def test_official_sdk_client_against_the_recording(recording: Path) -> None:
    with anyio.fail_after(30):
        async with (
            stdio_client(serve_params(recording)) as (read, write),
            ClientSession(read, write) as session,
        ):
            init = await session.initialize()
            assert init.server_info.name == "replay-test-server"
            tools = await session.list_tools()
            assert "only_in_default" in {t.name for t in tools.tools}
            result = await session.call_tool("add", {"a": 1, "b": 2})
            assert result.content[0].text == "3"  # type: ignore[union-attr]
            text = await session.read_resource("replay://greeting")
            assert text.contents[0].text == "hello"  # type: ignore[union-attr]
            with pytest.raises(MCPError) as bad_params:
                await session.call_tool("add", {"a": 40, "b": 2})
            assert bad_params.value.code == INVALID_PARAMS
            assert "not with these params" in bad_params.value.message
            # a list never recorded: the empty success a server gives (said on stderr)
            assert (await session.list_prompts()).prompts == []
            # the recorded error is served as an error
            with pytest.raises(MCPError):
                await session.read_resource("replay://nothing-here")


@pytest.mark.slow
async def test_official_sdk_client_against_a_lone_cli_call(tmp_path: Path) -> None:
    """A recording of one ``--cli`` tools/call holds tools/list too, which the SDK client
    asks for after the call (to check the result against the outputSchema)."""
    path = tmp_path / "call.jsonl"
    sdk_server = [PY, str(SERVERS / "sdk_stdio_server.py")]
    done = cli_inprocess(
        "--cli",
        "--record",
        str(path),
        "--method",
        "tools/call",
        "--tool-name",
        "add",
        "--tool-args-json",
        '{"a": 1, "b": 2}',
        "--",
        *sdk_server,
    )
    assert done.returncode == 0, done.stderr
    with anyio.fail_after(30):
        async with (
            stdio_client(serve_params(path)) as (read, write),
            ClientSession(read, write) as session,
        ):
            await session.initialize()
            result = await session.call_tool("add", {"a": 1, "b": 2})
            assert result.structured_content == {"result": 3}


@pytest.mark.slow
def test_our_cli_against_the_recording(recording: Path) -> None:
    done = cli_inprocess(
        "--cli",
        "--method",
        "tools/call",
        "--tool-name",
        "add",
        "--tool-arg",
        "a=1",
        "--tool-arg",
        "b=2",
        "--",
        *inspector_argv("replay", str(recording), "--serve"),
    )
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["content"][0]["text"] == "3"
    done = subprocess.run(
        [
            PY,
            "-m",
            "inspector",
            "--cli",
            "--method",
            "prompts/list",
            "--",
            PY,
            "-m",
            "inspector",
            "replay",
            str(recording),
            "--serve",
        ],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=ROOT,
    )
    # never recorded: the empty success a server gives (a call never seen is the error)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == {"prompts": []}


def test_repeated_answers_in_order_and_notifications_ignored(recording: Path) -> None:
    plan = build_plan(read_session(recording).events)
    step = next(s for s in plan.steps if s.method == "tools/call")
    assert step.response is not None
    second = type(step)(
        99, step.method, step.params, response={**step.response, "result": {"content": [], "n": 2}}
    )
    plan.steps.insert(plan.steps.index(step) + 1, second)
    server = RecordedServer(plan, source="test")
    call = {"jsonrpc": "2.0", "id": 5, "method": "tools/call", "params": step.params}
    first = server.handle(call)
    assert first["id"] == 5 and first["result"] == step.response["result"]
    assert server.handle({**call, "id": 6})["result"]["n"] == 2
    assert server.handle({**call, "id": 7})["result"]["n"] == 2  # the last one repeats
    assert server.handle({"jsonrpc": "2.0", "method": "notifications/initialized"}) is None
    assert server.handle({"jsonrpc": "2.0", "id": 8, "result": {}}) is None
    assert server.handle({"jsonrpc": "2.0", "id": 9, "method": "ping"})["result"] == {}
    # absent params, {} and null-valued keys are the same request
    for params in (None, {}, {"cursor": None}):
        listed = server.handle(
            {"jsonrpc": "2.0", "id": 10, "method": "tools/list", "params": params}
        )
        assert "tools" in listed["result"], listed


def test_serve_loop_batches_and_bad_json(recording: Path) -> None:
    server = RecordedServer(build_plan(read_session(recording).events), source="test")
    stdin = io.BytesIO(
        b'{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}\n'
        b"\n"
        b"not json\n"
        b'[{"jsonrpc":"2.0","id":2,"method":"nope"},{"jsonrpc":"2.0","method":"n"}]\n'
    )
    stdout = io.BytesIO()
    assert serve(server, stdin, stdout) == 0
    lines = [json.loads(line) for line in stdout.getvalue().splitlines()]
    assert lines[0]["id"] == 1 and lines[0]["result"]["serverInfo"]["name"]
    assert lines[1]["error"]["code"] == -32700
    assert lines[2] == [
        {
            "jsonrpc": "2.0",
            "id": 2,
            "error": {"code": METHOD_NOT_FOUND, "message": lines[2][0]["error"]["message"]},
        }
    ]
    assert "nope was not recorded in test" in lines[2][0]["error"]["message"]


def test_a_handshake_recording_serves_a_stateless_client(recording: Path, tmp_path: Path) -> None:
    """With no --protocol-version our client probes with server/discover: the answer is
    made from the recorded initialize result, and the session goes on statelessly."""
    client = tmp_path / "client.jsonl"
    serve_it = ["--", PY, "-m", "inspector", "replay", str(recording), "--serve"]
    done = subprocess.run(
        [
            PY,
            "-m",
            "inspector",
            "--cli",
            "--record",
            str(client),
            "--method",
            "tools/list",
            *serve_it,
        ],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=ROOT,
    )
    assert done.returncode == 0, done.stderr
    assert "add" in {t["name"] for t in json.loads(done.stdout)["tools"]}
    events = read_session(client).events
    sent = [e.message["method"] for e in events if e.message and "method" in e.message]
    assert sent[:2] == ["server/discover", "tools/list"] and "initialize" not in sent
    chosen = [e.meta["era"] for e in events if e.meta.get("era", {}).get("step") == "chosen"]
    assert chosen[0]["era"] == "stateless"


@pytest.mark.slow
async def test_a_first_recording_after_a_refused_era_probe_is_a_handshake_one(
    tmp_path: Path,
) -> None:
    """A server's first recording (no era remembered yet) opens with the server/discover
    probe the server refused, then initialize. It was taken for a stateless recording:
    --serve refused the SDK client's initialize and --against re-ran it at 2026-07-28."""
    path = tmp_path / "first.jsonl"
    made = await anyio.to_thread.run_sync(
        lambda: cli_inprocess("--cli", "--record", str(path), "--method", "tools/list")
    )
    assert made.returncode == 0, made.stderr
    events = read_session(path).events
    assert any(b'"server/discover"' in e.raw for e in events)  # the probe is recorded
    plan = build_plan(events)
    assert plan.initialize is not None and plan.initialize.method == "initialize"
    assert not plan.stateless and plan.protocol_version == "2025-11-25"
    assert "initialize" not in [s.method for s in plan.steps]
    with anyio.fail_after(30):
        async with (
            stdio_client(serve_params(path)) as (read, write),
            ClientSession(read, write) as session,
        ):
            init = await session.initialize()
            assert init.server_info.name == "mcp-inspect-demo"
            assert "echo" in {t.name for t in (await session.list_tools()).tools}
    rerun = await anyio.to_thread.run_sync(
        lambda: cli_inprocess(
            "--cli", "replay", str(path), "--against", "--", PY, "-m", "inspector.demo"
        )
    )
    assert rerun.returncode == 0, rerun.stderr + rerun.stdout
    report = json.loads(rerun.stdout)
    assert report["summary"]["changed"] == 0 and report["summary"]["missing"] == 0
    assert "stateless" not in rerun.stdout + rerun.stderr
