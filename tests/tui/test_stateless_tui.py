"""The TUI's interactive responders answer a 2026-07-28 multi-round-trip elicitation
unchanged: the SDK server's input_required result opens the same elicitation screen, and
the retried call completes with what the user typed (Pilot, real SDK server over stdio)."""

from __future__ import annotations

import sys
from typing import Any

import anyio
import pytest
from paths import SERVERS
from textual.widgets import Input
from tui_helpers import log_methods, wait_for

from inspector.engine.client import McpClient
from inspector.engine.kinds import CATALOG_KINDS
from inspector.engine.session import Session
from inspector.target import target_from_words
from inspector.transports.stdio import StdioTransport
from inspector.tui.app import InspectorApp
from inspector.tui.interactive import InteractiveResponders
from inspector.tui.screens.elicitation import ElicitationScreen
from inspector.tui.widgets.schema_form import SchemaForm
from tests.everything import HostApp, wait_for_screen

pytestmark = pytest.mark.slow  # end to end: see pyproject's markers

SERVER = SERVERS / "stateless_server.py"


async def test_mrtr_elicitation_through_the_interactive_screen() -> None:
    app = HostApp()
    out: dict[str, Any] = {}
    async with app.run_test(size=(120, 45)) as pilot:
        bridge = InteractiveResponders(app)
        transport = StdioTransport(sys.executable, [str(SERVER), "stdio"])
        async with (
            Session(
                transport, responders=bridge.responders(), protocol_version="2026-07-28", timeout=30
            ) as session,
            anyio.create_task_group() as tg,
        ):
            bridge.attach(session)
            await session.initialize()

            async def call() -> None:
                out["result"] = await McpClient(session).call_tool("greet")

            tg.start_soon(call)
            screen = await wait_for_screen(pilot, ElicitationScreen)
            field = screen.query_one("#form", SchemaForm).field(("name",))
            assert field is not None
            field.query_one(Input).value = "Lin"
            await pilot.pause()
            await pilot.press("ctrl+s")
            await wait_for(pilot, lambda: "result" in out)
    assert out["result"]["structuredContent"] == {"result": "hello, Lin"}


async def test_the_app_connects_statelessly_and_loads_its_catalog() -> None:
    target = target_from_words([sys.executable, str(SERVER), "stdio"])
    app = InspectorApp(target, protocol_version="2026-07-28", timeout=30)
    async with app.run_test(size=(120, 45)) as pilot:
        kinds = {kind.name for kind in CATALOG_KINDS}
        # every kind loaded (a CatalogLoaded handled after the test ends finds no Catalog),
        # and the tools list followed by a subscriptions/listen stream
        await wait_for(
            pilot,
            lambda: (
                app.controller is not None
                and app.controller.connected
                and set(app.controller.catalog) == kinds
                and "subscriptions/listen" in log_methods(app)
            ),
        )
        assert app.controller is not None
        assert {"add", "greet"} <= {t.get("name") for t in app.controller.catalog["tools"]}
        session = app.controller.session
        assert session is not None and session.protocol_version == "2026-07-28"
        methods = [m for m in log_methods(app) if m]
        assert "initialize" not in methods and methods[0] == "server/discover"
        await pilot.pause()  # hygiene: the last CatalogLoaded handled before teardown
