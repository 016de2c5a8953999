"""Intercept you can see: with its dialog closed, an attached TUI says that frames are
held (the host is blocked), ``I`` opens on them, and quitting with frames held asks
first. Through the real app and keys, a real proxy in front of the demo server."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import pytest
from proxy_support import host_through_proxy, runtime_folder, wait_for_proxy
from proxy_tui_support import attached_app
from textual.pilot import Pilot
from textual.widgets import Input, OptionList
from tui_helpers import plain, screen_text, wait_connected, wait_for

from inspector.engine.client import McpClient
from inspector.engine.session import Session
from inspector.proxy.attach import AttachTransport
from inspector.tui.app import InspectorApp
from inspector.tui.screens.confirm import ConfirmScreen
from inspector.tui.screens.intercept import InterceptScreen
from inspector.tui.widgets.status_bar import StatusBar

SIZE = (150, 45)


@pytest.fixture
def runtime() -> Iterator[Path]:
    with runtime_folder() as folder:
        yield folder


def status_text(app: InspectorApp) -> str:
    return plain(app.query_one(StatusBar).render(), width=SIZE[0])


async def intercept_calls(pilot: Pilot[Any], app: InspectorApp) -> None:
    """``I``, the filter ``method:tools/call``, Esc: intercept on, the dialog closed."""
    await pilot.press("I")
    await wait_for(pilot, lambda: isinstance(app.screen, InterceptScreen))
    screen = app.screen
    assert isinstance(screen, InterceptScreen)
    await wait_for(pilot, lambda: screen.query_one("#filter", Input).has_focus)
    await pilot.press(*"method:tools/call", "enter")
    await wait_for(pilot, lambda: screen.transport.intercept_filter == "method:tools/call")
    await pilot.press("escape")
    await wait_for(pilot, lambda: not isinstance(app.screen, InterceptScreen))


def question_of(app: InspectorApp) -> str:
    screen = app.screen
    assert isinstance(screen, ConfirmScreen)
    return " ".join(screen.question.split())


def text_of(result: dict[str, object]) -> str:
    content = result["content"]
    assert isinstance(content, list)
    return "".join(c.get("text", "") for c in content)


async def host_call(host: Session, results: list[str], a: int) -> None:
    results.append(text_of(await McpClient(host).call_tool("add", {"a": a, "b": 1})))


@pytest.mark.slow
async def test_held_frames_show_in_the_status_bar_and_I_opens_on_them(
    runtime: Path, tmp_path: Path
) -> None:
    async with host_through_proxy(runtime, tmp_path / "p.jsonl", [], name="seen") as host:
        app = attached_app(await wait_for_proxy("seen"))
        async with app.run_test(size=SIZE) as pilot:
            await wait_connected(pilot)
            assert "intercept" not in status_text(app)
            await intercept_calls(pilot, app)
            # intercept on, nothing held yet: said, with the filter
            await wait_for(pilot, lambda: "⏸ intercept method:tools/call" in status_text(app))
            assert "held" not in status_text(app)

            results: list[str] = []
            async with anyio.create_task_group() as tg:
                tg.start_soon(host_call, host, results, 1)
                # the dialog is closed: the bar counts the held frames, and a toast says it
                await wait_for(pilot, lambda: "· 1 held (I)" in status_text(app))
                assert "⏸ intercept method:tools/call · 1 held (I)" in screen_text(app)
                toasts = [str(n.message) for n in app._notifications]
                assert any("held by intercept, the host waits: press I" in t for t in toasts)
                assert not results  # the host is blocked
                await pilot.press("I")  # opens on the held frames, not the filter
                await wait_for(pilot, lambda: isinstance(app.screen, InterceptScreen))
                screen = app.screen
                assert isinstance(screen, InterceptScreen)
                held_list = screen.query_one("#held", OptionList)
                await wait_for(pilot, lambda: held_list.has_focus)
                await pilot.press("escape")  # still held: still said
                await wait_for(pilot, lambda: not isinstance(app.screen, InterceptScreen))
                assert "· 1 held (I)" in status_text(app)
                await pilot.press("I")
                await wait_for(pilot, lambda: isinstance(app.screen, InterceptScreen))
                await pilot.press("ctrl+f")  # forwarded
                await wait_for(pilot, lambda: bool(results))
            assert results == ["1 + 1 = 2"]
            # live: nothing held any more, intercept still on
            await wait_for(pilot, lambda: "held" not in status_text(app))
            assert "⏸ intercept method:tools/call" in status_text(app)


@pytest.mark.slow
async def test_quitting_with_frames_held_asks_and_says_they_are_released(
    runtime: Path, tmp_path: Path
) -> None:
    async with host_through_proxy(runtime, tmp_path / "p.jsonl", [], name="leave") as host:
        app = attached_app(await wait_for_proxy("leave"))
        results: list[str] = []
        async with anyio.create_task_group() as tg:
            async with app.run_test(size=SIZE) as pilot:
                await wait_connected(pilot)
                await intercept_calls(pilot, app)
                tg.start_soon(host_call, host, results, 5)
                session = app.server.session
                assert session is not None
                transport = session.transport
                assert isinstance(transport, AttachTransport)
                await wait_for(pilot, lambda: bool(transport.held))
                await pilot.press("q")
                await wait_for(pilot, lambda: isinstance(app.screen, ConfirmScreen))
                assert "1 frame held by intercept will be released" in question_of(app)
                await pilot.press("n")  # stays, still holding
                await wait_for(pilot, lambda: not isinstance(app.screen, ConfirmScreen))
                assert app.return_code is None and not results
                await pilot.press("r")  # a reconnect detaches too: asked the same
                await wait_for(pilot, lambda: isinstance(app.screen, ConfirmScreen))
                assert "reconnecting detaches" in question_of(app)
                await pilot.press("n")
                await wait_for(pilot, lambda: not isinstance(app.screen, ConfirmScreen))
                assert transport.held and not results
                await pilot.press("q")
                await wait_for(pilot, lambda: isinstance(app.screen, ConfirmScreen))
                await pilot.press("y")
                await wait_for(pilot, lambda: app.return_code is not None)
            # the proxy forwarded the frame once its last inspector was gone
            with anyio.fail_after(30):
                while not results:
                    await anyio.sleep(0.05)
        assert results == ["5 + 1 = 6"]


def test_the_bar_keeps_the_held_count_at_any_width_and_the_filter_short() -> None:
    bar = StatusBar()
    bar.intercept = "method:tools/call \x1b]0;title\x07" + "x" * 100  # typed by anyone
    assert "intercept" in bar.facts(0).plain and "held" not in bar.facts(0).plain
    shown = bar.intercept_fact(0).plain
    assert "\x1b" not in shown and len(shown) < 50
    bar.held = 2
    assert "· 2 held (I)" in bar.facts(0).plain
    assert bar.facts(4).plain.endswith("⏸ 2 held (I)")  # the narrowest: the count stays
