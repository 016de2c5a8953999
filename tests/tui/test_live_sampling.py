"""The sampling screen and the bridge, driven by real servers over stdio (Pilot)."""

from __future__ import annotations

import os
from typing import Any

import anyio
import pytest
from textual.widgets import Input, Select, Static, TextArea
from tui_helpers import wait_for

from inspector.engine.client import McpClient
from inspector.engine.session import Session
from inspector.tui.interactive import InteractiveResponders, SamplingRule, SamplingRuleBar
from inspector.tui.screens.sampling import SamplingScreen, render_request
from inspector.wire.jsonrpc import RpcError
from tests.everything import HostApp, demo_session, everything_session, shown_text, wait_for_screen

SHOTS = os.environ.get("INSPECT_SHOTS")  # a folder: save SVG screenshots there


def _text(result: dict[str, Any]) -> str:
    return "\n".join(b.get("text", "") for b in result.get("content", []))


def _shown(screen: SamplingScreen) -> str:
    return shown_text(screen.query_one("#request-body", Static))


async def _call(client: McpClient, name: str, args: dict[str, Any], out: dict[str, Any]) -> None:
    out["result"] = await client.call_tool(name, args)


async def test_demo_sampling_reply_is_sent_back() -> None:
    app = HostApp()
    async with app.run_test(size=(120, 40)) as pilot:
        bridge = InteractiveResponders(app)
        async with demo_session(bridge.responders()) as session, anyio.create_task_group() as tg:
            bridge.attach(session)
            out: dict[str, Any] = {}
            tg.start_soon(
                _call,
                McpClient(session),
                "ask_llm",
                {"question": "What is [bold]2+2[/bold]?\x1b[31m", "system_prompt": "Be terse."},
                out,
            )
            await wait_for_screen(pilot, SamplingScreen)
            screen = app.screen
            assert isinstance(screen, SamplingScreen)
            shown = _shown(screen)
            assert "[bold]2+2[/bold]" in shown  # server text is data: markup shown literally
            assert "␛[31m" in shown  # the escape made visible
            assert "Be terse." in shown and "maxTokens" in shown and "claude" in shown
            assert screen.query_one("#model", Input).value == "claude"  # the first hint
            if SHOTS:
                app.save_screenshot(filename="sampling.svg", path=SHOTS)
            await pilot.press(*"four")
            screen.query_one("#stop-reason", Select).value = "maxTokens"
            await pilot.press("ctrl+s")
            await wait_for(pilot, lambda: "result" in out)
    text = _text(out["result"])
    assert "four" in text
    assert "model: claude, stopReason: maxTokens" in text
    assert bridge.last_reply == "four"


@pytest.mark.slow
async def test_demo_sampling_reject_sends_error_minus_one() -> None:
    app = HostApp()
    async with app.run_test(size=(120, 40)) as pilot:
        bridge = InteractiveResponders(app)
        async with demo_session(bridge.responders()) as session, anyio.create_task_group() as tg:
            bridge.attach(session)
            out: dict[str, Any] = {}
            tg.start_soon(_call, McpClient(session), "ask_llm", {"question": "hi"}, out)
            await wait_for_screen(pilot, SamplingScreen)
            await pilot.press("escape")
            await wait_for(pilot, lambda: "result" in out)
            assert not isinstance(app.screen, SamplingScreen)
    assert out["result"].get("isError") is True
    assert "error -1" in _text(out["result"])


@pytest.mark.slow
async def test_standing_rule_answers_without_asking_and_switches_off() -> None:
    app = HostApp()
    async with app.run_test(size=(120, 40)) as pilot:
        bridge = InteractiveResponders(app)
        bar = SamplingRuleBar(bridge)
        await app.mount(bar)
        async with demo_session(bridge.responders()) as session, anyio.create_task_group() as tg:
            bridge.attach(session)
            client = McpClient(session)
            # 1. answer by hand and tick "always answer with this text"
            out: dict[str, Any] = {}
            tg.start_soon(_call, client, "ask_llm", {"question": "first?"}, out)
            await wait_for_screen(pilot, SamplingScreen)
            app.screen.query_one("#reply", TextArea).text = "standing answer"
            await pilot.click("#remember")
            await pilot.press("ctrl+s")
            await wait_for(pilot, lambda: "result" in out)
            assert bridge.rule is not None and bridge.rule.text == "standing answer"
            await pilot.pause()
            assert bar.has_class("active")
            assert "standing answer" in shown_text(bar.query_one("#rule-text", Static))
            # 2. the rule answers the next one: no screen
            out2: dict[str, Any] = {}
            await _call(client, "ask_llm", {"question": "second?"}, out2)
            assert "standing answer" in _text(out2["result"])
            assert bridge.auto_answered == 1
            assert not isinstance(app.screen, SamplingScreen)
            # 3. switched off from the bar: it asks again
            await pilot.click("#rule-off")
            assert bridge.rule is None and not bar.has_class("active")
            out3: dict[str, Any] = {}
            tg.start_soon(_call, client, "ask_llm", {"question": "third?"}, out3)
            await wait_for_screen(pilot, SamplingScreen)
            # the last reply is the draft
            assert app.screen.query_one("#reply", TextArea).text == "standing answer"
            await pilot.press("escape")
            await wait_for(pilot, lambda: "result" in out3)
        bridge.set_rule(SamplingRule(reject=True))
        await pilot.pause()
        assert "reject every sampling request" in shown_text(bar.query_one("#rule-text", Static))
        with pytest.raises(RpcError) as rejected:
            await bridge.sampling({"messages": [], "maxTokens": 1})
    assert rejected.value.code == -1


async def test_server_cancelling_its_request_closes_the_dialog() -> None:
    app = HostApp()
    async with app.run_test(size=(120, 40)) as pilot:
        bridge = InteractiveResponders(app)
        async with demo_session(bridge.responders()) as session, anyio.create_task_group() as tg:
            bridge.attach(session)
            out: dict[str, Any] = {}

            async def call() -> None:
                try:
                    await _call(McpClient(session), "ask_llm", {"question": "slow"}, out)
                except Exception as exc:
                    out["error"] = exc

            tg.start_soon(call)
            await wait_for_screen(pilot, SamplingScreen)
            call_id = next(p.id for p in session.pending.values() if p.method == "tools/call")
            await session.cancel(call_id)  # the demo then cancels its sampling request
            await wait_for(pilot, lambda: not isinstance(app.screen, SamplingScreen))
            await wait_for(pilot, lambda: "error" in out)
    assert "cancelled" in str(out["error"])


async def test_json_mode_sends_any_result() -> None:
    app = HostApp()
    async with app.run_test(size=(120, 40)) as pilot:
        bridge = InteractiveResponders(app)
        async with demo_session(bridge.responders()) as session, anyio.create_task_group() as tg:
            bridge.attach(session)
            out: dict[str, Any] = {}
            tg.start_soon(_call, McpClient(session), "ask_llm", {"question": "json?"}, out)
            await wait_for_screen(pilot, SamplingScreen)
            screen = app.screen
            await pilot.press(*"draft")
            await pilot.press("ctrl+j")
            raw = screen.query_one("#raw", TextArea)
            assert '"text": "draft"' in raw.text
            raw.text = (
                '{"role": "assistant", "content": [{"type": "text", "text": "a"},'
                ' {"type": "text", "text": "b"}], "model": "raw", "stopReason": "x"}'
            )
            await pilot.press("ctrl+s")
            await wait_for(pilot, lambda: "result" in out)
    assert "a\nb" in _text(out["result"]) and "model: raw, stopReason: x" in _text(out["result"])


async def test_everything_sampling() -> None:
    app = HostApp()
    async with app.run_test(size=(120, 40)) as pilot:
        bridge = InteractiveResponders(app)
        async with (
            everything_session(bridge.responders()) as session,
            anyio.create_task_group() as tg,
        ):
            bridge.attach(session)
            client = McpClient(session)
            await _list_until(session, client, "trigger-sampling-request")
            out: dict[str, Any] = {}
            tg.start_soon(
                _call,
                client,
                "trigger-sampling-request",
                {"prompt": "name a colour", "maxTokens": 12},
                out,
            )
            await wait_for_screen(pilot, SamplingScreen)
            shown = _shown(app.screen)  # type: ignore[arg-type]
            assert "name a colour" in shown and "You are a helpful test server." in shown
            await pilot.press(*"teal")
            await pilot.press("ctrl+s")
            await wait_for(pilot, lambda: "result" in out)
    text = _text(out["result"])
    assert '"text": "teal"' in text and '"model": "mcp-inspect-human"' in text


async def _list_until(session: Session, client: McpClient, tool: str) -> None:
    """server-everything registers its client-capability tools after initialized."""
    with anyio.fail_after(10):
        while tool not in {t["name"] for t in await client.list_tools()}:
            await anyio.sleep(0.1)


def test_render_request_handles_every_block_kind() -> None:
    params = {
        "messages": [
            {
                "role": "user",
                "content": [
                    {"type": "image", "data": "AAAA", "mimeType": "image/png"},
                    {"type": "audio", "data": "AAAA", "mimeType": "audio/wav"},
                ],
            },
            {
                "role": "assistant",
                "content": [
                    {"type": "tool_use", "id": "t1", "name": "weather", "input": {"city": "Paris"}}
                ],
            },
            {
                "role": "user",
                "content": [
                    {
                        "type": "tool_result",
                        "toolUseId": "t1",
                        "content": [{"type": "text", "text": "sunny"}],
                    }
                ],
            },
            "not a dict",
        ],
        "maxTokens": 5,
        "tools": [{"name": "weather", "description": "Weather [red]x[/red]"}],
        "toolChoice": {"mode": "auto"},
    }
    from rich.console import Console

    console = Console(width=100, record=True)
    console.print(render_request(params))
    text = console.export_text()
    for needle in (
        "[image image/png",
        "[audio audio/wav",
        "tool_use weather (id t1)",
        '{"city": "Paris"}',
        "tool_result for t1:\n    sunny",
        "tools offered (1)",
        "Weather [red]x[/red]",
        '"mode": "auto"',
    ):
        assert needle in text, needle
