"""``mcp-inspect attach``: the TUI on a live proxy, through the real app and keys."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import anyio
import pytest
from proxy_support import events, host_through_proxy, runtime_folder, wait_for_proxy
from proxy_tui_support import attached_app
from textual.widgets import Input, TextArea
from tui_helpers import plain, screen_text, select_item, wait_connected, wait_for

from inspector.engine.client import McpClient
from inspector.engine.responders import Responders
from inspector.engine.session import RequestTimeoutError
from inspector.proxy.attach import AttachResume
from inspector.tui.app import InspectorApp
from inspector.tui.screens.intercept import InterceptScreen
from inspector.tui.screens.sampling import SamplingScreen
from inspector.tui.widgets.catalog import Catalog
from inspector.tui.widgets.item_panel import ItemPanel
from inspector.tui.widgets.message_log import MessageLog
from inspector.tui.widgets.result_view import ResultView, render_outcome
from inspector.tui.widgets.status_bar import StatusBar
from inspector.wire.events import WireEvent

SIZE = (150, 45)


@pytest.fixture
def runtime() -> Iterator[Path]:
    with runtime_folder() as folder:
        yield folder


def result_text(app: InspectorApp) -> str:
    outcome = app.query_one(ResultView).outcome
    return plain(render_outcome(outcome)) if outcome is not None else ""


def log_rows(app: InspectorApp) -> list[str]:
    log = app.query_one(MessageLog)
    return [log.lines.summary(i).text for i in range(len(log.source))]


def text_of(result: dict[str, object]) -> str:
    content = result["content"]
    assert isinstance(content, list)
    return "".join(c.get("text", "") for c in content)


@pytest.mark.slow
async def test_attached_tui_fills_live_and_calls_into_the_session(
    runtime: Path, tmp_path: Path
) -> None:
    host_seen: list[WireEvent] = []
    async with host_through_proxy(runtime, tmp_path / "p.jsonl", host_seen, name="tui") as host:
        host_client = McpClient(host)
        await host_client.call_tool("echo", {"message": "before the attach"})
        app = attached_app(await wait_for_proxy("tui"))
        async with app.run_test(size=SIZE) as pilot:
            await wait_connected(pilot)
            assert app.query_one(StatusBar).transport == "proxy"
            # the past is in the log, labelled with whose it is
            await wait_for(pilot, lambda: any(r.startswith("host │") for r in log_rows(app)))
            # and it fills live
            await host_client.call_tool("echo", {"message": "while attached"})
            await wait_for(
                pilot, lambda: any("while attached" in r and "host" in r for r in log_rows(app))
            )

            # a call fired from the form while the host calls: both get their own answers
            await select_item(pilot, "tools", "add")
            form = app.query_one(ItemPanel).form
            assert form is not None
            form.set_arguments({"a": 2, "b": 3})
            await pilot.pause(0.1)
            await pilot.press("ctrl+s")
            hosts = await host_client.call_tool("add", {"a": 40, "b": 2})
            await wait_for(pilot, lambda: "2 + 3 = 5" in result_text(app))
            assert text_of(hosts).startswith("40 + 2 = 42")

            # the server's request caused by the TUI's call opens the TUI's dialog
            await select_item(pilot, "tools", "ask_llm")
            form = app.query_one(ItemPanel).form
            assert form is not None
            form.set_arguments({"question": "who is asked?"})
            await pilot.pause(0.1)
            await pilot.press("ctrl+s")
            await wait_for(pilot, lambda: isinstance(app.screen, SamplingScreen))
            app.screen.query_one("#reply", TextArea).load_text("the inspector answers")
            await pilot.press("ctrl+s")
            await wait_for(pilot, lambda: "the inspector answers" in result_text(app))
            assert any(r.startswith("inspector 1 │") for r in log_rows(app))
        # the host never saw the TUI's sampling request nor its answers
        assert not [e for e in host_seen if e.method == "sampling/createMessage"]
        with anyio.fail_after(20):
            again = await host_client.call_tool("add", {"a": 1, "b": 1})
        assert text_of(again).startswith("1 + 1 = 2")


def listings(record: Path, side: str) -> list[str]:
    """The list requests ``side`` sent through the proxy, as recorded."""
    found = []
    for event in events(record):
        meta = event.get("meta", {})
        if event["dir"] == "out" and meta.get("side") == side and '"/list' not in event["raw"]:
            method = str(event["raw"]).split('"method":', 1)[-1]
            if "/list" in method and "list_changed" not in method:
                found.append(method.split('"')[1])
    return found


@pytest.mark.slow
async def test_the_catalog_is_what_the_host_was_given_and_can_be_relisted(
    runtime: Path, tmp_path: Path
) -> None:
    record = tmp_path / "p.jsonl"
    async with host_through_proxy(runtime, record, [], name="cat") as host:
        host_client = McpClient(host)
        host_tools = await host_client.list_all("tools")
        host_resources = await host_client.list_all("resources")
        app = attached_app(await wait_for_proxy("cat"))
        async with app.run_test(size=SIZE) as pilot:
            await wait_connected(pilot)
            catalog = app.query_one(Catalog)
            names = [t["name"] for t in host_tools]
            await wait_for(pilot, lambda: [t["name"] for t in catalog.items["tools"]] == names)
            assert catalog.items["resources"] == host_resources
            # what the host listed was not asked again; what it never listed was
            asked = listings(record, "inspector")
            assert "tools/list" not in asked and "resources/list" not in asked
            assert "prompts/list" in asked and "resources/templates/list" in asked
            # the host's later listings follow: a tool appears for the host, and for us
            await host_client.call_tool("toggle_extra_tool", {})
            await host_client.list_all("tools")
            await wait_for(
                pilot, lambda: "extra_tool" in [t["name"] for t in catalog.items["tools"]]
            )
            # L lists everything again with requests of the inspector's own
            before = listings(record, "inspector").count("tools/list")
            await pilot.press("L")
            await wait_for(
                pilot, lambda: listings(record, "inspector").count("tools/list") > before
            )
        assert "tools/list" in listings(record, "host")


@pytest.mark.slow
async def test_intercept_from_the_tui_holds_and_forwards_an_edit(
    runtime: Path, tmp_path: Path
) -> None:
    async with host_through_proxy(runtime, tmp_path / "p.jsonl", [], name="itui") as host:
        host_client = McpClient(host)
        app = attached_app(await wait_for_proxy("itui"))
        async with app.run_test(size=SIZE) as pilot:
            await wait_connected(pilot)
            await pilot.press("I")
            await wait_for(pilot, lambda: isinstance(app.screen, InterceptScreen))
            screen = app.screen
            assert isinstance(screen, InterceptScreen)
            await wait_for(pilot, lambda: screen.query_one("#filter", Input).has_focus)
            await pilot.press(*"method:tools/call", "enter")
            await wait_for(pilot, lambda: screen.transport.intercept_filter == "method:tools/call")

            results: list[str] = []

            async def call() -> None:
                results.append(text_of(await host_client.call_tool("add", {"a": 1, "b": 2})))

            async with anyio.create_task_group() as tg:
                tg.start_soon(call)
                editor = screen.query_one("#frame", TextArea)
                await wait_for(pilot, lambda: '"add"' in editor.text)
                editor.load_text(editor.text.replace('"a":1', '"a":9'))
                await pilot.press("ctrl+f")
            assert results == ["9 + 2 = 11"]
            await wait_for(pilot, lambda: not screen.transport.held)
            await pilot.press("escape")
            await wait_for(pilot, lambda: not isinstance(app.screen, InterceptScreen))


@pytest.mark.slow
async def test_intercept_keys_work_in_the_filter_and_the_editor_and_are_shown(
    runtime: Path, tmp_path: Path
) -> None:
    """ctrl+d and ctrl+a are text keys of Input/TextArea: the dialog's decisions win
    wherever the focus is, and the dialog names its keys (it has no footer)."""
    async with host_through_proxy(runtime, tmp_path / "p.jsonl", [], name="ikeys") as host:
        host_client = McpClient(host)
        app = attached_app(await wait_for_proxy("ikeys"))
        async with app.run_test(size=SIZE) as pilot:
            await wait_connected(pilot)
            await pilot.press("I")
            await wait_for(pilot, lambda: isinstance(app.screen, InterceptScreen))
            screen = app.screen
            assert isinstance(screen, InterceptScreen)
            shown = screen_text(app)
            for key in ("Forward (ctrl+f)", "Drop (ctrl+d)", "Forward all (ctrl+a)", "esc"):
                assert key in shown
            filter_input = screen.query_one("#filter", Input)
            await wait_for(pilot, lambda: filter_input.has_focus)
            await pilot.press(*"method:tools/call", "enter")
            await wait_for(pilot, lambda: screen.transport.intercept_filter == "method:tools/call")

            async def dropped() -> None:
                with pytest.raises(RequestTimeoutError):
                    await host.request(
                        "tools/call", {"name": "echo", "arguments": {"message": "x"}}, timeout=3
                    )

            async with anyio.create_task_group() as tg:
                tg.start_soon(dropped)
                await wait_for(pilot, lambda: len(screen.transport.held) == 1)
                assert filter_input.has_focus  # where the user typed the filter
                filter_input.cursor_position = 0  # ctrl+d would delete the "m"
                await pilot.press("ctrl+d")
                await wait_for(pilot, lambda: not screen.transport.held)
            assert filter_input.value == "method:tools/call"

            results: list[str] = []

            async def call() -> None:
                results.append(text_of(await host_client.call_tool("add", {"a": 1, "b": 1})))

            async with anyio.create_task_group() as tg:
                tg.start_soon(call)
                editor = screen.query_one("#frame", TextArea)
                await wait_for(pilot, lambda: '"add"' in editor.text)
                await pilot.press("tab", "tab")  # filter -> held list -> the frame's editor
                await wait_for(pilot, lambda: editor.has_focus)
                await pilot.press("ctrl+a")
                await wait_for(pilot, lambda: bool(results))
            assert results == ["1 + 1 = 2"]
            await pilot.press("escape")
            await wait_for(pilot, lambda: not isinstance(app.screen, InterceptScreen))


@pytest.mark.slow
async def test_intercept_needs_an_attached_proxy() -> None:
    from inspector.target import demo_target

    app = InspectorApp(demo_target(), responders=Responders())
    async with app.run_test(size=SIZE) as pilot:
        await wait_connected(pilot)
        await pilot.press("I")
        await wait_for(pilot, lambda: bool(app._notifications))
        assert "mcp-inspect attach" in str(list(app._notifications)[-1].message)
        assert not isinstance(app.screen, InterceptScreen)


def rows_with(app: InspectorApp, text: str) -> int:
    return sum(text in row for row in log_rows(app))


@pytest.mark.slow
async def test_a_reconnect_shows_the_proxys_past_once(runtime: Path, tmp_path: Path) -> None:
    """`r` on an attached TUI attaches again: the proxy sends its history again, and what
    the log showed already is not shown twice; what happens next still is."""
    async with host_through_proxy(runtime, tmp_path / "p.jsonl", [], name="again") as host:
        host_client = McpClient(host)
        await host_client.call_tool("echo", {"message": "said once"})
        app = attached_app(await wait_for_proxy("again"))
        async with app.run_test(size=SIZE) as pilot:
            await wait_connected(pilot)
            await wait_for(pilot, lambda: rows_with(app, "said once") == 2)  # asked, answered
            assert app.controller is not None
            await pilot.press("r")
            await wait_for(pilot, lambda: rows_with(app, "as inspector 2") == 1)
            await wait_connected(pilot)
            await host_client.call_tool("echo", {"message": "after the reconnect"})
            await wait_for(pilot, lambda: rows_with(app, "after the reconnect") == 2)
            assert rows_with(app, "said once") == 2
            assert rows_with(app, "proxy again: host on stdio") == 1  # the proxy's first note
            # the era is the host's: no server/discover probe reached its server
            assert rows_with(app, "server/discover") == 0
            assert rows_with(app, "answers initialize with its host's handshake") == 2


def test_a_resume_is_for_the_same_proxy_only() -> None:
    cleared: list[bool] = []
    resume = AttachResume(on_new_proxy=lambda: cleared.append(True))
    assert resume.welcomed({"pid": 7, "started": "t1"}) == 0 and not cleared
    resume.seq = 41
    assert resume.welcomed({"pid": 7, "started": "t1"}) == 41  # the same proxy: skip to 41
    assert resume.welcomed({"pid": 7, "started": "t2"}) == 0  # pid reused by another one
    assert cleared == [True] and resume.seq == 0
