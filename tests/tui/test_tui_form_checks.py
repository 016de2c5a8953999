"""Issue 15.1: what the form says before it sends, through the whole app and its keys.

The user's focus is in a field (where the catalog's Enter puts it); ctrl+s is pressed
there. The form checks once; each problem shows on its field and stays until the
value is fixed; the first press does not send, the second sends anyway.
"""

from __future__ import annotations

from typing import Any

import pytest
from textual.widgets import Input
from tui_helpers import screen_text, select_item, wait_connected, wait_for

from inspector.forms.schema import check_form
from inspector.target import demo_target
from inspector.tui.app import InspectorApp
from inspector.tui.widgets.item_panel import ItemPanel
from inspector.tui.widgets.message_log import MessageLog
from inspector.tui.widgets.result_view import ResultView
from inspector.tui.widgets.schema_form import FieldWidget, SchemaForm
from inspector.wire.events import Kind

pytestmark = pytest.mark.slow  # end to end: see pyproject's markers

SIZE = (140, 60)


def form_of(app: InspectorApp) -> SchemaForm:
    form = app.query_one(ItemPanel).form
    assert form is not None
    return form


def field_of(app: InspectorApp, *path: str | int) -> FieldWidget:
    widget = form_of(app).field(path)
    assert widget is not None, path
    return widget


def shown_errors(app: InspectorApp, *path: str | int) -> list[str]:
    """The error line of a field as the screen shows it (not just what it holds)."""
    widget = field_of(app, *path)
    lines = [line for line in widget.query_children(".field-error") if line.display]
    return [str(line.render()) for line in lines]


def toasts(app: InspectorApp) -> list[str]:
    return [f"{n.title}: {n.message}" for n in app._notifications]


def calls_sent(app: InspectorApp) -> int:
    """tools/call requests on the wire."""
    source = app.query_one(MessageLog).source
    return sum(
        1
        for i in range(len(source))
        if source.method(i) == "tools/call" and source.kind(i) is Kind.REQUEST
    )


async def typed(pilot: Any, *keys: str) -> None:
    """Press keys one by one, like a user typing."""
    for key in keys:
        await pilot.press(key)


async def test_echo_repeat_out_of_range_shows_on_the_field_and_stays() -> None:
    app = InspectorApp(demo_target())
    async with app.run_test(size=SIZE) as pilot:
        await wait_connected(pilot)
        await select_item(pilot, "tools", "echo")
        await typed(pilot, *"hi", "tab", *"11")  # Tab selects repeat's default "1"
        repeat = field_of(app, "repeat").query_one(Input)
        assert app.focused is repeat and repeat.value == "11"
        await pilot.press("ctrl+s")
        await wait_for(pilot, lambda: any("not sent" in t for t in toasts(app)))
        # the field says what is wrong, in words, and the screen shows it
        assert shown_errors(app, "repeat") == ["✗ must be at most 10 (got 11)"]
        assert "✗ must be at most 10 (got 11)" in screen_text(app)
        assert any("repeat: must be at most 10 (got 11)" in t for t in toasts(app))
        assert calls_sent(app) == 0
        assert app.focused is repeat  # the user can fix it where they are
        # it stays: the message queue drained, the line is still there
        await pilot.pause()
        assert "✗ must be at most 10 (got 11)" in screen_text(app)
        # the second ctrl+s sends anyway (documented): the result shows, the field keeps
        # saying what was wrong, and a toast says it went out with the issue
        await pilot.press("ctrl+s")
        view = app.query_one(ResultView)
        await wait_for(pilot, lambda: view.outcome is not None and view.outcome.result is not None)
        assert calls_sent(app) == 1
        assert shown_errors(app, "repeat") == ["✗ must be at most 10 (got 11)"]
        assert any("sent anyway, with 1 validation issue" in t for t in toasts(app))
        # fixing the value clears the error at once, without another ctrl+s
        await pilot.press("backspace")
        await wait_for(pilot, lambda: shown_errors(app, "repeat") == [])
        assert "must be at most 10" not in screen_text(app)
        # a value still wrong keeps an error (it is not cleared by any edit)
        await typed(pilot, "backspace", "0")
        await wait_for(
            pilot, lambda: shown_errors(app, "repeat") == ["✗ must be at least 1 (got 0)"]
        )


async def test_create_user_bad_uri_date_and_integer() -> None:
    app = InspectorApp(demo_target(), confirm_destructive=False)
    async with app.run_test(size=(140, 40)) as pilot:  # the form scrolls in its box
        await wait_connected(pilot)
        await select_item(pilot, "tools", "create_user")
        assert app.focused is field_of(app, "name").query_one(Input)
        await typed(pilot, *"Ada", "tab", *"ada@example.com", "tab", *"not a uri")
        await typed(pilot, "tab", *"tomorrow", "tab", *"old")
        assert app.focused is field_of(app, "age").query_one(Input)
        await pilot.press("ctrl+s")
        await wait_for(pilot, lambda: shown_errors(app, "age") != [])
        assert shown_errors(app, "website") == [
            '✗ not a valid uri, like https://… (got "not a uri")'
        ]
        assert shown_errors(app, "birthday") == [
            '✗ not a valid date, like YYYY-MM-DD (got "tomorrow")'
        ]
        assert shown_errors(app, "age") == ['✗ must be an integer (got "old")']
        assert shown_errors(app, "name") == [] and shown_errors(app, "email") == []
        await wait_for(pilot, lambda: any("3 problems" in t for t in toasts(app)))
        assert calls_sent(app) == 0
        # the field the user is in stays in view with its error (the lines added above
        # it pushed it down)
        await wait_for(pilot, lambda: 'must be an integer (got "old")' in screen_text(app))
        assert app.focused is field_of(app, "age").query_one(Input)


async def test_schedule_event_bad_date_time_and_blank_title() -> None:
    app = InspectorApp(demo_target(), confirm_destructive=False)
    async with app.run_test(size=SIZE) as pilot:
        await wait_connected(pilot)
        await select_item(pilot, "tools", "schedule_event")
        # title left blank; Tab to `when` (its variant picker, then its text)
        await typed(pilot, "tab", "tab", *"next friday")
        when = field_of(app, "when").query_one(Input)
        assert app.focused is when and when.value == "next friday"
        await pilot.press("ctrl+s")
        await wait_for(pilot, lambda: shown_errors(app, "when") != [])
        assert shown_errors(app, "when") == [
            '✗ not a valid date-time, like YYYY-MM-DDThh:mm:ssZ (got "next friday")'
        ]
        assert shown_errors(app, "title") == ["✗ required: nothing typed yet"]
        assert calls_sent(app) == 0
        # the toast names the problem of the field the user is in, first
        await wait_for(pilot, lambda: any("not sent: 2 problems" in t for t in toasts(app)))
        assert any("when: not a valid date-time" in t for t in toasts(app))
        # the optional `location` was never touched: it is not sent, so not checked
        assert form_of(app).field(("location", "url")) is not None
        assert shown_errors(app, "location", "url") == []
        # fixing `when` clears its error; the blank title keeps its own
        when.value = ""
        await typed(pilot, *"2026-12-01T10:00:00Z")
        await wait_for(pilot, lambda: shown_errors(app, "when") == [])
        assert shown_errors(app, "title") == ["✗ required: nothing typed yet"]


async def test_blank_required_text_is_not_sent_without_a_word() -> None:
    app = InspectorApp(demo_target())
    async with app.run_test(size=SIZE) as pilot:
        await wait_connected(pilot)
        await select_item(pilot, "tools", "echo")
        message = field_of(app, "message").query_one(Input)
        assert app.focused is message and message.value == ""
        await pilot.press("ctrl+s")
        await wait_for(pilot, lambda: shown_errors(app, "message") != [])
        assert shown_errors(app, "message") == ["✗ required: nothing typed yet"]
        assert "✗ required: nothing typed yet" in screen_text(app)
        assert calls_sent(app) == 0
        # typing clears it; typing then deleting means "empty on purpose": no error
        await typed(pilot, *"x")
        await wait_for(pilot, lambda: shown_errors(app, "message") == [])
        await pilot.press("backspace")
        await pilot.pause()
        assert shown_errors(app, "message") == []
        await pilot.press("ctrl+s")  # no issue left: sent at the first press
        await wait_for(pilot, lambda: calls_sent(app) == 1)
        sent = app.query_one(ItemPanel).last_arguments["tools:echo"]
        assert sent["message"] == ""


async def test_the_call_button_checks_once_too() -> None:
    """Focus on the Call button (ctrl+s from outside the form): the same single check."""
    app = InspectorApp(demo_target())
    async with app.run_test(size=SIZE) as pilot:
        await wait_connected(pilot)
        await select_item(pilot, "tools", "echo")
        await typed(pilot, *"hi", "tab", *"11", "tab", "tab")
        assert app.focused is not None and app.focused.id == "run"
        for _ in range(2):  # a second check of the same value changes nothing on screen
            form_of(app).get_arguments()
        await pilot.press("enter")
        await wait_for(pilot, lambda: any("not sent" in t for t in toasts(app)))
        await pilot.pause()
        assert shown_errors(app, "repeat") == ["✗ must be at most 10 (got 11)"]
        assert calls_sent(app) == 0


async def test_one_check_per_press_wherever_the_focus_is(monkeypatch: Any) -> None:
    """ctrl+s in a field and Enter on the Call button each check the form once (two
    passes used to clear the error line the first one had just added)."""
    from inspector.tui.widgets import schema_form

    checks: list[Any] = []

    def counted(root: Any, schema: Any) -> Any:
        checks.append(root)
        return check_form(root, schema)

    monkeypatch.setattr(schema_form, "check_form", counted)
    app = InspectorApp(demo_target())
    async with app.run_test(size=SIZE) as pilot:
        await wait_connected(pilot)
        await select_item(pilot, "tools", "echo")
        await typed(pilot, *"hi", "tab", *"11")
        checks.clear()
        await pilot.press("ctrl+s")
        await wait_for(pilot, lambda: any("not sent" in t for t in toasts(app)))
        assert len(checks) == 1
        await typed(pilot, "tab", "tab")
        assert app.focused is not None and app.focused.id == "run"
        checks.clear()
        await pilot.press("enter")  # the second press: sent anyway
        await wait_for(pilot, lambda: any("sent anyway" in t for t in toasts(app)))
        assert len(checks) == 1
        assert shown_errors(app, "repeat") == ["✗ must be at most 10 (got 11)"]
