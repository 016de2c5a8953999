"""Sampling with tools (sampling.tools): the dialog answers with tool_use, against a real
official-SDK server that runs an agent loop (tests/servers/sdk_sampling_tools_server.py)."""

from __future__ import annotations

import json
import sys
from typing import Any

import anyio
import pytest
from paths import SERVERS
from textual.widgets import Select, Static, TextArea
from tui_helpers import wait_for

from inspector.engine.client import McpClient
from inspector.engine.responders import Responders, fixed_sampling
from inspector.tui.interactive import InteractiveResponders, SamplingRule
from inspector.tui.interactive_setup import interactive_responders
from inspector.tui.screens.sampling import SamplingScreen, render_request
from tests.everything import HostApp, live_session, shown_text, wait_for_screen

SERVER = str(SERVERS / "sdk_sampling_tools_server.py")


def _session(responders: Responders) -> Any:
    return live_session(sys.executable, [SERVER], responders=responders)


async def _agent(client: McpClient, out: dict[str, Any], choice: str = "auto") -> None:
    result = await client.call_tool(
        "weather_agent", {"question": "Weather in Paris?", "choice": choice}
    )
    out["result"] = json.loads(result["content"][0]["text"])


def _error(screen: SamplingScreen) -> str:
    return shown_text(screen.query_one("#error", Static))


async def test_capability_declared_only_by_the_interactive_responder() -> None:
    app = HostApp()
    bridge = InteractiveResponders(app)
    assert bridge.responders().capabilities()["sampling"] == {"tools": {}}
    assert Responders(sampling=fixed_sampling("x")).capabilities()["sampling"] == {}
    fixed = Responders(sampling=fixed_sampling("x"))  # --on-sample wins in the TUI too
    interactive_responders(app, fixed)
    assert fixed.capabilities()["sampling"] == {}
    filled = Responders()
    interactive_responders(app, filled)
    assert filled.capabilities()["sampling"] == {"tools": {}}


async def test_without_the_capability_the_sdk_server_does_not_send_tools() -> None:
    async with _session(Responders(sampling=fixed_sampling("hi"))) as session:
        out: dict[str, Any] = {}
        await _agent(McpClient(session), out)
    assert "sampling tools" in out["result"]["refused"]


@pytest.mark.slow
async def test_tool_use_reply_then_tool_result_shown_and_final_text() -> None:
    app = HostApp()
    async with app.run_test(size=(120, 50)) as pilot:
        bridge = InteractiveResponders(app)
        async with _session(bridge.responders()) as session, anyio.create_task_group() as tg:
            bridge.attach(session)
            out: dict[str, Any] = {}
            tg.start_soon(_agent, McpClient(session), out)
            screen = await wait_for_screen(pilot, SamplingScreen)
            assert "get_weather" in shown_text(screen.query_one("#request-body", Static))
            kind = screen.query_one("#reply-kind", Select)
            kind.value = "get_weather"
            await wait_for(pilot, lambda: screen.has_class("tool-mode"))
            tool_input = screen.query_one("#tool-input", TextArea)
            assert json.loads(tool_input.text) == {"city": ""}  # a skeleton from the schema
            assert screen.query_one("#stop-reason", Select).value == "toolUse"
            tool_input.text = '{"days": 0}'  # city missing, days below its minimum
            await pilot.press("ctrl+s")
            await wait_for(pilot, lambda: "city" in _error(screen))
            assert "must be at least 1" in _error(screen) and app.screen is screen  # not sent
            tool_input.text = '{"city": "Paris"}'
            await pilot.press("ctrl+s")
            # the server ran the tool and asks again with the tool_result, toolChoice none
            await wait_for(
                pilot,
                lambda: (
                    isinstance(app.screen, SamplingScreen)
                    and app.screen is not screen
                    and app.screen.is_mounted
                ),
            )
            second = app.screen
            assert isinstance(second, SamplingScreen)
            shown = shown_text(second.query_one("#request-body", Static))
            assert f"tool_use get_weather (id {screen.tool_use_id})" in shown
            assert f"tool_result for {screen.tool_use_id}" in shown
            assert "[bold]sunny[/bold]␛[31m" in shown  # server text is data
            assert "toolChoice none" in shown_text(second.query_one("#tool-note", Static))
            options = [value for _label, value in second.query_one("#reply-kind", Select)._options]
            assert options == [""]  # mode none: no tool use offered
            await wait_for(pilot, lambda: second.query_one("#reply", TextArea).has_focus)
            await pilot.press(*"sunny")
            await pilot.press("ctrl+s")
            await wait_for(pilot, lambda: "result" in out)
    first, final = out["result"]["first"], out["result"]["second"]
    assert first["stopReason"] == "toolUse"
    assert first["content"] == [
        {
            "type": "tool_use",
            "id": screen.tool_use_id,
            "name": "get_weather",
            "input": {"city": "Paris"},
        }
    ]
    assert screen.tool_use_id.startswith("toolu_")
    assert final["content"]["text"] == "sunny" and final["stopReason"] == "endTurn"


@pytest.mark.slow
async def test_required_tool_choice_flags_text_reply_and_sends_it_anyway() -> None:
    app = HostApp()
    async with app.run_test(size=(120, 50)) as pilot:
        bridge = InteractiveResponders(app)
        async with _session(bridge.responders()) as session, anyio.create_task_group() as tg:
            bridge.attach(session)
            out: dict[str, Any] = {}
            tg.start_soon(_agent, McpClient(session), out, "required")
            screen = await wait_for_screen(pilot, SamplingScreen)
            assert "toolChoice required" in shown_text(screen.query_one("#tool-note", Static))
            await pilot.press(*"no tools")
            await pilot.press("ctrl+s")
            await wait_for(pilot, lambda: "required" in _error(screen))
            assert app.screen is screen
            await pilot.press("ctrl+s")  # the same problem again: sent anyway
            await wait_for(pilot, lambda: "result" in out)
    assert out["result"]["first"]["content"] == {"type": "text", "text": "no tools"}


@pytest.mark.slow
async def test_standing_rule_answers_tool_requests_with_text() -> None:
    notes: list[str] = []

    class Host(HostApp):
        def notify(self, message: str, *args: Any, **kwargs: Any) -> None:  # type: ignore
            notes.append(message)
            super().notify(message, *args, **kwargs)

    app = Host()
    async with app.run_test(size=(120, 40)):
        bridge = InteractiveResponders(app)
        bridge.set_rule(SamplingRule(text="ruled"))
        async with _session(bridge.responders()) as session:
            bridge.attach(session)
            out: dict[str, Any] = {}
            await _agent(McpClient(session), out)
            assert out["result"]["first"]["content"]["text"] == "ruled"
            assert not any("toolChoice required" in n for n in notes)
            await _agent(McpClient(session), out, "required")
        assert not isinstance(app.screen, SamplingScreen)  # no dialog was ever pushed
    assert out["result"]["first"]["content"]["text"] == "ruled"
    assert bridge.auto_answered == 2
    assert sum("toolChoice required a tool use" in n for n in notes) == 1


def test_every_content_type_is_shown_literally() -> None:
    params = {
        "messages": [
            {
                "role": "assistant",
                "content": [
                    {"type": "tool_use", "id": "c1", "name": "t[b]", "input": {"q": "\x1b[2J"}}
                ],
            },
            {
                "role": "user",
                "content": [
                    {
                        "type": "tool_result",
                        "toolUseId": "c1",
                        "isError": True,
                        "content": [
                            {"type": "text", "text": "[red]boom[/red]"},
                            {"type": "image", "mimeType": "image/png", "data": "AAAA"},
                            {"type": "resource_link", "uri": "file:///x", "name": "x"},
                            {
                                "type": "resource",
                                "resource": {"uri": "mem://r", "text": "body\x07"},
                            },
                        ],
                        "structuredContent": {"k": 1},
                    }
                ],
            },
            {"role": "user", "content": {"type": "mystery", "payload": "[i]x[/i]"}},
        ],
        "toolChoice": {"mode": "auto"},
    }
    text = render_request(params).plain
    assert 'tool_use t[b] (id c1) {"q": "\\u001b[2J"}' in text
    assert "tool_result for c1 (isError):" in text
    assert "    [red]boom[/red]" in text and "[image image/png, ~3 bytes]" in text
    assert "[resource_link file:///x x]" in text and "[resource mem://r] body␇" in text
    assert 'structuredContent: {"k": 1}' in text
    assert '"type": "mystery"' in text and "[i]x[/i]" in text


TOOLS_PARAMS: dict[str, Any] = {
    "messages": [{"role": "user", "content": {"type": "text", "text": "Weather?"}}],
    "maxTokens": 50,
    "tools": [
        {
            "name": "get_weather",
            "inputSchema": {
                "type": "object",
                "properties": {"city": {"type": "string"}},
                "required": ["city"],
            },
        },
        {"name": "get_time", "inputSchema": {"type": "object"}},
    ],
}


@pytest.mark.slow
async def test_json_mode_round_trip_and_parallel_tool_uses() -> None:
    app = HostApp()
    async with app.run_test(size=(120, 50)) as pilot:
        decisions: list[Any] = []
        app.push_screen(SamplingScreen(TOOLS_PARAMS), callback=decisions.append)
        screen = await wait_for_screen(pilot, SamplingScreen)
        screen.query_one("#reply-kind", Select).value = "get_weather"
        await wait_for(pilot, lambda: screen.has_class("tool-mode"))
        assert screen.query_one("#remember").disabled  # a standing rule answers text only
        screen.query_one("#tool-input", TextArea).text = '{"city": "Oslo"}'
        await pilot.press("ctrl+j")
        await wait_for(pilot, lambda: screen.json_mode)
        raw = screen.query_one("#raw", TextArea)
        value = json.loads(raw.text)
        assert value["content"][0]["input"] == {"city": "Oslo"}
        value["content"][0].update(name="get_time", input={"zone": "UTC"})
        raw.text = json.dumps(value)
        await pilot.press("ctrl+j")  # back to the form: the edited tool and input are kept
        await wait_for(pilot, lambda: not screen.json_mode and screen.tool_name == "get_time")
        tool_input = screen.query_one("#tool-input", TextArea)
        # the select's change event has run (it consumes the carried input): no skeleton
        await wait_for(pilot, lambda: screen._pending_input is None)
        assert json.loads(tool_input.text) == {"zone": "UTC"}
        await pilot.press("ctrl+j")  # parallel tool uses: only the JSON editor says them
        await wait_for(pilot, lambda: screen.json_mode)
        value = json.loads(raw.text)
        value["content"].append({"type": "tool_use", "id": "t2", "name": "get_time", "input": {}})
        raw.text = json.dumps(value)
        await pilot.press("ctrl+s")
        await wait_for(pilot, lambda: bool(decisions))
    result = decisions[0].result
    assert [b["name"] for b in result["content"]] == ["get_time", "get_time"]
    assert result["content"][0]["input"] == {"zone": "UTC"}
    assert result["stopReason"] == "toolUse" and decisions[0].remember is False
