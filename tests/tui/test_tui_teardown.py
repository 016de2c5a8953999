"""Views that handle news while the screen is torn down (the real app): Textual removes a
screen's widgets deepest first when the app quits, and a view that takes a batch of
events, a task's outcome or a request's end in between finds its parts gone. It must
raise nothing (a ``NoMatches`` out of the app, seen in a CI run of a workspace test).
Each test removes a view's part first, as the teardown does, then brings the news."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from typing import Any

import pytest
from textual.widget import Widget
from textual.widgets import TabbedContent
from tui_helpers import wait_connected, wait_for

from inspector.engine.client import McpClient
from inspector.target import demo_target
from inspector.tui.app import InspectorApp
from inspector.tui.widgets.inflight import InFlightView
from inspector.tui.widgets.log_filter import LogFilterBar
from inspector.tui.widgets.message_log import MessageLog
from inspector.tui.widgets.server_log import ServerLogView
from inspector.tui.widgets.tasks_view import TasksView

pytestmark = pytest.mark.slow  # end to end: see pyproject's markers

SIZE = (140, 40)


@contextlib.asynccontextmanager
async def part_removed(
    view_type: type[Widget], selector: str, *keys: str
) -> AsyncIterator[tuple[Any, InspectorApp]]:
    """The demo connected, ``keys`` pressed, then ``view_type``'s part ``selector`` removed
    (first, as the teardown removes it); yields the pilot and the app."""
    app = InspectorApp(demo_target())
    async with app.run_test(size=SIZE) as pilot:
        await wait_connected(pilot)
        await pilot.press(*keys)
        view = app.query_one(view_type)
        await wait_for(pilot, lambda: view.is_on_screen or not keys)
        await view.query_one(selector).remove()
        yield pilot, app


async def test_events_that_come_while_the_log_is_torn_down_raise_nothing() -> None:
    async with part_removed(LogFilterBar, "#filter-count") as (pilot, app):
        log = app.query_one(MessageLog)
        before = log.shown
        await pilot.press("r")  # reconnect: a new session's frames come
        await wait_for(pilot, lambda: log.shown > before)
        await wait_connected(pilot)


async def test_a_task_that_ends_while_its_view_is_torn_down_raises_nothing() -> None:
    async with part_removed(TasksView, "#tasks-table") as (pilot, app):
        state = app.views[0].server.state
        task = await state.run_task("generate_report", {"topic": "t", "seconds": 0.1})
        await wait_for(pilot, lambda: task.terminal and task.fetched, timeout=30)
        await pilot.pause(0.2)  # its outcome drawn (or not) by now


async def test_a_request_that_ends_while_its_view_is_torn_down_raises_nothing() -> None:
    # f: the In flight tab, which draws only while shown
    async with part_removed(InFlightView, "#inflight-table", "f") as (pilot, app):
        session = app.views[0].server.state.session
        assert session is not None
        result = await McpClient(session).call_tool("slow_count", {"seconds": 0.3, "steps": 3})
        assert result is not None
        await pilot.pause(0.3)  # its end drawn (or not) by now


async def test_a_new_session_while_the_server_log_is_torn_down_raises_nothing() -> None:
    async with part_removed(ServerLogView, "#level-status") as (pilot, app):
        first = app.views[0].server.state.session
        await pilot.press("r")  # reconnect: the new session's capabilities are said there
        await wait_for(pilot, lambda: app.views[0].server.state.session not in (None, first))
        await wait_connected(pilot)
        await pilot.pause(0.2)


async def test_a_catalog_tab_switch_while_the_screen_is_torn_down_raises_nothing() -> None:
    # a CI run: `2` pressed just before the test's end switched the catalog's tab, and the
    # switch was handled after the teardown had removed the screen's #main
    app = InspectorApp(demo_target())
    async with app.run_test(size=SIZE) as pilot:
        await wait_connected(pilot)
        tabs = app.query_one("#catalog-tabs", TabbedContent)
        switched = TabbedContent.TabActivated(tabs, tabs.get_tab("tab-resources"))
        await app.main.query_one("#main").remove()
        app.post_message(switched)
        await pilot.pause(0.2)  # handled by now
