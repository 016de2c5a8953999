"""``replay FILE --serve`` sends the server's recorded requests (sampling, elicitation) to
its own client at the same point, waits for the answer, then answers from the recording;
a live answer that differs from the recorded one is noted on stderr."""

from __future__ import annotations

import io
import json
import os
import sys
import threading
import time
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import ClientSession, StdioServerParameters, types
from mcp.client.stdio import stdio_client
from paths import PY, ROOT, SERVERS

from inspector.record.reader import read_session
from inspector.replay.plan import build_plan
from inspector.replay.serve import RecordedServer, serve

sys.path.insert(0, str(SERVERS))
from replay_notify_record import SAMPLED, record_sampling
from replay_record import record


@pytest.fixture(scope="module")
def sampling(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("serve-sampling") / "session.jsonl"
    anyio.run(record_sampling, path)
    return path


def serve_params(recording: Path, *extra: str) -> StdioServerParameters:
    return StdioServerParameters(
        command=PY,
        args=["-m", "inspector", "replay", str(recording), "--serve", *extra],
        cwd=str(ROOT),
    )


def sampled(text: str) -> types.CreateMessageResult:
    return types.CreateMessageResult(
        role="assistant",
        model="mcp-inspect",
        content=types.TextContent(type="text", text=text),
        stop_reason="endTurn",
    )


async def call_draft(recording: Path, errlog: Path, **callbacks: Any) -> str:
    with anyio.fail_after(30), errlog.open("w") as err:
        async with (
            stdio_client(serve_params(recording), errlog=err) as (read, write),
            ClientSession(read, write, **callbacks) as session,
        ):
            await session.initialize()
            result = await session.call_tool("draft", {"topic": "tea"})
            text = result.content[0].text  # type: ignore[union-attr]
            assert isinstance(text, str)
            return text


@pytest.mark.slow
def test_plan_ties_the_sampling_request_to_the_call(sampling: Path) -> None:
    plan = build_plan(read_session(sampling).events)
    listed, draft = plan.requests
    assert listed.server_requests == []
    (exchange,) = draft.server_requests
    assert exchange.method == "sampling/createMessage"
    assert exchange.answer is not None and exchange.answer["result"]["content"]["text"] == SAMPLED


async def test_sdk_client_is_asked_before_the_answer(sampling: Path, tmp_path: Path) -> None:
    asked: list[types.CreateMessageRequestParams] = []

    async def on_sample(
        context: Any, params: types.CreateMessageRequestParams
    ) -> types.CreateMessageResult:
        asked.append(params)
        return sampled(SAMPLED)

    errlog = tmp_path / "err.txt"
    text = await call_draft(sampling, errlog, sampling_callback=on_sample)
    assert text == f"draft: {SAMPLED}"
    (params,) = asked
    assert params.messages[0].content.text == "Write one line about tea."  # type: ignore
    assert "differs" not in errlog.read_text()


async def test_a_different_live_answer_is_noted(sampling: Path, tmp_path: Path) -> None:
    async def on_sample(context: Any, params: Any) -> types.CreateMessageResult:
        return sampled("a live line")

    errlog = tmp_path / "err.txt"
    text = await call_draft(sampling, errlog, sampling_callback=on_sample)
    assert text == f"draft: {SAMPLED}"  # still the recorded answer
    err = errlog.read_text()
    assert (
        "the client's answer to sampling/createMessage (during tools/call draft) "
        "differs from the recording"
    ) in err
    assert '$.result.content.text: "a recorded line" -> "a live line"' in err


async def test_a_client_without_sampling_is_noted(sampling: Path, tmp_path: Path) -> None:
    errlog = tmp_path / "err.txt"
    assert await call_draft(sampling, errlog) == f"draft: {SAMPLED}"
    err = errlog.read_text()
    assert "sampling/createMessage (during tools/call draft) differs" in err
    assert '$.error added: {"code": -32600, "message": "Sampling not supported"}' in err


@pytest.mark.slow
async def test_sdk_elicitation_callback(tmp_path: Path) -> None:
    """The replay_server recording: ``ask`` elicits a name while it is answered."""
    recording = tmp_path / "ask.jsonl"
    await record(recording)
    asked: list[str] = []

    async def on_elicit(context: Any, params: types.ElicitRequestParams) -> types.ElicitResult:
        asked.append(params.message)
        return types.ElicitResult(action="accept", content={"name": "world"})

    with anyio.fail_after(30), (tmp_path / "err.txt").open("w") as err:
        async with (
            stdio_client(serve_params(recording), errlog=err) as (read, write),
            ClientSession(read, write, elicitation_callback=on_elicit) as session,
        ):
            await session.initialize()
            assert asked == []  # nothing is asked before the call that asked
            result = await session.call_tool("ask", {})
            assert result.content[0].text == "hi world"  # type: ignore[union-attr]
            await session.call_tool("add", {"a": 1, "b": 2})
    assert asked == ["What is your name?"]
    assert "differs" not in (tmp_path / "err.txt").read_text()


def test_wait_for_the_client_is_bounded(sampling: Path) -> None:
    """A client that never answers: the recorded answer goes out after the wait, noted."""
    server = RecordedServer(build_plan(read_session(sampling).events), source="test")
    call = {
        "jsonrpc": "2.0",
        "id": 7,
        "method": "tools/call",
        "params": {"name": "draft", "arguments": {"topic": "tea"}},
    }
    r, w = os.pipe()
    os.write(w, json.dumps(call).encode() + b"\n")
    out, err = io.BytesIO(), io.StringIO()
    with os.fdopen(r, "rb") as stdin:
        thread = threading.Thread(target=serve, args=(server, stdin, out, err, 0.3))
        thread.start()
        deadline = time.monotonic() + 10  # the wait gives up after 0.3 s; stdin stays open
        while len(out.getvalue().splitlines()) < 2 and time.monotonic() < deadline:
            time.sleep(0.02)
        lines = [json.loads(line) for line in out.getvalue().splitlines()]
        os.close(w)
        thread.join(5)
    assert not thread.is_alive()
    assert lines[0]["method"] == "sampling/createMessage" and lines[0]["id"] == "replay-1"
    assert lines[1]["id"] == 7 and lines[1]["result"]["content"][0]["text"].startswith("draft")
    assert "sampling/createMessage (during tools/call draft): none came" in err.getvalue()


def test_messages_during_the_wait_are_answered_after(sampling: Path) -> None:
    plan = build_plan(read_session(sampling).events)
    server = RecordedServer(plan, source="test")
    call = {
        "jsonrpc": "2.0",
        "id": 7,
        "method": "tools/call",
        "params": {"name": "draft", "arguments": {"topic": "tea"}},
    }
    answer = {**(plan.server_requests[0].answer or {}), "id": "replay-1"}
    ping = {"jsonrpc": "2.0", "id": 8, "method": "ping"}
    stdin = io.BytesIO(b"".join(json.dumps(m).encode() + b"\n" for m in (call, ping, answer)))
    out, err = io.BytesIO(), io.StringIO()
    assert serve(server, stdin, out, err, 5.0) == 0
    lines = [json.loads(line) for line in out.getvalue().splitlines()]
    assert [m.get("id") for m in lines] == ["replay-1", 7, 8]
    assert err.getvalue() == (  # ping was never recorded: answered all the same
        "mcp-inspect replay: ping was not recorded in test: answered with the empty "
        "success a server gives\n"
    )
