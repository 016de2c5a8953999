"""Attach: an inspector on a live proxy, calling into the host's server connection.

The host here is mcp-inspect's own engine running the proxy as its stdio server (hosts
that are not ours are in test_proxy_hosts.py); the inspector is a session over the
attach socket, as the TUI's is.
"""

from __future__ import annotations

import stat
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import pytest
from proxy_support import (
    events,
    host_through_proxy,
    inspector_on,
    runtime_folder,
    wait_for_proxy,
)

from inspector.engine.client import McpClient
from inspector.engine.session import Session
from inspector.proxy.attach import AttachTransport, live_proxies, pick_proxy
from inspector.wire.events import Direction, WireEvent
from inspector.wire.transport import TransportError


@pytest.fixture
def runtime() -> Iterator[Path]:
    with runtime_folder() as folder:
        yield folder


def text_of(result: dict[str, Any]) -> str:
    return "\n".join(c.get("text", "") for c in result["content"] if c.get("type") == "text")


@pytest.mark.slow
async def test_attach_calls_into_the_live_session(runtime: Path, tmp_path: Path) -> None:
    host_seen: list[WireEvent] = []
    seen: list[WireEvent] = []
    record = tmp_path / "proxy.jsonl"
    with anyio.fail_after(90):
        async with host_through_proxy(runtime, record, host_seen) as host:
            host_client = McpClient(host)
            await host_client.list_tools()
            path = await wait_for_proxy("demo")
            assert stat.S_IMODE(path.stat().st_mode) == 0o600
            async with inspector_on(path, seen) as inspector:
                # the handshake is the host's: the inspector's initialize is answered with it
                assert inspector.server_info == host.server_info
                assert inspector.protocol_version == host.protocol_version
                client = McpClient(inspector)
                # both call at once; each gets its own answer
                answers: dict[str, str] = {}

                async def call(who: str, c: McpClient, a: int, b: int) -> None:
                    answers[who] = text_of(await c.call_tool("add", {"a": a, "b": b}))

                async with anyio.create_task_group() as tg:
                    for n in range(5):
                        tg.start_soon(call, f"host{n}", host_client, n, 100)
                        tg.start_soon(call, f"insp{n}", client, n, 1000)
                for n in range(5):
                    assert answers[f"host{n}"].startswith(f"{n} + 100 = {n + 100}")
                    assert answers[f"insp{n}"].startswith(f"{n} + 1000 = {n + 1000}")

                # the server's request caused by the inspector comes to the inspector
                mine = await client.call_tool("ask_llm", {"question": "who answers?"})
                assert "answered by the inspector" in text_of(mine)
                # the host's stays with the host
                theirs = await host_client.call_tool("ask_llm", {"question": "and now?"})
                assert "answered by the host" in text_of(theirs)

                # progress of the inspector's call comes back under its own token
                steps: list[float] = []
                await client.call_tool(
                    "slow_count",
                    {"count": 3, "delay": 0.01},
                    on_progress=lambda p, t, m: steps.append(p),
                )
                assert steps

            # detached: the proxy, the host and the server carry on
            again = await host_client.call_tool("add", {"a": 1, "b": 1})
            assert text_of(again).startswith("1 + 1 = 2")

    # the host never saw the inspector's traffic: no answer or server request meant for it
    host_ids = {
        e.msg_id for e in host_seen if e.direction is Direction.OUT and e.msg_id is not None
    }
    for event in host_seen:
        is_answer = isinstance(event.message, dict) and "method" not in event.message
        if event.direction is Direction.IN and is_answer:
            assert event.msg_id in host_ids
    host_sampling = [e for e in host_seen if e.method == "sampling/createMessage"]
    assert len(host_sampling) == 1

    # the inspector saw the host's traffic, labelled and not acted on
    observed = [e for e in seen if e.meta.get("observed")]
    assert any(e.meta.get("side") == "host" and e.method == "tools/call" for e in observed)
    own_answers = [
        e for e in seen if e.direction is Direction.IN and not e.meta.get("observed") and e.msg_id
    ]
    assert own_answers and all(e.meta.get("side") == "inspector" for e in own_answers)

    # the proxy's recording has it all: the inspector's frames as the server got them
    recorded = events(record)
    sent = [
        e for e in recorded if e["dir"] == "out" and e.get("meta", {}).get("side") == "inspector"
    ]
    assert sent and all(
        '"id":"mcp-inspect-' in e["raw"]
        for e in sent
        if '"method"' in e["raw"] and '"id"' in e["raw"]
    )
    notes = [e["raw"] for e in recorded if e["dir"] == "local"]
    assert any("inspector 1 attached" in n for n in notes)
    assert any("inspector 1 detached" in n for n in notes)


async def test_several_inspectors_and_the_listing(runtime: Path, tmp_path: Path) -> None:
    with anyio.fail_after(90):
        async with host_through_proxy(runtime, tmp_path / "p.jsonl", [], name="multi"):
            path = await wait_for_proxy("multi")
            one: list[WireEvent] = []
            two: list[WireEvent] = []
            async with inspector_on(path, one) as first, inspector_on(path, two) as second:
                (info,) = await live_proxies()
                assert info.name == "multi" and info.inspectors == 2
                a = await McpClient(first).call_tool("echo", {"message": "from one"})
                b = await McpClient(second).call_tool("echo", {"message": "from two"})
                assert "from one" in text_of(a) and "from two" in text_of(b)
            # each saw the other's call, as observed
            assert any(e.meta.get("observed") and e.meta.get("attach") == 2 for e in one)
            assert any(e.meta.get("observed") and e.meta.get("attach") == 1 for e in two)


async def test_another_users_socket_is_refused(runtime: Path) -> None:
    fake = runtime / "4242.sock"
    fake.write_text("")  # not a socket
    with pytest.raises(TransportError, match="not a socket"):
        async with Session(AttachTransport(fake)) as session:
            await session.initialize()


async def test_no_proxy_says_how_to_start_one(runtime: Path) -> None:
    with pytest.raises(ValueError, match="mcp-inspect proxy -- COMMAND"):
        pick_proxy(await live_proxies(), None)
