"""The result pane shows a secret the session knows (a ``-e`` value, a credential
header's) redacted, as the session file and the toasts do: a server that echoes it back
does not put it on screen."""

from __future__ import annotations

import io

import pytest
from rich.console import Console
from tui_helpers import select_item, view_text, wait_connected, wait_for

from inspector.engine.responders import Responders
from inspector.record.redact import REDACTED, Redactor
from inspector.target import demo_target
from inspector.tui.app import InspectorApp
from inspector.tui.widgets.result_view import Outcome, ResultView, format_outcome, redacted

SIZE = (150, 45)
SECRET = "tok-s3cr3t-4242"


@pytest.mark.slow
async def test_a_result_echoing_a_secret_shows_it_redacted() -> None:
    target = demo_target()
    target.env = {**target.env, "DEMO_API_TOKEN": SECRET}
    app = InspectorApp(target, responders=Responders())
    async with app.run_test(size=SIZE) as pilot:
        await wait_connected(pilot)
        await select_item(pilot, "tools", "echo")
        view = app.query_one(ResultView)
        await pilot.press(*f"my token is {SECRET}", "ctrl+s")
        await wait_for(pilot, lambda: view.outcome is not None and view.complete)
        shown = view_text(view)
        assert f"my token is {REDACTED}" in shown
        assert SECRET not in shown
        await select_item(pilot, "tools", "echo")  # and one without: as it is
        await pilot.press(*"nothing secret", "ctrl+s")
        await wait_for(pilot, lambda: "nothing secret" in view_text(view))


def document_text(outcome: Outcome, redactor: Redactor) -> str:
    document = format_outcome(redacted(outcome, redactor)).document
    console = Console(width=100, file=io.StringIO())
    rows = document.height(100, console)
    return "\n".join(document.row(row, 100, console).text for row in range(rows))


def test_an_error_and_a_lost_answer_are_redacted_too() -> None:
    redactor = Redactor([SECRET])
    failed = Outcome("call", error={"code": -1, "message": f"bad header Bearer {SECRET}"})
    assert f"bad header Bearer {REDACTED}" in document_text(failed, redactor)
    lost = Outcome("call", no_answer=f"HTTP 401: {SECRET}")
    assert f"HTTP 401: {REDACTED}" in document_text(lost, redactor)
    plain = Outcome("call", result={"content": [{"type": "text", "text": "hello"}]})
    assert redacted(plain, redactor) is plain  # nothing to redact: nothing copied


def test_parsed_json_is_copied_only_when_it_holds_a_secret() -> None:
    redactor = Redactor([SECRET])
    clean = {"content": [{"type": "text", "text": "hello"}], "n": [1, 2.5, None, True]}
    assert redactor.parsed(clean) is clean
    echoed = {"content": [{"type": "text", "text": f"a {SECRET}"}], SECRET: [SECRET, 1]}
    assert redactor.parsed(echoed) == {
        "content": [{"type": "text", "text": f"a {REDACTED}"}],
        REDACTED: [REDACTED, 1],
    }
    assert echoed["content"][0]["text"] == f"a {SECRET}"  # the call's own value untouched
    deep: list[object] = []
    inner = deep
    for _ in range(5000):  # deeper than any recursion would go
        inner.append([])
        inner = inner[0]  # type: ignore[assignment]
    inner.append(SECRET)
    walked = redactor.parsed(deep)
    for _ in range(5001):
        walked = walked[0]
    assert walked == REDACTED


def test_a_secret_with_a_quote_is_redacted_string_by_string() -> None:
    redactor = Redactor(['pa"ss\\word'])
    value = {"a": ['x pa"ss\\word', "y"], "b": 'pa"ss', "c": "ss\\word"}
    assert redactor.parsed(value) == {
        "a": [f"x {REDACTED}", "y"],
        "b": 'pa"ss',  # a string boundary in the JSON text is never crossed
        "c": "ss\\word",
    }
