"""Intercept: the host's and the server's frames held until an inspector forwards, edits
or drops them; every change is in the recording."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import pytest
from proxy_support import events, host_through_proxy, inspector_on, runtime_folder, wait_for_proxy

from inspector.engine.client import McpClient
from inspector.engine.session import RequestTimeoutError, Session
from inspector.proxy.attach import AttachTransport
from inspector.wire.events import WireEvent


@pytest.fixture
def runtime() -> Iterator[Path]:
    with runtime_folder() as folder:
        yield folder


async def until(predicate: Any, timeout: float = 20) -> None:
    with anyio.fail_after(timeout):
        while not predicate():
            await anyio.sleep(0.02)


def transport_of(session: Session) -> AttachTransport:
    transport = session.transport
    assert isinstance(transport, AttachTransport)
    return transport


def text_of(result: dict[str, Any]) -> str:
    return "".join(c.get("text", "") for c in result["content"])


async def test_hold_edit_and_drop_the_hosts_requests(runtime: Path, tmp_path: Path) -> None:
    record = tmp_path / "p.jsonl"
    seen: list[WireEvent] = []
    async with host_through_proxy(runtime, record, [], name="icpt") as host:
        client = McpClient(host)
        async with inspector_on(await wait_for_proxy("icpt"), seen) as inspector:
            control = transport_of(inspector)
            await control.set_intercept("method:tools/call")
            await until(lambda: control.intercept_filter == "method:tools/call")

            results: list[str] = []

            async def call() -> None:
                results.append(text_of(await client.call_tool("add", {"a": 1, "b": 2})))

            async with anyio.create_task_group() as tg:
                tg.start_soon(call)
                await until(lambda: len(control.held) == 1)
                (number, held) = next(iter(control.held.items()))
                assert held["dir"] == "out" and held["side"] == "host"
                edited = json.loads(held["raw"])
                edited["params"]["arguments"]["a"] = 40
                await control.release(number, "forward", json.dumps(edited).encode())
            assert results == ["40 + 2 = 42"]  # the server got the edit

            # the inspector's own calls are never held
            mine = await McpClient(inspector).call_tool("add", {"a": 2, "b": 2})
            assert text_of(mine).startswith("2 + 2 = 4")

            async def dropped() -> None:
                with pytest.raises(RequestTimeoutError):
                    await host.request(
                        "tools/call", {"name": "echo", "arguments": {"message": "x"}}, timeout=3
                    )

            async with anyio.create_task_group() as tg:
                tg.start_soon(dropped)
                await until(lambda: len(control.held) == 1)
                await control.release(next(iter(control.held)), "drop")
            await control.set_intercept("")
            await until(lambda: control.intercept_filter == "")
            assert text_of(await client.call_tool("add", {"a": 1, "b": 1})).startswith("1 + 1")

    recorded = events(record)
    notes = [e for e in recorded if e["dir"] == "local"]
    held_note = next(e for e in notes if e["raw"].startswith("held #1"))
    assert '"a":1' in held_note["meta"]["raw"].replace(" ", "")  # what the host sent
    sent = next(
        e for e in recorded if e["dir"] == "out" and e.get("meta", {}).get("intercept") == "edited"
    )
    assert '"a": 40' in sent["raw"]  # what the server got
    assert '"a":1' in sent["meta"]["original"].replace(" ", "")
    assert any(e["raw"].startswith("dropped #2") for e in notes)
    assert not any(e["dir"] == "out" and '"echo"' in e["raw"] for e in recorded)


async def test_hold_and_edit_the_servers_answer(runtime: Path, tmp_path: Path) -> None:
    record = tmp_path / "p.jsonl"
    async with host_through_proxy(runtime, record, [], name="icpt2") as host:
        client = McpClient(host)
        async with inspector_on(await wait_for_proxy("icpt2"), []) as inspector:
            control = transport_of(inspector)
            await control.set_intercept("dir:in kind:response")
            results: list[str] = []

            async def call() -> None:
                results.append(text_of(await client.call_tool("echo", {"message": "hi"})))

            async with anyio.create_task_group() as tg:
                tg.start_soon(call)
                await until(lambda: len(control.held) == 1)
                (number, held) = next(iter(control.held.items()))
                assert held["dir"] == "in"
                answer = json.loads(held["raw"])
                answer["result"]["content"] = [{"type": "text", "text": "changed on the way"}]
                await control.release(number, "forward", json.dumps(answer).encode())
            assert results == ["changed on the way"]
            await control.set_intercept("kind:bogus")
            await until(lambda: control.intercept_error is not None)
            assert "bogus" in str(control.intercept_error)

    recorded = events(record)
    got = next(
        e for e in recorded if e["dir"] == "in" and e.get("meta", {}).get("intercept") == "held"
    )
    assert "changed on the way" not in got["raw"]  # as the server sent it
    note = next(e for e in recorded if e["raw"].startswith("edited #"))
    assert "changed on the way" in note["meta"]["delivered"]  # as the host got it


async def test_the_last_inspector_leaving_lets_held_frames_go(
    runtime: Path, tmp_path: Path
) -> None:
    """An inspector sets a filter, a host's call is held, the inspector quits: nobody can
    release it any more, so the proxy forwards it and stops intercepting (the host's call
    hung for good before)."""
    record = tmp_path / "p.jsonl"
    async with host_through_proxy(runtime, record, [], name="gone") as host:
        client = McpClient(host)
        results: list[str] = []

        async def call() -> None:
            results.append(text_of(await client.call_tool("add", {"a": 1, "b": 2})))

        async with anyio.create_task_group() as tg:
            async with inspector_on(await wait_for_proxy("gone"), []) as inspector:
                control = transport_of(inspector)
                await control.set_intercept("method:tools/call")
                await until(lambda: control.intercept_filter == "method:tools/call")
                tg.start_soon(call)
                await until(lambda: len(control.held) == 1)
            await until(lambda: results == ["1 + 2 = 3"])  # forwarded once it detached
        again = await client.call_tool("add", {"a": 2, "b": 2})  # and not held any more
        assert text_of(again).startswith("2 + 2 = 4")
    notes = [e["raw"] for e in events(record) if e["dir"] == "local"]
    assert any("forwarded #" in n and "no inspector attached" in n for n in notes)
    assert any(n.startswith("intercept off") for n in notes)
