"""The log's rows, the event detail (pretty and raw), its saved file and its OSC 52 copy,
the result pane's save and copy, and the server log tab show a secret the session knows
masked, as the session file has it (issue 24 item 2): a server that echoes the
``Authorization`` header given with ``-H`` does not put it on screen, in a file or on the
clipboard. The stored events stay as they came."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from servers.http_support import sdk_server
from textual.widgets import Input, OptionList, RichLog
from tui_helpers import screen_text, select_item, view_text, wait_for

from inspector.record.redact import REDACTED
from inspector.target import Target, demo_target
from inspector.tui.app import InspectorApp
from inspector.tui.mode import Live
from inspector.tui.result_files import default_folder
from inspector.tui.screens.all_log import AllLogScreen
from inspector.tui.screens.save_files import SaveFilesScreen
from inspector.tui.screens.server_list import ServerListScreen
from inspector.tui.widgets.catalog import Catalog
from inspector.tui.widgets.message_detail import MessageDetail
from inspector.tui.widgets.message_log import MessageLog
from inspector.tui.widgets.result_view import ResultView
from inspector.wire.events import Channel, Direction, Kind

pytestmark = pytest.mark.slow  # end to end: a server process and the whole app

TOKEN = "sekrit-token-123"
SIZE = (200, 45)


@pytest.fixture(scope="module")
def echo_url() -> Iterator[str]:
    with sdk_server("json", script="http_echo_token.py") as base:
        yield f"{base}/mcp"


def echo_app(url: str) -> InspectorApp:
    target = Target(url=url, headers={"Authorization": f"Bearer {TOKEN}"})
    return InspectorApp(target, protocol_version="2025-11-25")


async def call(pilot: Any, tool: str) -> int:
    """Call ``tool`` (no arguments) as a user does; the index of its response frame."""
    app = pilot.app
    await wait_for(
        pilot,
        lambda: (
            app.controller is not None
            and app.controller.connected
            and app.query_one(Catalog).items["tools"]
        ),
    )
    source = app.main.message_log.source
    before = len(source)
    await select_item(pilot, "tools", tool)
    view = app.query_one(ResultView)
    await pilot.press("ctrl+s")
    await wait_for(pilot, lambda: view.outcome is not None and view.complete)
    await pilot.press("escape")  # out of the form: the keys are the app's again
    await wait_for(pilot, lambda: app.focused is not None and app.focused.id == "list-tools")

    def response() -> int | None:
        for index in range(before, len(source)):
            if source.method(index) == "tools/call" and source.direction(index) is Direction.OUT:
                return source.find_response(index)
        return None

    await wait_for(pilot, lambda: response() is not None)
    index = response()
    assert index is not None
    assert TOKEN.encode() in source.raw(index)  # the wire's truth is kept
    return index


async def open_detail(pilot: Any, index: int) -> None:
    """The log's rows focused (``g``), the cursor moved with the keys to event
    ``index``, and its detail opened (Enter)."""
    app = pilot.app
    log = app.main.message_log
    detail = app.main.detail
    await pilot.press("g", "end")
    await wait_for(pilot, lambda: log.cursor_index is not None)
    for _ in range(40):
        if log.cursor_index == index:
            break
        await pilot.press("up" if log.cursor_index > index else "down")
    assert log.cursor_index == index
    await pilot.press("enter")
    await wait_for(
        pilot, lambda: detail.display and detail.event is not None and detail.index == index
    )


async def test_an_echoed_header_is_masked_in_rows_detail_save_and_copy(echo_url: str) -> None:
    app = echo_app(echo_url)
    async with app.run_test(size=SIZE) as pilot:
        index = await call(pilot, "whoami")
        await pilot.press("g")
        await wait_for(pilot, lambda: f"Authorization: {REDACTED}" in screen_text(app))
        assert TOKEN not in screen_text(app)  # the row, and the result pane

        await open_detail(pilot, index)
        detail = app.main.detail
        shown = view_text(detail.view)
        assert "message (v: raw)" in shown  # the pretty view
        assert f"Authorization: {REDACTED}" in shown and TOKEN not in shown
        await pilot.press("v")
        await wait_for(pilot, lambda: "raw bytes (v: pretty)" in view_text(detail.view))
        shown = view_text(detail.view).replace("\n", "")  # the raw line wraps
        assert f"Authorization: {REDACTED}" in shown and TOKEN not in shown

        await pilot.press("c")  # OSC 52
        await wait_for(pilot, lambda: bool(app.clipboard))
        assert f"Authorization: {REDACTED}" in app.clipboard and TOKEN not in app.clipboard

        await pilot.press("s")
        box = detail.query_one("#detail-save", Input)
        await wait_for(pilot, lambda: box.has_focus)
        saved = default_folder() / box.value
        await pilot.press("enter")
        await wait_for(pilot, saved.exists)
        text = saved.read_text()
        assert f"Authorization: {REDACTED}" in text and TOKEN not in text
        assert TOKEN.encode() in app.main.message_log.source.raw(index)  # unchanged

        # the request's HTTP frame: the header sent, in the detail's transport part
        source = app.main.message_log.source
        posted = max(
            i
            for i in range(index)
            if source.channel(i) is Channel.HTTP and source.direction(i) is Direction.OUT
        )
        await open_detail(pilot, posted)
        shown = view_text(detail.view)
        assert "headers" in shown and REDACTED in shown and TOKEN not in shown


async def test_a_row_cut_in_the_middle_of_a_secret_masks_its_start(echo_url: str) -> None:
    app = echo_app(echo_url)
    async with app.run_test(size=SIZE) as pilot:
        index = await call(pilot, "whoami_long")
        lines = app.main.message_log.lines
        await wait_for(pilot, lambda: lines.row_of(index) is not None)
        row = lines.render_row(index, 400).text  # the whole summary, cut at 160 characters
        assert f"Authorization: {REDACTED}…" in row
        assert "sekrit" not in row


async def test_the_result_panes_save_and_copy_mask_it_too(echo_url: str) -> None:
    app = echo_app(echo_url)
    async with app.run_test(size=SIZE) as pilot:
        await call(pilot, "whoami")
        view = app.query_one(ResultView)
        for _ in range(8):  # Tab to the result, as a user does
            if app.focused is view:
                break
            await pilot.press("tab")
        assert app.focused is view
        await pilot.press("c")
        await wait_for(pilot, lambda: bool(app.clipboard))
        assert f"Authorization: {REDACTED}" in app.clipboard and TOKEN not in app.clipboard
        assert TOKEN in str(view.outcome.result)  # type: ignore[union-attr]  (kept whole)
        for downs, name in ((0, "result-whoami.json"), (1, "result-whoami.txt")):
            await wait_for(pilot, lambda: app.focused is view)
            await pilot.press("s")
            await wait_for(pilot, lambda: isinstance(app.screen, SaveFilesScreen))
            options = app.screen.query_one(OptionList)
            await wait_for(pilot, lambda: options.has_focus)  # noqa: B023 (awaited here)
            await pilot.press(*["down"] * downs, "enter")
            saved = default_folder() / name
            await wait_for(pilot, saved.exists)
            text = saved.read_text()
            assert f"Authorization: {REDACTED}" in text and TOKEN not in text


async def test_a_workspaces_merged_log_masks_it_too(echo_url: str) -> None:
    target = Target(url=echo_url, headers={"Authorization": f"Bearer {TOKEN}"})
    app = InspectorApp(
        Live(target), protocol_version="2025-11-25", workspace=[("demo2", demo_target(), None)]
    )
    async with app.run_test(size=SIZE) as pilot:
        await call(pilot, "whoami")
        await pilot.press("escape", "W")
        await wait_for(pilot, lambda: isinstance(app.screen, ServerListScreen))
        await pilot.press("a")
        await wait_for(pilot, lambda: isinstance(app.screen, AllLogScreen))
        log = app.screen.query_one(MessageLog)
        source = log.source

        def answer() -> int | None:
            for index in range(len(source)):
                if source.method(index) == "tools/call" and source.kind(index) is Kind.RESPONSE:
                    return index
            return None

        await wait_for(pilot, lambda: answer() is not None and log.shown == len(source))
        await wait_for(pilot, lambda: f"Authorization: {REDACTED}" in screen_text(app))
        assert TOKEN not in screen_text(app)
        index = answer()
        assert index is not None
        await wait_for(pilot, lambda: log.lines.has_focus)
        await pilot.press("end")
        for _ in range(40):
            if log.cursor_index is None or log.cursor_index <= index:
                break
            await pilot.press("up")
        assert log.cursor_index == index
        await pilot.press("enter")
        detail = app.screen.query_one(MessageDetail)
        await wait_for(pilot, lambda: detail.display and detail.event is not None)
        shown = view_text(detail.view)
        assert f"Authorization: {REDACTED}" in shown and TOKEN not in shown
        await pilot.press("c")
        await wait_for(pilot, lambda: bool(app.clipboard))
        assert f"Authorization: {REDACTED}" in app.clipboard and TOKEN not in app.clipboard


async def test_the_server_log_tab_masks_it_too(echo_url: str) -> None:
    app = echo_app(echo_url)
    async with app.run_test(size=SIZE) as pilot:
        await call(pilot, "whoami")  # a log message quoting the header comes first
        await wait_for(pilot, lambda: app.state.server_log.count > 0)
        await pilot.press("o")  # the Server log tab
        server_log = app.query_one("#server-log", RichLog)
        await wait_for(pilot, lambda: len(server_log.lines) > 0)
        shown = "\n".join(line.text for line in server_log.lines)
        assert f"request came with Authorization: {REDACTED}" in shown and TOKEN not in shown
        entry = app.state.server_log.entries[-1]
        assert TOKEN in entry.params["data"]  # the entry kept as it came
