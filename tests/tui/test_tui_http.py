"""The TUI on HTTP targets (Pilot): an official-SDK Streamable HTTP server, a server
that wants authorization, and sessions that expire (a new one starts by itself)."""

from __future__ import annotations

from typing import Any

import pytest
from servers.http_scripted import Conn, ExpiringSessions, Request, ScriptedServer
from tui_helpers import plain, screen_text, select_item, wait_for

from inspector.engine.summary import RowSummary, summarize
from inspector.target import Target
from inspector.tui.app import InspectorApp
from inspector.tui.widgets.catalog import Catalog
from inspector.tui.widgets.item_panel import ItemPanel
from inspector.tui.widgets.message_log import MessageLog
from inspector.tui.widgets.result_view import ResultView, render_outcome
from inspector.tui.widgets.status_bar import StatusBar
from inspector.wire.events import Channel, Direction

pytestmark = pytest.mark.slow  # end to end: see pyproject's markers

SIZE = (150, 45)


@pytest.fixture
def sdk_sse(sdk_sse_base: str) -> str:
    return sdk_sse_base + "/mcp"  # the worker's shared server (conftest)


def screenshot(app: InspectorApp) -> str:
    return app.export_screenshot().replace("&#160;", " ")


def log_rows(app: InspectorApp) -> list[tuple[Channel, Direction, str]]:
    source = app.query_one(MessageLog).source
    return [
        (source.channel(i), source.direction(i), source.raw(i).decode("utf-8", "replace"))
        for i in range(len(source))
    ]


def summaries(app: InspectorApp) -> list[RowSummary]:
    """The log rows' summaries, as the log shows them."""
    source = app.query_one(MessageLog).source
    return [summarize(source.event(i)) for i in range(len(source))]


async def wait_tools(pilot: Any) -> None:
    app = pilot.app
    await wait_for(
        pilot,
        lambda: (
            app.controller is not None
            and app.controller.connected
            and app.query_one(Catalog).items["tools"]
        ),
        timeout=30,
    )


async def call(pilot: Any, app: InspectorApp, arguments: dict[str, Any]) -> str:
    """Fill the selected tool's form, send it, and return the outcome as text."""
    view = app.query_one(ResultView)
    view.outcome = None
    form = app.query_one(ItemPanel).form
    assert form is not None
    form.root.set_value(arguments)
    await form.recompose()
    await pilot.pause(0.2)
    await pilot.press("ctrl+s")
    await wait_for(pilot, lambda: view.outcome is not None, timeout=20)
    assert view.outcome is not None
    return plain(render_outcome(view.outcome))


async def test_streamable_http_call_and_the_wire_in_the_log(sdk_sse: str) -> None:
    # the handshake era pinned (the SDK speaks both): its standing GET stream is shown
    app = InspectorApp(Target(url=sdk_sse, transport="http"), protocol_version="2025-11-25")
    async with app.run_test(size=SIZE) as pilot:
        await wait_tools(pilot)
        await select_item(pilot, "tools", "add")
        assert "42" in await call(pilot, app, {"a": 2, "b": 40})
        rows = log_rows(app)
        posts = [raw for ch, d, raw in rows if ch is Channel.HTTP and d is Direction.OUT]
        assert f"POST {sdk_sse}" in posts and f"GET {sdk_sse}" in posts
        statuses = [raw for ch, d, raw in rows if ch is Channel.HTTP and d is Direction.IN]
        assert "HTTP 200 OK text/event-stream" in statuses
        assert any(ch is Channel.SSE and '"42"' in raw for ch, _, raw in rows)
        assert app.query_one(StatusBar).transport == "http"
        texts = [(row.id, row.text) for row in summaries(app)]
        assert ("1", f"POST {sdk_sse}") in texts and (
            "1",
            "HTTP 200 OK text/event-stream",
        ) in texts  # paired by request id
        assert ("", f"GET {sdk_sse} · GET stream") in texts
        shot = screenshot(app)
        assert "sdk-http-test-server" in shot and "http" in shot
        assert f"POST {sdk_sse}" in shot or "HTTP 200 OK" in shot  # rows on screen


async def test_authorization_needed_is_said_clearly() -> None:
    async def handler(req: Request, conn: Conn) -> None:
        await conn.respond(401, "token required", {"WWW-Authenticate": "Bearer"})

    async with ScriptedServer(handler) as server:
        app = InspectorApp(Target(url=server.url))
        async with app.run_test(size=SIZE) as pilot:
            await wait_for(pilot, lambda: app.query_one(StatusBar).state == "failed")
            await wait_for(pilot, lambda: "authorization needed" in screenshot(app))
            # the log is fed by a batcher on a timer: wait for the row, do not race it
            await wait_for(
                pilot, lambda: any(raw.startswith("HTTP 401") for _, _, raw in log_rows(app))
            )
            shot = screenshot(app)
            assert "could not connect" in shot
            assert "HTTP 401 Unauthorized: authorization needed" in shot
            rows = log_rows(app)
            assert any(ch is Channel.HTTP and raw.startswith("HTTP 401") for ch, _, raw in rows)
            texts = [row.text for row in summaries(app)]
            assert "HTTP 401 Unauthorized · www-authenticate: Bearer" in texts
            assert "HTTP 401 body (untyped, not JSON): token required" in texts
            assert any(
                t.startswith("request failed: HTTP 401 Unauthorized: authorization needed")
                for t in texts
            )
        assert not server.gets()  # 401 is not a reason to try legacy SSE


async def test_expired_session_starts_a_new_one_and_relists() -> None:
    expiring = ExpiringSessions(after=10_000)
    async with ScriptedServer(expiring) as server:
        app = InspectorApp(Target(url=server.url))
        async with app.run_test(size=SIZE) as pilot:
            await wait_tools(pilot)
            first = app.controller.session if app.controller else None
            await select_item(pilot, "tools", "echo")
            assert "sess-1: one" in await call(pilot, app, {"text": "one"})
            expiring.after = expiring.counts["sess-1"]  # the next request gets a 404
            form = app.query_one(ItemPanel).form
            assert form is not None
            form.root.set_value({"text": "two"})
            await form.recompose()
            await pilot.pause(0.2)
            await pilot.press("ctrl+s")  # answered 404: the session is gone
            await wait_for(
                pilot,
                lambda: (
                    expiring.sessions == 2
                    and app.controller is not None
                    and app.controller.session is not first
                    and app.controller.connected
                ),
                timeout=20,
            )
            await wait_for(pilot, lambda: len(server.posts("tools/list")) == 2)
            notes = [
                raw for ch, d, raw in log_rows(app) if ch is Channel.SYSTEM and d is Direction.LOCAL
            ]
            assert any("session expired" in n and "starting a new session" in n for n in notes)
            assert any(
                raw.startswith("HTTP 404 Not Found")
                for ch, d, raw in log_rows(app)
                if ch is Channel.HTTP and d is Direction.IN
            )
            assert [
                n.message for n in app._notifications if n.title == "session expired"
            ]  # a toast says what happened
            assert app.query_one(StatusBar).state == "connected"
            await select_item(pilot, "tools", "echo")
            assert "sess-2: three" in await call(pilot, app, {"text": "three"})
            assert expiring.expired == ["sess-1"]


async def test_a_renewed_session_that_expires_at_once_is_not_renewed_again() -> None:
    expiring = ExpiringSessions(after=1, expire=5)  # tools/list 404s in every session
    async with ScriptedServer(expiring) as server:
        app = InspectorApp(Target(url=server.url))
        async with app.run_test(size=SIZE) as pilot:
            await wait_for(
                pilot, lambda: app.query_one(StatusBar).state == "disconnected", timeout=20
            )
            await wait_for(
                pilot, lambda: "connection lost: the server's session expired" in screen_text(app)
            )
            assert expiring.sessions == 2  # the first renewed once; the renewal gave up
        assert len(server.posts("initialize")) == 2


async def test_a_call_lost_to_an_expired_session_says_so_in_the_result_pane() -> None:
    """The call that met the 404 failed; after the renewal the result pane still says so
    (connecting / connected must not wipe it) and how to run it again."""
    expiring = ExpiringSessions(after=10_000)
    async with ScriptedServer(expiring) as server:
        app = InspectorApp(Target(url=server.url))
        async with app.run_test(size=SIZE) as pilot:
            await wait_tools(pilot)
            first = app.controller.session if app.controller else None
            await select_item(pilot, "tools", "echo")
            assert "sess-1: one" in await call(pilot, app, {"text": "one"})
            expiring.after = expiring.counts["sess-1"]  # the next request gets a 404
            view = app.query_one(ResultView)
            catalog = app.query_one(Catalog)
            listed = catalog.items["tools"]
            await pilot.press("ctrl+s")
            await wait_for(
                pilot,
                lambda: (
                    expiring.sessions == 2
                    and app.controller is not None
                    and app.controller.session is not first
                    and app.controller.connected
                ),
                timeout=20,
            )
            # the new session's tools arrive after its Connected: both have been handled
            await wait_for(pilot, lambda: catalog.items["tools"] is not listed, timeout=20)
            assert view.outcome is not None, "the renewal wiped the failed call"
            text = " ".join(plain(render_outcome(view.outcome)).split())
            assert (
                "tool echo" in text and "no answer from the server" in text and "HTTP 404" in text
            )
            assert "session expired during this call" in text
            assert "A new session has started: press ctrl+s to call again" in text
            await wait_for(pilot, lambda: "session expired during this call" in screen_text(app))
            await pilot.press("ctrl+s")  # and so it does
            await wait_for(
                pilot,
                lambda: (
                    view.outcome is not None
                    and "sess-2: one" in plain(render_outcome(view.outcome))
                ),
                timeout=20,
            )
