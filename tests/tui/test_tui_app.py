"""Whole flows in the TUI against the bundled demo server (Pilot)."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest
from paths import SERVERS
from tui_helpers import (
    focus,
    log_methods,
    plain,
    screen_text,
    select_item,
    wait_connected,
    wait_for,
)

from inspector.target import Target, demo_target
from inspector.tui.app import InspectorApp
from inspector.tui.widgets.item_panel import ItemPanel
from inspector.tui.widgets.message_detail import MessageDetail
from inspector.tui.widgets.message_log import MessageLog
from inspector.tui.widgets.result_view import ResultView, render_outcome
from inspector.wire.events import Kind

SIZE = (150, 45)


def result_text(app: InspectorApp) -> str:
    outcome = app.query_one(ResultView).outcome
    assert outcome is not None
    return plain(render_outcome(outcome))


async def call_and_wait(pilot: Any, app: InspectorApp) -> str:
    await pilot.press("ctrl+s")
    await wait_for(pilot, lambda: app.query_one(ResultView).outcome is not None)
    return result_text(app)


@pytest.mark.slow
async def test_list_fill_nested_form_call_and_find_it_in_the_log() -> None:
    app = InspectorApp(demo_target(), confirm_destructive=False)
    async with app.run_test(size=SIZE) as pilot:
        await wait_connected(pilot)
        await select_item(pilot, "tools", "create_user")
        form = app.query_one(ItemPanel).form
        assert form is not None
        # fill the nested form through the model the widgets edit, then through keys
        form.root.set_value(
            {
                "name": "Ada",
                "email": "ada@example.com",
                "address": {"street": "1 Loop", "city": "London", "country": "FR"},
                "tags": ["math", "engines"],
            }
        )
        await form.recompose()
        await pilot.pause(0.2)
        text = await call_and_wait(pilot, app)
        assert "Ada" in text
        assert "tools/call" in log_methods(app)
        # open the call's detail from the log, then jump to its response
        log = app.query_one(MessageLog)
        source = log.source
        call_index = max(
            i
            for i in range(len(source))
            if source.method(i) == "tools/call" and source.kind(i) is Kind.REQUEST
        )
        log.select_index(call_index)
        await focus(pilot, log.lines)
        await pilot.press("enter")
        detail = app.query_one(MessageDetail)
        await wait_for(pilot, lambda: detail.display and detail.index == call_index)
        assert "create_user" in app.export_screenshot().replace("&#160;", " ")


@pytest.mark.slow
async def test_resource_template_and_prompt() -> None:
    app = InspectorApp(demo_target())
    async with app.run_test(size=SIZE) as pilot:
        await wait_connected(pilot)
        await select_item(pilot, "resources", "demo://readme")
        text = await call_and_wait(pilot, app)
        assert "demo://readme" in text
        await select_item(pilot, "resource_templates", "demo://notes/{id}")
        await pilot.press(*"1")
        text = await call_and_wait(pilot, app)
        assert "demo://notes/1" in text
        await select_item(pilot, "prompts", "greeting")
        await pilot.press(*"Grace")
        text = await call_and_wait(pilot, app)
        assert "Grace" in text and "user:" in text


@pytest.mark.slow
async def test_is_error_and_protocol_error_are_told_apart() -> None:
    app = InspectorApp(demo_target())
    async with app.run_test(size=SIZE) as pilot:
        await wait_connected(pilot)
        await select_item(pilot, "tools", "divide")
        app.query_one(ItemPanel).form.root.set_value({"dividend": 1, "divisor": 0})  # type: ignore[union-attr]
        text = await call_and_wait(pilot, app)
        assert "isError: true" in text
        await select_item(pilot, "tools", "raise_error")
        text = await call_and_wait(pilot, app)
        assert "protocol error" in text and "tool reported an error" not in text


@pytest.mark.slow
async def test_structured_content_checked_against_output_schema() -> None:
    app = InspectorApp(demo_target())
    async with app.run_test(size=SIZE) as pilot:
        await wait_connected(pilot)
        await select_item(pilot, "tools", "get_weather")
        await pilot.press(*"Paris")
        text = await call_and_wait(pilot, app)
        assert "structuredContent" in text and "matches outputSchema" in text


@pytest.mark.slow
async def test_server_crash_shows_why_and_reconnect_keeps_the_log() -> None:
    """The server dies on its first request that is not initialize: the era probe
    (server/discover); it is started again at once and opened with initialize, then it
    dies on tools/list; reconnecting opens it with initialize again."""
    target = Target(
        command=sys.executable,
        args=[str(SERVERS / "stdio_misbehave.py"), "crash"],
        transport="stdio",
    )
    app = InspectorApp(target)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: app.query_one("#status").state == "disconnected")
        await wait_for(pilot, lambda: "RuntimeError: boom" in screen_text(app))
        assert "exit code 3" in screen_text(app)
        source = app.query_one(MessageLog).source
        # the log takes its rows in batches: wait for the probe's row
        await wait_for(pilot, lambda: "tools/list" in log_methods(app))
        methods = log_methods(app)
        # the probe (no answer), then initialize's request and response
        assert methods.count("server/discover") == 1 and methods.count("initialize") == 2
        assert methods.index("server/discover") < methods.index("initialize")
        before = len(source)
        await pilot.press("r")
        await wait_for(pilot, lambda: log_methods(app).count("initialize") == 4)
        await wait_for(pilot, lambda: app.query_one("#status").state == "disconnected")
        assert len(source) > before  # the first connection's events are still there
        seqs = [source.seq(i) for i in range(len(source))]
        assert seqs == sorted(set(seqs)), "one numbering across reconnects"


@pytest.mark.slow
async def test_server_text_is_shown_literally_everywhere() -> None:
    app = InspectorApp(demo_target())
    async with app.run_test(size=SIZE) as pilot:
        await wait_connected(pilot)
        await select_item(pilot, "tools", "tricky_text")
        text = await call_and_wait(pilot, app)
        assert "[bold red]not bold[/]" in text
        assert "\x1b" not in text and "\x07" not in text
        log = app.query_one(MessageLog)
        source = log.source
        index = max(i for i in range(len(source)) if source.kind(i) is Kind.RESPONSE)
        log.select_index(index)
        await focus(pilot, log.lines)
        await pilot.press("enter")
        await wait_for(pilot, lambda: app.query_one(MessageDetail).index == index)
        rendered = "".join(
            strip.text for strip in (log.lines.render_line(y) for y in range(log.lines.size.height))
        )
        assert "\x1b" not in rendered
        svg = app.export_screenshot()
        assert "[bold red]not bold[/]" in svg.replace("&#160;", " ")


@pytest.mark.slow
async def test_connecting_does_not_take_the_focus_back(tmp_path: Path) -> None:
    """The user moves to the log while the server is still starting: connecting must not
    pull the focus back to the catalog (the tools list has it from the first frame)."""
    gate = tmp_path / "go"
    gated_demo = (
        "import pathlib, runpy, sys, time\n"
        f"while not pathlib.Path({str(gate)!r}).exists(): time.sleep(0.02)\n"
        "sys.argv = ['demo']; runpy.run_module('inspector.demo', run_name='__main__')"
    )
    app = InspectorApp(Target(command=sys.executable, args=["-c", gated_demo], transport="stdio"))
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: app.focused is not None)
        assert app.focused is not None and app.focused.id == "list-tools"
        await pilot.press("g")
        log = app.query_one(MessageLog)
        await wait_for(pilot, lambda: log.lines.has_focus)
        assert app.controller is not None and not app.controller.connected
        gate.touch()  # now let the server start
        await wait_connected(pilot)
        await pilot.pause()
        assert log.lines.has_focus


def test_controller_messages_after_the_widgets_are_gone_are_dropped() -> None:
    """A list answered while the app closes arrives after its widgets were removed."""
    from inspector.tui import messages

    app = InspectorApp(demo_target())  # never mounted: no widgets, as at the end of a close
    app.on_catalog_loaded(messages.CatalogLoaded("tools", [{"name": "late"}]))
    app.on_connect_failed(messages.ConnectFailed("gone"))
