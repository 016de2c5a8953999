"""The log in the real app: the filter (what it did not understand, completion,
is:error) and the detail's keys pressed from the log."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from textual.widgets import Input
from tui_helpers import screen_text, select_item, wait_connected, wait_for

from inspector.commands.options import target_info
from inspector.record.format import SessionHeader
from inspector.record.indexed import IndexedSessionFile
from inspector.record.recorder import Recorder
from inspector.target import demo_target
from inspector.tui.app import InspectorApp
from inspector.tui.widgets.item_panel import ItemPanel
from inspector.tui.widgets.log_filter import LogFilterBar
from inspector.tui.widgets.message_detail import MessageDetail
from inspector.tui.widgets.message_log import MessageLog
from inspector.tui.widgets.result_view import ResultView
from inspector.wire.events import Kind

pytestmark = pytest.mark.slow  # end to end: see pyproject's markers

SIZE = (140, 40)


async def open_filter(pilot: Any) -> LogFilterBar:
    """g then /, as a user goes to the log and filters it."""
    app = pilot.app
    await pilot.press("g")
    log = app.query_one(MessageLog)
    await wait_for(pilot, lambda: log.lines.has_focus)
    await pilot.press("slash")
    bar = app.query_one(LogFilterBar)
    await wait_for(pilot, lambda: bar.input.has_focus)
    return bar


async def test_an_unknown_value_or_key_is_said_under_the_filter() -> None:
    app = InspectorApp(demo_target())
    async with app.run_test(size=SIZE) as pilot:
        await wait_connected(pilot)
        log = app.query_one(MessageLog)
        bar = await open_filter(pilot)
        await pilot.press(*"kind:bogus")
        await wait_for(pilot, lambda: "unknown kind 'bogus'" in bar.help_line)
        assert "column 6" in bar.help_line and "request, response" in bar.help_line
        assert "unknown kind 'bogus'" in screen_text(app)
        # nothing else asked: every row, and a word why (the rows follow the line a moment later)
        await wait_for(pilot, lambda: log.shown == len(log.source))
        # a typo in the key, fixed by quoting when the text is meant
        await pilot.press(*" knd:error")
        await wait_for(pilot, lambda: "(and 1 more)" in bar.help_line)
        await pilot.press("ctrl+u")
        await pilot.press(*"knd:error")
        await pilot.press("enter")
        await wait_for(pilot, lambda: "unknown key 'knd'" in bar.help_line)
        assert 'quote it: "knd:error"' in bar.help_line


async def test_while_typing_a_value_the_line_offers_the_values_not_an_error() -> None:
    app = InspectorApp(demo_target())
    async with app.run_test(size=SIZE) as pilot:
        await wait_connected(pilot)
        bar = await open_filter(pilot)
        await pilot.press(*"dir:")
        await wait_for(pilot, lambda: bar.help_line.startswith("dir: in out local"))
        await pilot.press("o")  # "dir:o" is no direction yet, but "out" is on its way
        await wait_for(pilot, lambda: bar.help_line == "dir: out")
        await pilot.press("tab")
        await wait_for(pilot, lambda: bar.query_text == "dir:out")
        assert bar.input.has_focus  # Tab completed instead of moving on


def filter_row(app: InspectorApp) -> list[str]:
    """The words of the filter's row on screen (ghost text included: a user reads it)."""
    return next(line.split() for line in screen_text(app).splitlines() if line.startswith("/ "))


async def test_tab_inserts_what_the_box_shows_and_a_bare_key_shows_no_value() -> None:
    """`meth` Tab: the box reads `method:` (it showed `method:initialize` and held
    `method:`, so Enter said "needs a value"); a letter brings the completion Tab inserts."""
    app = InspectorApp(demo_target())
    async with app.run_test(size=SIZE) as pilot:
        await wait_connected(pilot)
        log = app.query_one(MessageLog)
        bar = await open_filter(pilot)
        await pilot.press(*"meth", "tab")
        await wait_for(pilot, lambda: bar.suggester.last[0] == "method:")
        await pilot.pause()
        assert bar.query_text == "method:" and filter_row(app)[:2] == ["/", "method:"]
        assert bar.help_line.startswith("method: initialize ")  # the values are listed
        await pilot.press(*"tools/l")
        await wait_for(pilot, lambda: bar.suggester.last == ("method:tools/l", "method:tools/list"))
        await pilot.pause()
        assert filter_row(app)[:2] == ["/", "method:tools/list"]
        await pilot.press("tab", "enter")
        await wait_for(pilot, lambda: log.lines.has_focus)
        assert bar.query_text == "method:tools/list"
        await wait_for(pilot, lambda: 0 < log.shown < len(log.source))


async def test_the_filters_slash_typed_twice_says_the_key_is_not_one() -> None:
    """`/` then `/foo:bar`: the box holds "/foo:bar"; the line says `foo` is no key and
    which are, instead of a text search that finds nothing."""
    app = InspectorApp(demo_target())
    async with app.run_test(size=SIZE) as pilot:
        await wait_connected(pilot)
        bar = await open_filter(pilot)
        await pilot.press(*"/foo:bar", "enter")
        await wait_for(pilot, lambda: app.query_one(MessageLog).lines.has_focus)
        assert bar.query_text == "/foo:bar"
        assert "unknown key 'foo' (keys: method, kind, is, dir, ch, has" in bar.help_line
        assert "unknown key 'foo'" in screen_text(app)


async def call(pilot: Any, name: str, arguments: dict[str, Any] | None = None) -> None:
    app = pilot.app
    await select_item(pilot, "tools", name)
    if arguments is not None:
        form = app.query_one(ItemPanel).form
        assert form is not None
        form.root.set_value(arguments)
        await form.recompose()
    view = app.query_one(ResultView)
    view.outcome = None
    await pilot.press("ctrl+s")
    await wait_for(pilot, lambda: view.outcome is not None)


def shown_kinds(log: MessageLog) -> list[tuple[Kind, str | None]]:
    source = log.source
    indices = [log.lines.index_at(row) for row in range(log.shown)]
    return [(source.kind(i), source.method(i)) for i in indices]


# the era probe's refusal (the demo speaks only the handshake), the isError result, the
# JSON-RPC error
ERRORS = [
    (Kind.ERROR, "server/discover"),
    (Kind.RESPONSE, "tools/call"),
    (Kind.ERROR, "tools/call"),
]


async def test_is_error_finds_failed_tool_results_live_and_in_replay(tmp_path: Path) -> None:
    path = tmp_path / "session.jsonl"
    target = demo_target()
    recorder = Recorder(path, SessionHeader(target=target_info(target)))
    app = InspectorApp(target, recorder=recorder)
    async with app.run_test(size=SIZE) as pilot:
        await wait_connected(pilot)
        await call(pilot, "divide", {"dividend": 1, "divisor": 0})  # isError: true
        await call(pilot, "raise_error")  # a JSON-RPC error
        await call(pilot, "divide", {"dividend": 6, "divisor": 3})  # fine
        log = app.query_one(MessageLog)
        bar = await open_filter(pilot)
        await pilot.press(*"is:e")
        await wait_for(pilot, lambda: bar.query_text == "is:e" and bar.help_line.startswith("is:"))
        await pilot.press("tab", "enter")
        await wait_for(pilot, lambda: bar.query_text == "is:error" and log.shown == 3)
        assert shown_kinds(log) == ERRORS
    recorder.close()

    source = IndexedSessionFile(path)
    replay = InspectorApp(None, source=source, replay_title=path.name)
    async with replay.run_test(size=SIZE) as pilot:
        log = replay.query_one(MessageLog)
        await wait_for(pilot, lambda: log.shown == len(source) > 10)
        bar = await open_filter(pilot)
        await pilot.press(*"is:error", "enter")
        await wait_for(pilot, lambda: log.shown == 3 and not log.scanning)
        assert shown_kinds(log) == ERRORS
    source.close()


async def test_the_detail_keys_work_from_the_log_while_the_detail_shows(tmp_path: Path) -> None:
    app = InspectorApp(demo_target())
    async with app.run_test(size=SIZE) as pilot:
        await wait_connected(pilot)
        log = app.query_one(MessageLog)
        source = log.source
        request = next(
            i
            for i in range(len(source))
            if source.method(i) == "tools/list" and source.kind(i) is Kind.REQUEST
        )
        await pilot.press("g")
        await wait_for(pilot, lambda: log.lines.has_focus)
        log.select_index(request)
        # the detail is closed: p, c and s are nobody's keys here
        await pilot.press("p", "c")
        assert log.cursor_index == request and app.clipboard == ""
        await pilot.press("enter")
        detail = app.query_one(MessageDetail)
        await wait_for(pilot, lambda: detail.display and detail.index == request)
        assert log.lines.has_focus  # the focus stays in the log
        await pilot.press("p")  # to the response
        response = source.find_response(request)
        await wait_for(pilot, lambda: detail.index == response and log.cursor_index == response)
        await pilot.press("c")
        await wait_for(pilot, lambda: '"tools"' in app.clipboard)
        await pilot.press("s")
        box = detail.query_one("#detail-save", Input)
        await wait_for(pilot, lambda: box.has_focus)
        box.value = str(tmp_path / "response.json")
        await pilot.press("enter")
        await wait_for(pilot, lambda: (tmp_path / "response.json").exists())
        assert (tmp_path / "response.json").read_bytes() == source.raw(response)


async def test_enter_in_the_filter_lights_a_row_and_the_next_enter_opens_it() -> None:
    """g, /, a filter, Tab, Enter: the rows get the focus with the newest match lit (as
    End does), so the next Enter opens its detail."""
    app = InspectorApp(demo_target())
    async with app.run_test(size=SIZE) as pilot:
        await wait_connected(pilot)
        log = app.query_one(MessageLog)
        bar = await open_filter(pilot)
        assert log.cursor_index is None  # nothing lit yet: the user only looked
        await pilot.press(*"method:tools/li", "tab")
        await wait_for(pilot, lambda: bar.query_text == "method:tools/list")
        await pilot.press("enter")
        await wait_for(pilot, lambda: log.lines.has_focus)
        await wait_for(pilot, lambda: log.cursor_index is not None)
        index = log.cursor_index
        assert index is not None and log.source.method(index) == "tools/list"
        assert log.lines.cursor_row == log.shown - 1  # the newest match
        await pilot.press("enter")
        detail = app.query_one(MessageDetail)
        await wait_for(pilot, lambda: detail.display and detail.index == index)
