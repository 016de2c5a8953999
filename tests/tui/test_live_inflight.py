"""The in-flight view: progress, cancel and late responses, against real servers (Pilot)."""

from __future__ import annotations

import os
import sys
import textwrap
from pathlib import Path
from typing import Any

import anyio
from textual.widgets import DataTable
from tui_helpers import focus, wait_for

from inspector.engine.client import McpClient
from inspector.engine.session import Session
from inspector.live.requests import describe
from inspector.live.state import LiveState
from inspector.transports.stdio import StdioTransport
from inspector.tui.widgets.inflight import InFlightView, progress_bar
from inspector.wire.jsonrpc import RpcError
from tests.everything import LiveHost, demo_session, everything_session

SHOTS = os.environ.get("INSPECT_SHOTS")

# A server that keeps working after notifications/cancelled and answers anyway (late).
LATE_SERVER = textwrap.dedent("""
    import json, sys, threading, time
    def send(msg):
        sys.stdout.write(json.dumps(msg) + "\\n"); sys.stdout.flush()
    def slow(req):
        time.sleep(1.0)
        send({"jsonrpc": "2.0", "id": req["id"],
              "result": {"content": [{"type": "text", "text": "too late"}]}})
    for line in sys.stdin:
        msg = json.loads(line)
        if msg.get("method") == "initialize":
            send({"jsonrpc": "2.0", "id": msg["id"], "result": {
                "protocolVersion": "2025-11-25", "capabilities": {"tools": {}},
                "serverInfo": {"name": "late", "version": "1"}}})
        elif msg.get("method") == "tools/call":
            threading.Thread(target=slow, args=(msg,)).start()
""")


def _rows(view: InFlightView) -> list[list[str]]:
    table = view.query_one("#inflight-table", DataTable)
    return [[str(cell) for cell in table.get_row_at(i)] for i in range(table.row_count)]


async def test_demo_progress_and_cancel_from_the_view() -> None:
    state = LiveState()
    view = InFlightView(state)
    app = LiveHost(state, view)
    async with (
        app.run_test(size=(120, 20)) as pilot,
        demo_session() as session,
        anyio.create_task_group() as tg,
    ):
        state.attach(session)
        out: dict[str, Any] = {}

        async def call() -> None:
            try:
                await McpClient(session).call_tool(
                    "slow_count", {"seconds": 20, "steps": 40}, on_progress=lambda *a: None
                )
            except RpcError as exc:
                out["error"] = exc

        tg.start_soon(call)
        # progress arrives: the bar shows n/40
        await wait_for(pilot, lambda: any("/40" in r[3] for r in _rows(view)))
        row = _rows(view)[0]
        assert row[1] == "tools/call slow_count" and row[2].strip().endswith("s")
        assert "step" in row[4]  # the progress message
        if SHOTS:
            app.save_screenshot(filename="inflight.svg", path=SHOTS)
        await focus(pilot, view.query_one("#inflight-table", DataTable))
        await pilot.press("c")
        await wait_for(pilot, lambda: "error" in out)
        await wait_for(pilot, lambda: any(r[4].startswith("cancelled") for r in _rows(view)))
        rows = _rows(view)
    assert "cancelled" in str(out["error"])
    cancelled = [r for r in rows if r[1] == "tools/call slow_count"]
    assert cancelled and cancelled[0][4].startswith("cancelled")
    assert all("/40" not in r[3] for r in rows)  # no longer pending


async def test_late_response_is_marked(tmp_path: Path) -> None:
    script = tmp_path / "late_server.py"
    script.write_text(LATE_SERVER)
    state = LiveState()
    view = InFlightView(state)
    app = LiveHost(state, view)
    async with (
        app.run_test(size=(120, 20)) as pilot,
        Session(StdioTransport(sys.executable, [str(script)])) as session,
        anyio.create_task_group() as tg,
    ):
        await session.initialize()
        state.attach(session)
        out: dict[str, Any] = {}

        async def call() -> None:
            try:
                await McpClient(session).call_tool("anything")
            except RpcError as exc:
                out["error"] = exc

        tg.start_soon(call)
        await wait_for(pilot, lambda: view.pending() != [])
        await focus(pilot, view.query_one("#inflight-table", DataTable))
        await pilot.press("delete")
        await wait_for(
            pilot, lambda: "late response" in " ".join(r[4] for r in _rows(view)), timeout=4
        )
        if SHOTS:
            app.save_screenshot(filename="inflight-late.svg", path=SHOTS)
    assert "cancelled" in str(out["error"])


async def test_everything_long_running_operation_progress_and_outcome() -> None:
    state = LiveState()
    view = InFlightView(state)
    app = LiveHost(state, view)
    async with app.run_test(size=(120, 20)) as pilot, everything_session() as session:
        state.attach(session)
        seen: list[float] = []
        result = await McpClient(session).call_tool(
            "trigger-long-running-operation",
            {"duration": 0.6, "steps": 3},
            on_progress=lambda p, t, m: seen.append(p),
        )
        await wait_for(pilot, lambda: any(r[4].startswith("ok") for r in _rows(view)))
        rows = _rows(view)
    assert seen == [1, 2, 3]
    assert "completed" in result["content"][0]["text"]
    done = [r for r in rows if r[1] == "tools/call trigger-long-running-operation"]
    assert done and done[0][4].startswith("ok")


def test_helpers() -> None:
    assert describe("tools/call", {"name": "echo"}) == "tools/call echo"
    assert describe("resources/read", {"uri": "demo://x"}) == "resources/read demo://x"
    assert describe("ping", None) == "ping"
    assert str(progress_bar(5, 10, width=10)) == "█████░░░░░ 5/10"
    assert "no total" in str(progress_bar(3, None))
    assert str(progress_bar(None, None)) == "waiting"


async def test_request_sent_before_attach_is_named_and_quick_ones_show_ms() -> None:
    state = LiveState()
    view = InFlightView(state)
    app = LiveHost(state, view)
    async with (
        app.run_test(size=(120, 20)) as pilot,
        demo_session() as session,
        anyio.create_task_group() as tg,
    ):
        client = McpClient(session)
        started = anyio.Event()

        async def slow() -> None:
            started.set()
            await client.call_tool(
                "slow_count", {"seconds": 1, "steps": 2}, on_progress=lambda *a: None
            )

        tg.start_soon(slow)
        await started.wait()
        await anyio.sleep(0.1)
        state.attach(session)  # the call is already pending: it must still get its name
        await wait_for(pilot, lambda: any(r[1] == "tools/call slow_count" for r in _rows(view)))
        await client.ping()
        await wait_for(pilot, lambda: any(r[1] == "ping" for r in _rows(view)))
        ping = next(r for r in _rows(view) if r[1] == "ping")
        assert ping[2].strip().endswith("ms"), ping
