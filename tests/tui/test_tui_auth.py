"""The TUI through a whole OAuth flow (Pilot), against a server written with the official
SDK's server auth: the Auth tab comes forward with the authorization URL, the browser opens
on a key press (the consent), the test plays the browser and completes the loopback
redirect, then a step-up and a refresh; a pasted redirect; step-by-step mode."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from servers.http_support import sdk_server
from test_tui_http import log_rows, wait_tools
from textual.widgets import Button, DataTable, Input, TabbedContent
from tui_helpers import focus, plain, select_item, wait_for

from inspector.auth.settings import AuthSettings
from inspector.target import Target
from inspector.tui.app import InspectorApp
from inspector.tui.widgets.auth_view import AuthView
from inspector.tui.widgets.item_panel import ItemPanel
from inspector.tui.widgets.result_view import ResultView, render_outcome
from inspector.wire.events import Channel, Direction

pytestmark = pytest.mark.slow  # end to end: see pyproject's markers

SIZE = (150, 45)


@pytest.fixture
def server() -> Iterator[str]:
    with sdk_server("3600", script="oauth_sdk_server.py") as base:
        yield f"{base}/mcp"


def app_for(url: str, **settings: Any) -> InspectorApp:
    return InspectorApp(
        Target(url=url, transport="http", oauth=AuthSettings(store=False, **settings))
    )


async def be_the_browser(url: str) -> None:
    """What the person's browser does: open the URL, follow the redirect to the loopback."""
    async with httpx.AsyncClient(follow_redirects=True, timeout=20) as browser:
        page = await browser.get(url)
    assert page.status_code == 200 and "Authorization received" in page.text


async def send(pilot: Any, app: InspectorApp, arguments: dict[str, Any]) -> ResultView:
    """Fill the selected tool's form, then ctrl+s once the form holds the arguments."""
    view = app.query_one(ResultView)
    view.outcome = None
    form = app.query_one(ItemPanel).form
    assert form is not None
    form.set_arguments(arguments)
    await wait_for(pilot, lambda: form.get_arguments() == (arguments, []))
    await pilot.press("ctrl+s")
    return view


async def outcome_text(pilot: Any, view: ResultView) -> str:
    await wait_for(pilot, lambda: view.outcome is not None, timeout=30)
    assert view.outcome is not None
    return plain(render_outcome(view.outcome))


def view_of(app: InspectorApp) -> AuthView:
    assert app.auth_ui is not None
    return app.auth_ui.view


def table_text(view: AuthView) -> str:
    table = view.query_one(DataTable)
    return "\n".join(
        " | ".join(str(cell) for cell in table.get_row_at(i)) for i in range(table.row_count)
    )


async def wait_person(pilot: Any, app: InspectorApp) -> str:
    """The Auth tab is in front, the URL shown, the Open button focused."""
    view = view_of(app)
    await wait_for(pilot, lambda: view.url is not None, timeout=30)
    tabs = app.query_one("#bottom-tabs", TabbedContent)
    opener = view.query_one("#auth-open", Button)
    await wait_for(pilot, lambda: tabs.active == "tab-auth" and opener.has_focus)
    assert view.url is not None
    return view.url


async def test_the_whole_flow_then_step_up_and_refresh(server: str) -> None:
    app = app_for(server)
    opened: list[str] = []
    async with app.run_test(size=SIZE) as pilot:
        view = view_of(app)
        view.opener = opened.append  # the browser, recorded (webbrowser.open otherwise)
        url = await wait_person(pilot, app)
        assert "/authorize?" in url and "code_challenge_method=S256" in url
        assert opened == []  # nothing opens without the person's consent
        await pilot.press("enter")  # "Open in browser": the consent
        await wait_for(pilot, lambda: opened == [url])
        await be_the_browser(opened[0])
        await wait_tools(pilot)
        await wait_for(pilot, lambda: view.url is None and "authorized: mcp:read" in view.state)
        steps = table_text(view)
        for expected in ("resource metadata", "server metadata", "registration", "token"):
            assert expected in steps
        auth_rows = [raw for ch, _, raw in log_rows(app) if ch is Channel.AUTH]
        assert any(raw.startswith("POST ") and raw.endswith("/token") for raw in auth_rows)
        assert not any("at-" in raw or "rt-" in raw for raw in auth_rows)  # no token shown

        # step-up: admin_echo needs mcp:admin; the server answers 403 insufficient_scope
        await select_item(pilot, "tools", "admin_echo")
        result = await send(pilot, app, {"text": "hi"})
        url = await wait_person(pilot, app)
        assert "mcp%3Aadmin" in url
        await pilot.press("o")  # the key does what the button does
        await wait_for(pilot, lambda: len(opened) == 2)
        await be_the_browser(opened[1])
        text = await outcome_text(pilot, result)
        assert "admin: hi" in text, text
        assert "mcp:read mcp:admin" in view.state

        # refresh: the server forgets its access tokens; the next call refreshes, no person
        await select_item(pilot, "tools", "forget_tokens")
        assert "forgotten" in await outcome_text(pilot, await send(pilot, app, {}))
        await select_item(pilot, "tools", "whoami")
        text = await outcome_text(pilot, await send(pilot, app, {}))
        assert "hello, authorized client" in text, text
        assert len(opened) == 2
        assert "refresh" in table_text(view)
        statuses = [
            raw
            for ch, direction, raw in log_rows(app)
            if ch is Channel.HTTP and direction is Direction.IN
        ]
        assert any(raw.startswith("HTTP 401") for raw in statuses)


async def test_pasting_the_redirected_url(server: str) -> None:
    """A browser on another machine: its redirect fails there; the URL is pasted here."""
    app = app_for(server)
    async with app.run_test(size=SIZE) as pilot:
        url = await wait_person(pilot, app)
        async with httpx.AsyncClient(follow_redirects=False) as browser:
            answer = await browser.get(url)
        location = answer.headers["location"]
        paste = view_of(app).query_one("#auth-paste", Input)
        await focus(pilot, paste)
        await pilot.press(*"nonsense", "enter")
        problem = view_of(app).query_one("#auth-paste-error")
        await wait_for(pilot, lambda: "no code" in str(problem.render()))
        paste.value = ""
        await pilot.press(*location, "enter")
        await wait_tools(pilot)
        assert view_of(app).url is None


async def test_step_by_step(server: str) -> None:
    """Each request of the flow waits for n; the table shows it paused."""
    app = app_for(server, step=True)
    async with app.run_test(size=SIZE) as pilot:
        view = view_of(app)
        for _ in range(3):  # resource metadata, server metadata, registration
            await wait_for(pilot, lambda: view.paused is not None, timeout=30)
            # the pause takes the focus to Send (a moment after it is shown)
            await wait_for(pilot, lambda: view.query_one("#auth-send", Button).has_focus)
            step = view.paused
            assert step is not None
            before = sum(
                1 for ch, d, _ in log_rows(app) if ch is Channel.AUTH and d is Direction.OUT
            )
            await pilot.press("n")
            await wait_for(pilot, lambda s=step: view.paused != s or view.url is not None)
            after = sum(
                1 for ch, d, _ in log_rows(app) if ch is Channel.AUTH and d is Direction.OUT
            )
            assert after > before
        url = await wait_person(pilot, app)
        await be_the_browser(url)
        await wait_for(pilot, lambda: view.paused is not None, timeout=30)  # the token request
        assert view.paused is not None and view.paused[0] == "token"
        await pilot.press("s")  # step mode off: the rest goes at once
        await wait_tools(pilot)
        assert "paused" in table_text(view)
