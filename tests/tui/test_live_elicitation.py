"""The elicitation screen (form and URL modes), driven by real servers over stdio (Pilot)."""

from __future__ import annotations

import json
import os
from typing import Any

import anyio
import pytest
from textual.widgets import Button, Input, Static
from tui_helpers import wait_for

from inspector.engine.client import McpClient
from inspector.engine.session import Session
from inspector.tui.interactive import InteractiveResponders
from inspector.tui.screens.elicitation import (
    CompletionWaitScreen,
    ElicitationScreen,
    url_facts,
)
from inspector.tui.widgets.schema_form import SchemaForm
from inspector.wire.jsonrpc import RpcError
from tests.everything import HostApp, demo_session, everything_session, shown_text, wait_for_screen

SHOTS = os.environ.get("INSPECT_SHOTS")


def _text(result: dict[str, Any]) -> str:
    return "\n".join(b.get("text", "") for b in result.get("content", []))


async def _call(client: McpClient, name: str, args: dict[str, Any], out: dict[str, Any]) -> None:
    out["result"] = await client.call_tool(name, args)


def _answers(session: Session) -> list[dict[str, Any]]:
    """Our responses to the server's elicitation requests, as sent on the wire."""
    sent: list[dict[str, Any]] = []
    session.add_observer(
        lambda e: (
            sent.append(e.message)
            if e.direction.name == "OUT"
            and isinstance(e.message, dict)
            and "result" in e.message
            and "action" in (e.message.get("result") or {})
            else None
        )
    )
    return sent


@pytest.mark.slow
async def test_demo_untouched_form_sends_every_default() -> None:
    app = HostApp()
    async with app.run_test(size=(120, 45)) as pilot:
        bridge = InteractiveResponders(app)
        async with demo_session(bridge.responders()) as session, anyio.create_task_group() as tg:
            bridge.attach(session)
            sent = _answers(session)
            out: dict[str, Any] = {}
            tg.start_soon(
                _call, McpClient(session), "book_table", {"restaurant": "Chez [i]Demo[/i]"}, out
            )
            screen = await wait_for_screen(pilot, ElicitationScreen)
            assert "Book a table at Chez [i]Demo[/i]?" in shown_text(
                screen.query_one("#message", Static)
            )
            if SHOTS:
                app.save_screenshot(filename="elicitation-form.svg", path=SHOTS)
            await pilot.press("ctrl+s")
            await wait_for(pilot, lambda: "result" in out)
    content = sent[-1]["result"]["content"]
    assert sent[-1]["result"]["action"] == "accept"
    assert content == {
        "name": "Ada Lovelace",
        "email": "ada@example.com",
        "date": "2026-12-24",
        "party_size": 2,
        "budget": 42.5,
        "outdoor": False,
        "seating": "window",
        "occasion": "none",
        "dietary": [],
    }
    assert "for 2 under the name Ada Lovelace on 2026-12-24" in _text(out["result"])


@pytest.mark.slow
async def test_demo_edited_field_and_invalid_value_blocks_accept() -> None:
    app = HostApp()
    async with app.run_test(size=(120, 45)) as pilot:
        bridge = InteractiveResponders(app)
        async with demo_session(bridge.responders()) as session, anyio.create_task_group() as tg:
            bridge.attach(session)
            sent = _answers(session)
            out: dict[str, Any] = {}
            tg.start_soon(_call, McpClient(session), "book_table", {}, out)
            screen = await wait_for_screen(pilot, ElicitationScreen)
            form = screen.query_one("#form", SchemaForm)
            party = form.field(("party_size",))
            assert party is not None
            box = party.query_one(Input)
            box.value = "99"  # maximum is 12
            await pilot.pause()
            await pilot.press("ctrl+s")
            await pilot.pause()
            assert isinstance(app.screen, ElicitationScreen)  # not sent
            assert screen.query_one("#status", Static).display
            assert "problem" in shown_text(screen.query_one("#status", Static))
            await pilot.press("ctrl+s")  # the same problems again: sent anyway
            await wait_for(pilot, lambda: "result" in out)
            assert sent[-1]["result"]["content"]["party_size"] == 99
            out.clear()
            tg.start_soon(_call, McpClient(session), "book_table", {}, out)
            screen = await wait_for_screen(pilot, ElicitationScreen)
            form = screen.query_one("#form", SchemaForm)
            party = form.field(("party_size",))
            assert party is not None
            box = party.query_one(Input)
            box.value = "7"
            name = form.field(("name",))
            assert name is not None
            name.query_one(Input).value = "Grace Hopper"
            await pilot.pause()
            await pilot.click("#accept")
            await wait_for(pilot, lambda: "result" in out)
    assert sent[-1]["result"]["content"]["party_size"] == 7
    assert "for 7 under the name Grace Hopper" in _text(out["result"])


@pytest.mark.slow
async def test_demo_decline_and_cancel() -> None:
    app = HostApp()
    async with app.run_test(size=(120, 45)) as pilot:
        bridge = InteractiveResponders(app)
        async with demo_session(bridge.responders()) as session, anyio.create_task_group() as tg:
            bridge.attach(session)
            sent = _answers(session)
            client = McpClient(session)
            out: dict[str, Any] = {}
            tg.start_soon(_call, client, "book_table", {}, out)
            await wait_for_screen(pilot, ElicitationScreen)
            await pilot.click("#decline")
            await wait_for(pilot, lambda: "result" in out)
            assert "declined" in _text(out["result"])
            out.clear()
            tg.start_soon(_call, client, "book_table", {}, out)
            await wait_for_screen(pilot, ElicitationScreen)
            await pilot.press("escape")
            await wait_for(pilot, lambda: "result" in out)
            assert "dismissed" in _text(out["result"])
    assert [s["result"] for s in sent] == [{"action": "decline"}, {"action": "cancel"}]


async def _list_until(client: McpClient, tool: str) -> None:
    with anyio.fail_after(10):
        while tool not in {t["name"] for t in await client.list_tools()}:
            await anyio.sleep(0.1)


@pytest.mark.slow
async def test_everything_form_with_required_field_and_titled_enums() -> None:
    app = HostApp()
    async with app.run_test(size=(120, 50)) as pilot:
        bridge = InteractiveResponders(app)
        async with (
            everything_session(bridge.responders()) as session,
            anyio.create_task_group() as tg,
        ):
            bridge.attach(session)
            sent = _answers(session)
            client = McpClient(session)
            await _list_until(client, "trigger-elicitation-request")
            out: dict[str, Any] = {}
            tg.start_soon(_call, client, "trigger-elicitation-request", {}, out)
            screen = await wait_for_screen(pilot, ElicitationScreen)
            form = screen.query_one("#form", SchemaForm)
            field = form.field(("name",))
            assert field is not None
            field.query_one(Input).value = "Ada"
            await pilot.pause()
            await pilot.press("ctrl+s")
            await wait_for(pilot, lambda: "result" in out)
    content = sent[-1]["result"]["content"]
    assert content["name"] == "Ada"
    # every default pre-filled and sent untouched
    assert content["firstLine"] == "It was a dark and stormy night."
    assert content["integer"] == 42 and content["number"] == 3.14
    assert content["untitledSingleSelectEnum"] == "Monica"
    assert content["untitledMultipleSelectEnum"] == ["Guitar"]
    assert content["titledSingleSelectEnum"] == "hero-1"
    assert content["titledMultipleSelectEnum"] == ["fish-1"]
    assert "email" not in content  # untouched, no default: left out
    assert "User provided the requested information" in _text(out["result"])


@pytest.mark.slow
async def test_everything_url_mode_shows_url_asks_consent_and_opens_browser() -> None:
    opened: list[str] = []
    app = HostApp()
    async with app.run_test(size=(120, 40)) as pilot:
        bridge = InteractiveResponders(app, opener=opened.append)
        async with (
            everything_session(bridge.responders()) as session,
            anyio.create_task_group() as tg,
        ):
            bridge.attach(session)
            caps = session.era.initialize_params(bridge.responders().capabilities(), {})
            assert caps["capabilities"]["elicitation"] == {"form": {}, "url": {}}
            client = McpClient(session)
            await _list_until(client, "trigger-url-elicitation")
            url = "https://example.com/oauth?state=[b]x[/b]&next=%2Fhome"
            out: dict[str, Any] = {}
            tg.start_soon(
                _call,
                client,
                "trigger-url-elicitation",
                {"url": url, "message": "Sign in, please"},
                out,
            )
            screen = await wait_for_screen(pilot, ElicitationScreen)
            shown = shown_text(screen.query_one("#url", Static))
            assert url in shown and "host: example.com" in shown
            assert app.focused is screen.query_one("#cancel", Button)  # no accidental consent
            assert not opened  # nothing opened before consent
            if SHOTS:
                app.save_screenshot(filename="elicitation-url.svg", path=SHOTS)
            await pilot.click("#accept")
            await wait_for(pilot, lambda: "result" in out)
    assert opened == [url]
    assert "User completed the URL elicitation flow" in _text(out["result"])


async def test_url_mode_refuses_non_http_schemes() -> None:
    opened: list[str] = []
    app = HostApp()
    async with app.run_test(size=(100, 30)) as pilot:
        answer: dict[str, Any] = {}
        params = {
            "mode": "url",
            "url": "javascript:alert(1)",
            "message": "hi",
            "elicitationId": "e1",
        }
        app.push_screen(
            ElicitationScreen(params, opener=opened.append),
            callback=lambda v: answer.update(v or {}),
        )
        screen = await wait_for_screen(pilot, ElicitationScreen)
        assert screen.query_one("#accept", Button).disabled
        assert "not http(s)" in shown_text(screen.query_one("#url-problem", Static))
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert not opened and not answer
        await pilot.press("ctrl+d")
        await wait_for(pilot, lambda: bool(answer))
    assert answer == {"action": "decline"}


def test_url_facts() -> None:
    assert url_facts("https://example.com/x") == ("example.com", None)
    host, problem = url_facts("https://bank.com@evil.example/")
    assert host == "evil.example" and problem and "user name" in problem
    assert url_facts("file:///etc/passwd")[1]
    assert "punycode" in (url_facts("https://xn--pple-43d.com/")[1] or "")
    assert json.dumps(url_facts("https:///nohost")[1])  # a problem, not an exception


async def test_everything_url_elicitation_required_error_then_retry() -> None:
    opened: list[str] = []
    app = HostApp()
    async with app.run_test(size=(120, 40)) as pilot:
        bridge = InteractiveResponders(app, opener=opened.append)
        async with (
            everything_session(bridge.responders()) as session,
            anyio.create_task_group() as tg,
        ):
            bridge.attach(session)
            client = McpClient(session)
            await _list_until(client, "trigger-url-elicitation")
            args = {
                "url": "https://example.org/pay",
                "errorPath": True,
                "elicitationId": "fixed-id",
            }
            with pytest.raises(RpcError) as needed:
                await client.call_tool("trigger-url-elicitation", args)
            assert needed.value.code == -32042
            done: dict[str, Any] = {}

            async def handle() -> None:
                done["ok"] = await bridge.complete_url_elicitations(needed.value)

            tg.start_soon(handle)
            screen = await wait_for_screen(pilot, ElicitationScreen)
            assert "https://modelcontextprotocol.io" in shown_text(screen.query_one("#url", Static))
            await pilot.click("#accept")
            # server-everything never reports completion: the user stops waiting
            await wait_for_screen(pilot, CompletionWaitScreen)
            assert "ok" not in done
            await pilot.click("#retry")
            await wait_for(pilot, lambda: "ok" in done)
            assert done["ok"] is True
            # the retry goes down the request path: one more URL dialog, accepted
            out: dict[str, Any] = {}
            tg.start_soon(_call, client, "trigger-url-elicitation", args, out)
            await wait_for_screen(pilot, ElicitationScreen)
            await pilot.click("#accept")
            await wait_for(pilot, lambda: "result" in out)
    assert opened == ["https://modelcontextprotocol.io", "https://example.org/pay"]
    assert "User completed the URL elicitation flow" in _text(out["result"])
    assert not await bridge.complete_url_elicitations(RpcError(-32603, "other"))
