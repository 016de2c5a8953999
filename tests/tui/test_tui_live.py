"""Issue 5's live features through the whole app, against the demo server (Pilot)."""

from __future__ import annotations

from typing import Any

import pytest
from textual.widgets import OptionList, TextArea
from tui_helpers import (
    interactive_demo_app,
    plain,
    select_item,
    tab_to,
    view_text,
    wait_connected,
    wait_for,
)

from inspector.tui.app import InspectorApp
from inspector.tui.screens.elicitation import ElicitationScreen
from inspector.tui.screens.sampling import SamplingScreen
from inspector.tui.widgets.inflight import InFlightView
from inspector.tui.widgets.item_panel import ItemPanel
from inspector.tui.widgets.message_log import MessageLog
from inspector.tui.widgets.result_view import ResultView, render_outcome

pytestmark = pytest.mark.slow  # end to end: see pyproject's markers

SIZE = (150, 45)


def result_text(app: InspectorApp) -> str:
    outcome = app.query_one(ResultView).outcome
    return plain(render_outcome(outcome)) if outcome is not None else ""


async def fill(pilot: Any, app: InspectorApp, tool: str, arguments: dict[str, Any]) -> None:
    await select_item(pilot, "tools", tool)
    form = app.query_one(ItemPanel).form
    assert form is not None
    form.set_arguments(arguments)
    await pilot.pause(0.1)


async def test_sampling_request_is_answered_in_a_dialog() -> None:
    app = interactive_demo_app()
    async with app.run_test(size=SIZE) as pilot:
        await wait_connected(pilot)
        await fill(pilot, app, "ask_llm", {"question": "meaning of life?"})
        await pilot.press("ctrl+s")
        await wait_for(pilot, lambda: isinstance(app.screen, SamplingScreen))
        shown = app.export_screenshot().replace("&#160;", " ")
        assert "meaning of life?" in shown
        app.screen.query_one("#reply", TextArea).load_text("forty-two")
        await pilot.press("ctrl+s")
        await wait_for(pilot, lambda: "forty-two" in result_text(app))


async def test_sampling_rejected_with_escape() -> None:
    app = interactive_demo_app()
    async with app.run_test(size=SIZE) as pilot:
        await wait_connected(pilot)
        await fill(pilot, app, "ask_llm", {"question": "q"})
        await pilot.press("ctrl+s")
        await wait_for(pilot, lambda: isinstance(app.screen, SamplingScreen))
        await pilot.press("escape")
        await wait_for(pilot, lambda: "isError: true" in result_text(app))


async def test_elicitation_defaults_sent_when_untouched() -> None:
    app = interactive_demo_app()
    async with app.run_test(size=SIZE) as pilot:
        await wait_connected(pilot)
        await fill(pilot, app, "book_table", {})
        await pilot.press("ctrl+s")
        await wait_for(pilot, lambda: isinstance(app.screen, ElicitationScreen))
        await pilot.press("ctrl+s")
        await wait_for(pilot, lambda: result_text(app) != "")
        text = result_text(app)
        assert "declined" not in text and "isError" not in text


async def test_slow_call_shows_in_flight_and_is_cancelled() -> None:
    app = interactive_demo_app()
    async with app.run_test(size=SIZE) as pilot:
        await wait_connected(pilot)
        await fill(pilot, app, "slow_count", {"seconds": 20, "steps": 20})
        await pilot.press("ctrl+s")
        inflight = app.query_one(InFlightView)
        session = app.controller.session  # type: ignore[union-attr]
        await wait_for(
            pilot,
            lambda: any(p.method == "tools/call" and p.progress for p in session.pending.values()),
        )
        await pilot.press("escape", "f")
        await wait_for(
            pilot, lambda: app.focused is not None and inflight in app.focused.ancestors_with_self
        )
        await pilot.press("c")
        await wait_for(pilot, lambda: "cancelled" in result_text(app))
        log = app.query_one("#log").source
        assert any(log.method(i) == "notifications/cancelled" for i in range(len(log)))


async def test_call_as_task_shows_result() -> None:
    app = interactive_demo_app()
    async with app.run_test(size=SIZE) as pilot:
        await wait_connected(pilot)
        await fill(pilot, app, "slow_count", {"seconds": 0.5, "steps": 2})
        await pilot.click("#run-task")
        await wait_for(
            pilot,
            lambda: "task " in result_text(app) and "completed" in result_text(app),
            timeout=20,
        )


async def test_completion_offers_server_values() -> None:
    app = interactive_demo_app()
    async with app.run_test(size=SIZE) as pilot:
        await wait_connected(pilot)
        await select_item(pilot, "prompts", "greeting")
        await pilot.press("G")
        field = app.query_one(ItemPanel).form.field(("name",))  # type: ignore[union-attr]
        from textual.widgets import Input

        box = field.query(Input).first()  # type: ignore[union-attr]
        await wait_for(pilot, lambda: box._suggestion == "Grace")
        await pilot.press("right")
        assert box.value == "Grace"


async def test_subscription_update_is_flagged_and_re_read_automatically() -> None:
    app = interactive_demo_app()
    app.confirm_destructive = False
    async with app.run_test(size=SIZE) as pilot:
        await wait_connected(pilot)
        await select_item(pilot, "resources", "demo://notes/1")
        await pilot.click("#subscribe")
        await wait_for(pilot, lambda: "subscribed to" in result_text(app))
        client = app.controller.client  # type: ignore[union-attr]
        await client.call_tool("update_note", {"id": "1", "body": "first change"})
        await wait_for(pilot, lambda: "demo://notes/1" in app.updated)
        # the notice follows with the state's next batch (at most 50 ms later)
        await wait_for(
            pilot, lambda: any("was updated" in str(n.message) for n in app._notifications)
        )
        # with auto re-read on, the selected resource is read again by itself
        await pilot.press("escape", "U")
        await client.call_tool("update_note", {"id": "1", "body": "second change"})
        await wait_for(pilot, lambda: "second change" in result_text(app))


async def test_subscribing_keeps_the_read_content_and_says_it_subscribed() -> None:
    """Enter reads a resource; its Subscribe button then replaced the read content with
    the subscribe's empty result. The content stays; the line under its title says
    "subscribed to …" (then "unsubscribed from …")."""
    app = interactive_demo_app()
    async with app.run_test(size=SIZE) as pilot:
        await wait_connected(pilot)
        await pilot.press("2")
        options = app.query_one("#list-resources", OptionList)
        await wait_for(pilot, lambda: options.has_focus)
        assert options.highlighted_option is not None
        assert options.highlighted_option.id == "resources:0"  # demo://readme
        await pilot.press("enter")
        view = app.query_one(ResultView)
        await wait_for(pilot, lambda: "A small MCP server" in view_text(view))
        await tab_to(pilot, "subscribe")  # from the list to the Subscribe button
        await pilot.press("enter")
        await wait_for(pilot, lambda: "✓ subscribed to demo://readme" in view_text(view))
        assert "A small MCP server" in view_text(view)  # the read content is still there
        assert view_text(view).startswith("resource readme")
        await pilot.press("tab", "enter")  # Unsubscribe
        await wait_for(pilot, lambda: "✓ unsubscribed from demo://readme" in view_text(view))
        assert "A small MCP server" in view_text(view)
        assert "subscribed to" not in view_text(view).replace("unsubscribed from", "")


async def test_an_automatic_re_read_keeps_saying_subscribed() -> None:
    """With auto re-read on (U), a resources/updated notification reads the subscribed
    resource again; the new read lost the "✓ subscribed to …" line under its title. It
    says it while subscribed, and not once unsubscribed."""
    app = interactive_demo_app()
    async with app.run_test(size=SIZE) as pilot:
        await wait_connected(pilot)
        await select_item(pilot, "resources", "demo://notes/1")
        view = app.query_one(ResultView)
        await wait_for(pilot, lambda: "resource demo://notes/1" in view_text(view))
        await pilot.press("U")
        await tab_to(pilot, "subscribe")  # from the list to the Subscribe button
        await pilot.press("enter")
        await wait_for(pilot, lambda: "✓ subscribed to demo://notes/1" in view_text(view))
        # another client changes the note: the server says so, the view reads it again
        client = app.controller.client  # type: ignore[union-attr]
        await client.call_tool("update_note", {"id": "1", "body": "first change"})
        await wait_for(pilot, lambda: "first change" in view_text(view))
        assert "✓ subscribed to demo://notes/1" in view_text(view)
        await client.call_tool("update_note", {"id": "1", "body": "second change"})
        await wait_for(pilot, lambda: "second change" in view_text(view))
        assert "✓ subscribed to demo://notes/1" in view_text(view)
        # ctrl+s (Read) while subscribed says it too; unsubscribed, a read does not
        shown = view.outcome
        await pilot.press("ctrl+s")
        await wait_for(pilot, lambda: view.outcome is not shown and view.complete)
        assert "✓ subscribed to demo://notes/1" in view_text(view)
        await pilot.press("tab", "enter")  # Unsubscribe
        await wait_for(pilot, lambda: "✓ unsubscribed from demo://notes/1" in view_text(view))
        shown = view.outcome
        await pilot.press("ctrl+s")
        await wait_for(pilot, lambda: view.outcome is not shown and view.complete)
        assert "subscribed" not in view_text(view)
        assert "second change" in view_text(view)


async def test_list_changed_refreshes_the_catalog_and_says_so() -> None:
    app = interactive_demo_app()
    async with app.run_test(size=SIZE) as pilot:
        await wait_connected(pilot)
        catalog = app.query_one("#catalog")
        before = len(catalog.items["tools"])
        await select_item(pilot, "tools", "toggle_extra_tool")
        await pilot.press("ctrl+s")
        await wait_for(pilot, lambda: len(catalog.items["tools"]) == before + 1)
        assert any("added extra_tool" in str(n.message) for n in app._notifications)
        assert any(t["name"] == "extra_tool" for t in catalog.items["tools"])


async def test_ctrl_s_on_a_task_required_tool_calls_it_as_a_task() -> None:
    app = interactive_demo_app()
    async with app.run_test(size=SIZE) as pilot:
        await wait_connected(pilot)
        await fill(pilot, app, "generate_report", {"topic": "ops", "seconds": 0.3})
        await pilot.press("ctrl+s")
        await wait_for(pilot, lambda: "completed" in result_text(app), timeout=20)
        assert "Report on ops" in result_text(app)
        assert app.controller is not None and app.controller.session is not None
        source = app.query_one(MessageLog).source
        events = [source.event(i) for i in range(len(source))]
        calls = [
            e.message
            for e in events
            if isinstance(e.message, dict) and e.message.get("method") == "tools/call"
        ]
    assert len(calls) == 1 and "task" in calls[0]["params"]  # no plain call that must fail


async def test_a_tool_error_is_not_ok_in_the_in_flight_tab() -> None:
    """A tool that fails answers with a result whose isError is true: the call worked, the
    tool did not; the list of finished requests said "ok" in green."""
    app = interactive_demo_app()
    async with app.run_test(size=SIZE) as pilot:
        await wait_connected(pilot)
        await fill(pilot, app, "divide", {"dividend": 1, "divisor": 0})
        await pilot.press("ctrl+s")
        await wait_for(pilot, lambda: bool(result_text(app)))
        await pilot.press("escape", "f")
        inflight = app.query_one(InFlightView)
        await wait_for(pilot, lambda: bool(inflight.finished))
        (done,) = [d for d in inflight.finished.values() if d.label.startswith("tools/call")]
        assert done.outcome == "tool error"
        assert "zero" in done.detail.lower()
