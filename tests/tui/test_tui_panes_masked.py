"""The panes beyond the log that show server text mask a secret the session knows, as the
session file has it (issue 24 item 2): the catalog's rows, the item's description and
its form's field descriptions, the Server pane (instructions, server info), the status
bar's server title, the In flight tab and the call history (a progress message, an
error), the result pane's progress line, the Tasks tab (a status message, a result), the
line by the server log's level picker (a refusal), and the elicitation and sampling
dialogs. The server (``http_echo_token.py``) echoes the ``Authorization`` header given
with ``-H`` in each, as it receives it on each request."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from everything import wait_for_screen
from servers.http_support import sdk_server
from textual.widgets import DataTable, Select, Static
from tui_helpers import plain, screen_text, select_item, wait_for

from inspector.engine.responders import Responders
from inspector.record.redact import REDACTED
from inspector.target import Target
from inspector.tui.app import InspectorApp
from inspector.tui.interactive_setup import interactive_responders
from inspector.tui.screens.elicitation import ElicitationScreen
from inspector.tui.screens.history import HistoryScreen
from inspector.tui.screens.sampling import SamplingScreen
from inspector.tui.widgets.catalog import Catalog
from inspector.tui.widgets.inflight import InFlightView
from inspector.tui.widgets.result_view import ResultView
from inspector.tui.widgets.server_pane import ServerPane
from inspector.tui.widgets.tasks_view import TasksView

pytestmark = pytest.mark.slow  # end to end: a server process and the whole app

TOKEN = "sekrit-token-456"
SIZE = (200, 45)


@pytest.fixture(scope="module")
def echo_url() -> Iterator[str]:
    with sdk_server("json", script="http_echo_token.py") as base:
        yield f"{base}/mcp"


def echo_app(url: str) -> InspectorApp:
    """The app on the echo server, answering its requests with the TUI's dialogs."""
    target = Target(url=url, headers={"Authorization": f"Bearer {TOKEN}"})
    responders = Responders()
    app = InspectorApp(target, protocol_version="2025-11-25", responders=responders)
    interactive_responders(app, responders)
    return app


async def listed(pilot: Any) -> None:
    app = pilot.app
    await wait_for(
        pilot,
        lambda: (
            app.controller is not None
            and app.controller.connected
            and app.query_one(Catalog).items["tools"]
        ),
    )


def table_text(app: InspectorApp, table_id: str) -> str:
    table = app.screen.query_one(table_id, DataTable)
    rows = (table.get_row_at(i) for i in range(table.row_count))
    return "\n".join(" ".join(str(cell) for cell in row) for row in rows)


def static_text(app: InspectorApp, selector: str) -> str:
    return plain(app.screen.query_one(selector, Static).content, width=400)


async def test_the_catalog_and_the_server_pane_mask_it(echo_url: str) -> None:
    app = echo_app(echo_url)
    async with app.run_test(size=SIZE) as pilot:
        await listed(pilot)
        said = f"this list came with {REDACTED}"  # the header's value is a secret whole
        row = app.query_one(Catalog).entries["tools"][0]  # the tools list's row
        assert said in row.description and TOKEN not in row.description
        await wait_for(pilot, lambda: REDACTED in screen_text(app))
        assert TOKEN not in screen_text(app)
        bar = plain(app.main.status_bar.render(), width=400)  # the server's title
        assert f"echo-token for {REDACTED}" in bar and TOKEN not in bar
        await select_item(pilot, "tools", "whoami")  # its description on top of the form
        head = static_text(app, "#item-head")
        assert said in head and TOKEN not in head

        await pilot.press("escape", "i")  # the Server pane
        pane = app.query_one(ServerPane)
        await wait_for(pilot, lambda: pane.is_on_screen)
        await wait_for(pilot, lambda: "Instructions" in static_text(app, "#server-body"))
        shown = static_text(app, "#server-body")
        assert f"You are signed in with {REDACTED}." in shown  # instructions
        assert f"signed in with {REDACTED}" in shown.replace(".", "")  # serverInfo
        assert TOKEN not in shown and TOKEN not in screen_text(app)
        session = app.controller.session  # type: ignore[union-attr]
        assert session is not None and TOKEN in (session.instructions or "")  # as it came


async def test_in_flight_masks_a_progress_message_and_an_error(echo_url: str) -> None:
    app = echo_app(echo_url)
    async with app.run_test(size=SIZE) as pilot:
        await listed(pilot)
        await select_item(pilot, "tools", "whoami_wait")
        await pilot.press("ctrl+s")
        session = app.controller.session  # type: ignore[union-attr]
        assert session is not None
        await wait_for(
            pilot,
            lambda: any(p.method == "tools/call" and p.message for p in session.pending.values()),
        )
        inflight = app.query_one(InFlightView)
        await pilot.press("escape", "f")  # leave the form, open the In flight tab
        await wait_for(
            pilot, lambda: app.focused is not None and inflight in app.focused.ancestors_with_self
        )
        await wait_for(pilot, lambda: f"checking {REDACTED}" in screen_text(app))
        assert TOKEN not in screen_text(app)
        await pilot.press("c")  # cancelled: the server's stream ends
        view = app.query_one(ResultView)
        await wait_for(pilot, lambda: view.outcome is not None)

        await select_item(pilot, "tools", "whoami_refused")
        helps = [plain(s.content, width=400) for s in app.query(".field-help").results(Static)]
        assert any(f"why {REDACTED} should pass" in h for h in helps)  # a field's description
        assert not any(TOKEN in h for h in helps)
        await pilot.press("ctrl+s")
        await wait_for(pilot, lambda: "whoami_refused" in table_text(app, "#inflight-table"))
        await pilot.press("escape", "f")
        await wait_for(pilot, lambda: f"not allowed with {REDACTED}" in screen_text(app))
        rows = table_text(app, "#inflight-table")
        assert f"not allowed with {REDACTED}" in rows and TOKEN not in rows

        await pilot.press("h")  # the call history: the error in the call's row
        await wait_for(pilot, lambda: isinstance(app.screen, HistoryScreen))
        await wait_for(pilot, lambda: "whoami_refused" in table_text(app, "#call-rows"))
        rows = table_text(app, "#call-rows")
        assert f"not allowed with {REDACTED}"[:20] in rows and TOKEN not in rows
        assert TOKEN not in screen_text(app)


async def test_tasks_mask_a_status_message_and_a_result(echo_url: str) -> None:
    app = echo_app(echo_url)
    async with app.run_test(size=SIZE) as pilot:
        await listed(pilot)
        await select_item(pilot, "tools", "whoami_task")
        await pilot.press("ctrl+s")  # taskSupport required: called as a task
        tasks = app.query_one(TasksView)
        await wait_for(
            pilot,
            lambda: (
                tasks.manager is not None
                and any(s.result is not None for s in tasks.manager.tasks.values())
            ),
        )
        await pilot.press("escape", "t")  # the Tasks tab
        await wait_for(
            pilot, lambda: app.focused is not None and tasks in app.focused.ancestors_with_self
        )
        await wait_for(pilot, lambda: f"checking {REDACTED}" in screen_text(app))
        rows = table_text(app, "#tasks-table")
        assert f"checking {REDACTED}" in rows and TOKEN not in rows
        await wait_for(pilot, lambda: f"task saw {REDACTED}" in static_text(app, "#task-detail"))
        assert TOKEN not in screen_text(app)


async def test_the_server_logs_level_line_masks_a_refusal(echo_url: str) -> None:
    app = echo_app(echo_url)
    async with app.run_test(size=SIZE) as pilot:
        await listed(pilot)
        await pilot.press("o")  # the Server log tab
        picker = app.query_one("#level", Select)
        await wait_for(pilot, lambda: picker.is_on_screen)
        for _ in range(8):  # Tab to the level picker, as a user does
            if picker.has_focus:
                break
            await pilot.press("tab")
        assert picker.has_focus
        await pilot.press("enter", "down", "enter")  # the first level
        said = f"no log level for {REDACTED}"
        await wait_for(pilot, lambda: said in static_text(app, "#level-status"))
        assert TOKEN not in screen_text(app)


async def test_an_elicitations_message_is_masked(echo_url: str) -> None:
    app = echo_app(echo_url)
    async with app.run_test(size=SIZE) as pilot:
        await listed(pilot)
        await select_item(pilot, "tools", "whoami_ask")
        await pilot.press("ctrl+s")  # the server asks (elicitation/create) before answering
        await wait_for_screen(pilot, ElicitationScreen)
        said = static_text(app, "#message")
        assert f"Go on as {REDACTED}?" in said and TOKEN not in screen_text(app)
        await pilot.press("ctrl+s")  # accept: the call ends
        view = app.query_one(ResultView)
        await wait_for(pilot, lambda: view.outcome is not None and view.complete)


async def test_a_sampling_requests_messages_are_masked(echo_url: str) -> None:
    app = echo_app(echo_url)
    async with app.run_test(size=SIZE) as pilot:
        await listed(pilot)
        await select_item(pilot, "tools", "whoami_sample")
        await pilot.press("ctrl+s")  # the server asks for a completion before answering
        await wait_for_screen(pilot, SamplingScreen)
        shown = static_text(app, "#request-body") + static_text(app, "#title")
        assert f"Summarise {REDACTED}." in shown and f"for {REDACTED}" in shown
        assert TOKEN not in shown and TOKEN not in screen_text(app)
        assert TOKEN in str(app.screen.params)  # type: ignore[attr-defined]  (as it came)
