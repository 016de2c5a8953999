"""Call history (h) and a replay's recorded calls, through the real app and real keys."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from tui_helpers import screen_text, select_item, wait_connected, wait_for

from inspector.commands.options import target_info
from inspector.record.format import SessionHeader
from inspector.record.indexed import IndexedSessionFile
from inspector.record.recorder import Recorder
from inspector.target import demo_target
from inspector.tui.app import InspectorApp
from inspector.tui.screens.help import HelpScreen
from inspector.tui.screens.history import HistoryScreen
from inspector.tui.widgets.call_list import CallList, CallRows
from inspector.tui.widgets.item_panel import ItemPanel
from inspector.tui.widgets.message_detail import MessageDetail
from inspector.tui.widgets.message_log import MessageLog
from inspector.tui.widgets.result_view import ResultView

pytestmark = pytest.mark.slow  # end to end: see pyproject's markers

SIZE = (80, 24)  # the smallest terminal the app is made for


def sent_calls(app: InspectorApp, name: str) -> list[dict[str, Any]]:
    """The arguments of every tools/call of ``name`` on the wire, oldest first."""
    source = app.query_one(MessageLog).source
    found = []
    for i in range(len(source)):
        if source.method(i) == "tools/call" and source.kind(i).value == "request":
            params = source.event(i).message["params"]
            if params["name"] == name:
                found.append(params["arguments"])
    return found


async def call_typed(pilot: Any, name: str, *keys: str) -> None:
    """Open tool ``name``, type ``keys`` into its form (Tab between fields), ctrl+s."""
    app = pilot.app
    await select_item(pilot, "tools", name)
    await pilot.press(*keys)
    view = app.query_one(ResultView)
    view.outcome = None
    await pilot.press("ctrl+s")
    await wait_for(pilot, lambda: view.outcome is not None and view.outcome.latency_ms is not None)


async def open_history(pilot: Any) -> CallRows:
    app = pilot.app
    await pilot.press("escape", "h")  # out of the form first: there h types
    await wait_for(pilot, lambda: isinstance(app.screen, HistoryScreen))
    rows = app.screen.query_one(CallRows)
    await wait_for(pilot, lambda: rows.has_focus)
    return rows


async def test_history_resends_a_call_and_opens_one_in_its_form(tmp_path: Path) -> None:
    app = InspectorApp(demo_target())
    async with app.run_test(size=SIZE) as pilot:
        await wait_connected(pilot)
        await call_typed(pilot, "add", "2", "tab", "3")
        await call_typed(pilot, "echo", *"hello")
        assert sent_calls(app, "add") == [{"a": 2, "b": 3}]
        rows = await open_history(pilot)
        calls = rows.parent
        assert isinstance(calls, CallList)
        assert [c.label for c in calls.shown] == ["tool echo", "tool add"]  # newest first
        text = screen_text(app)
        assert "History: 2 calls" in text and '{"a": 2, "b": 3}' in text
        # F1 here opens the help on the History's keys
        await pilot.press("f1")
        await wait_for(pilot, lambda: isinstance(app.screen, HelpScreen))
        assert isinstance(app.screen, HelpScreen) and app.screen.section == "history"
        await pilot.press("escape")
        await wait_for(pilot, lambda: isinstance(app.screen, HistoryScreen) and rows.has_focus)
        # the second row (add): Enter sends it again, as it was
        await pilot.press("down", "enter")
        await wait_for(pilot, lambda: len(sent_calls(app, "add")) == 2)
        assert sent_calls(app, "add") == [{"a": 2, "b": 3}, {"a": 2, "b": 3}]
        assert not isinstance(app.screen, HistoryScreen)
        panel = app.query_one(ItemPanel)
        assert panel.item is not None and panel.item["name"] == "add"
        # echo, opened in its form from the history: the field holds what was sent
        await select_item(pilot, "tools", "add")  # the form open is another tool's
        rows = await open_history(pilot)
        await wait_for(pilot, lambda: len(app.screen.query_one(CallList).shown) == 3)
        labels = [c.label for c in app.screen.query_one(CallList).shown]
        assert labels == ["tool add", "tool echo", "tool add"]
        await pilot.press("down", "e")
        await wait_for(pilot, lambda: panel.item is not None and panel.item["name"] == "echo")
        await wait_for(pilot, lambda: panel.form is not None)
        form = panel.form
        assert form is not None
        await wait_for(pilot, lambda: form.current_value().get("message") == "hello")
        assert len(sent_calls(app, "echo")) == 1  # opened, not sent
        # the focus is in the form: typing edits the call, ctrl+s sends the edit
        await wait_for(pilot, lambda: app.focused is not None and form in app.focused.ancestors)
        await pilot.press("end", *" world", "ctrl+s")  # (focus selects the text)
        await wait_for(pilot, lambda: len(sent_calls(app, "echo")) == 2)
        assert sent_calls(app, "echo")[-1]["message"] == "hello world"
        # the older echo, opened over the echo form that holds the newer one: replaced
        await open_history(pilot)
        shown = app.screen.query_one(CallList)
        await wait_for(pilot, lambda: len(shown.shown) == 4)
        await pilot.press("down", "down", "e")  # echo "hello world", add, echo "hello"
        await wait_for(pilot, lambda: not isinstance(app.screen, HistoryScreen))
        form = panel.form
        assert form is not None
        await wait_for(pilot, lambda: form.current_value().get("message") == "hello")


async def test_a_replay_shows_a_tool_s_recorded_calls_and_jumps_to_the_frame(
    tmp_path: Path,
) -> None:
    path = tmp_path / "session.jsonl"
    target = demo_target()
    recorder = Recorder(path, SessionHeader(target=target_info(target)))
    app = InspectorApp(target, recorder=recorder)
    async with app.run_test(size=SIZE) as pilot:
        await wait_connected(pilot)
        await call_typed(pilot, "add", "2", "tab", "3")
        await call_typed(pilot, "echo", *"hi")
        await call_typed(pilot, "add", "4", "0", "tab", "2")
    recorder.close()

    source = IndexedSessionFile(path)
    replay = InspectorApp(None, source=source, replay_title=path.name)
    async with replay.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: replay.query_one(MessageLog).shown == len(source) > 10)
        await select_item(pilot, "tools", "add")
        calls = replay.query_one("#recorded-calls", CallList)
        rows = calls.rows
        await wait_for(pilot, lambda: rows.has_focus)
        assert [c.arguments for c in calls.shown] == [{"a": 40, "b": 2}, {"a": 2, "b": 3}]
        text = screen_text(replay)
        assert "Recorded calls: 2 calls" in text and '{"a": 40, "b": 2}' in text
        # the highlighted call's result shows under the list
        result = replay.query_one(ItemPanel).result
        await wait_for(pilot, lambda: result.outcome is not None)
        assert result.outcome is not None and "42" in json.dumps(result.outcome.value())
        # the older call: g shows its request frame in the log, with the detail
        await pilot.press("down", "g")
        detail = replay.query_one(MessageDetail)
        log = replay.query_one(MessageLog)
        await wait_for(pilot, lambda: detail.display and log.lines.has_focus)
        index = calls.shown[1].index
        assert detail.index == index and log.cursor_index == index
        frame = source.event(index).message
        assert frame["method"] == "tools/call" and frame["params"]["arguments"] == {"a": 2, "b": 3}
        # a tool never called keeps its form (what it takes) and says so
        await select_item(pilot, "tools", "divide")
        panel = replay.query_one(ItemPanel)
        await wait_for(pilot, lambda: "never called in this recording" in screen_text(replay))
        assert panel.form is not None and not replay.query("#recorded-calls")
        # the History screen of a replay lists every recorded call too
        await pilot.press("escape", "h")  # out of divide's form first
        await wait_for(pilot, lambda: isinstance(replay.screen, HistoryScreen))
        history = replay.screen.query_one(CallList)
        assert [c.label for c in history.shown] == ["tool add", "tool echo", "tool add"]
    source.close()


def sent_reads(app: InspectorApp) -> list[str]:
    source = app.query_one(MessageLog).source
    return [
        source.event(i).message["params"]["uri"]
        for i in range(len(source))
        if source.method(i) == "resources/read" and source.kind(i).value == "request"
    ]


async def test_a_read_of_a_template_s_uri_opens_in_the_template_s_form() -> None:
    app = InspectorApp(demo_target())
    async with app.run_test(size=SIZE) as pilot:
        await wait_connected(pilot)
        await select_item(pilot, "resource_templates", "demo://notes/{id}")
        await pilot.press("7", "ctrl+s")
        await wait_for(pilot, lambda: sent_reads(app) == ["demo://notes/7"])
        await open_history(pilot)
        # Enter reads it again
        await pilot.press("enter")
        await wait_for(pilot, lambda: sent_reads(app) == ["demo://notes/7"] * 2)
        # e: the template's form, its variable filled in from the URI
        await select_item(pilot, "tools", "add")
        await open_history(pilot)
        await pilot.press("e")
        panel = app.query_one(ItemPanel)
        await wait_for(pilot, lambda: panel.kind == "resource_templates" and panel.form)
        form = panel.form
        assert form is not None
        await wait_for(pilot, lambda: form.current_value() == {"id": "7"})
        assert len(sent_reads(app)) == 2  # opened, not read
