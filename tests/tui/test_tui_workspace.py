"""A workspace through the real app: the demo, an official-SDK stdio server, an
official-SDK Streamable HTTP server and a failing one, each connecting in parallel on
its own screen; the server list switches between them (catalogs and forms kept), ctrl+n
adds one, and removing one stops its process."""

from __future__ import annotations

import os
import sys
from typing import Any

import pytest
from paths import ROOT
from textual.pilot import Pilot
from tui_helpers import screen_text, wait_for

from inspector.target import Target, demo_target
from inspector.tui.app import InspectorApp
from inspector.tui.mode import Live
from inspector.tui.screens.all_log import AllLogScreen
from inspector.tui.screens.confirm import ConfirmScreen
from inspector.tui.screens.server_list import ServerListScreen
from inspector.tui.widgets.item_panel import ItemPanel
from inspector.tui.widgets.message_detail import MessageDetail
from inspector.tui.widgets.message_log import MessageLog
from inspector.wire.events import Kind
from inspector.workspace.status import State

SDK_STDIO = str(ROOT / "tests/servers/sdk_stdio_server.py")


@pytest.fixture
def sdk_http(sdk_sse_base: str) -> str:
    return sdk_sse_base + "/mcp"  # the worker's shared server (conftest)


def workspace_app(url: str) -> InspectorApp:
    return InspectorApp(
        Live(demo_target()),
        workspace=[
            ("sdk-stdio", Target(command=sys.executable, args=[SDK_STDIO]), None),
            ("sdk-http", Target(url=url), None),
            (
                "broken",
                Target(command=sys.executable, args=["-c", "import sys; sys.exit(3)"]),
                None,
            ),
        ],
    )


def tools(app: InspectorApp) -> list[str]:
    return [t["name"] for t in app.main.catalog.items["tools"]]


async def choose(pilot: Pilot[Any], row: int) -> None:
    """W, the cursor to ``row``, Enter: that server shown."""
    app = pilot.app
    assert isinstance(app, InspectorApp)
    await pilot.press("escape", "W")
    await wait_for(pilot, lambda: isinstance(app.screen, ServerListScreen))
    await pilot.press(*["up"] * 6, *["down"] * row, "enter")
    await wait_for(pilot, lambda: app.view is app.views[row] and app.screen is app.view.main)


def states(app: InspectorApp) -> dict[str, State]:
    return {view.name: view.status.state for view in app.views}


@pytest.mark.slow
async def test_a_workspace_connects_every_server_and_keeps_each_ones_view(sdk_http: str) -> None:
    app = workspace_app(sdk_http)
    async with app.run_test(size=(120, 35)) as pilot:
        await wait_for(
            pilot,
            lambda: (
                states(app)
                == {
                    "demo": State.CONNECTED,
                    "sdk-stdio": State.CONNECTED,
                    "sdk-http": State.CONNECTED,
                    "broken": State.FAILED,
                }
            ),
            timeout=60,
        )
        broken = app.views[3].status
        assert broken.row()[3].startswith("failed: ")  # with the reason
        assert app.views[1].status.era and app.views[2].status.transport == "auto"
        assert app.view is app.views[0]
        await wait_for(pilot, lambda: "echo" in tools(app))  # the catalog follows connected
        # the demo's form opened, then another server shown: its own catalog
        await pilot.press("escape", "1", "enter")
        demo_item = app.main.item_panel.item
        assert demo_item is not None
        await choose(pilot, 1)
        await wait_for(pilot, lambda: "add" in tools(app))
        assert "echo" not in tools(app)
        await choose(pilot, 2)
        await wait_for(pilot, lambda: "add" in tools(app))
        # back: the demo's catalog and open form as they were
        await choose(pilot, 0)
        assert "echo" in tools(app)
        assert app.main.query_one(ItemPanel).item is demo_item
        # the list says each server's name, transport, era and state
        await pilot.press("escape", "W")
        await wait_for(pilot, lambda: isinstance(app.screen, ServerListScreen))
        text = " ".join(" ".join(s.row()) for s in app.screen.rows)  # type: ignore[attr-defined]
        assert "sdk-http" in text and "failed: " in text and "stdio" in text
        await pilot.press("escape")
        await pilot.press("q")
        await wait_for(pilot, lambda: not app.is_running, timeout=30)


@pytest.mark.slow
async def test_ctrl_n_adds_a_server_and_removing_it_stops_its_process() -> None:
    app = InspectorApp(Live(demo_target()))
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for(pilot, lambda: app.views[0].status.state is State.CONNECTED, timeout=30)
        await pilot.press("escape", "ctrl+n")
        await pilot.press(*f"{sys.executable} {SDK_STDIO}", "enter")
        await wait_for(pilot, lambda: len(app.views) == 2 and app.view is app.views[1])
        added = app.views[1]
        assert added.name == "sdk_stdio_server"
        await wait_for(pilot, lambda: added.status.state is State.CONNECTED, timeout=30)
        await wait_for(pilot, lambda: "add" in tools(app))
        session = added.server.session
        assert session is not None
        pid = session.transport.process.pid  # type: ignore[attr-defined]
        os.kill(pid, 0)  # running
        await choose(pilot, 1)
        await pilot.press("escape", "W")
        await wait_for(pilot, lambda: isinstance(app.screen, ServerListScreen))
        await pilot.press("up", "up", "down", "x")
        await wait_for(pilot, lambda: len(app.views) == 1 and app.view is app.views[0])
        with pytest.raises(ProcessLookupError):
            os.kill(pid, 0)
        assert "echo" in tools(app)
        # bad input: a clear message, nothing added
        await pilot.press("escape", "ctrl+n", *"https://h/mcp extra", "enter")
        await wait_for(
            pilot, lambda: any("no further words" in str(n.message) for n in app._notifications)
        )
        assert len(app.views) == 1


def servers_in(source: Any) -> set[str]:
    return {source.meta(i).get("server") for i in range(len(source))}


@pytest.mark.slow
async def test_one_log_holds_every_servers_frames_with_a_server_column() -> None:
    app = InspectorApp(
        Live(demo_target()),
        workspace=[("sdk-stdio", Target(command=sys.executable, args=[SDK_STDIO]), None)],
    )
    async with app.run_test(size=(120, 35)) as pilot:
        await wait_for(
            pilot, lambda: all(s is State.CONNECTED for s in states(app).values()), timeout=60
        )
        await wait_for(pilot, lambda: "echo" in tools(app))
        # W, then a: the merged log, each row with its server's name
        await pilot.press("escape", "W")
        await wait_for(pilot, lambda: isinstance(app.screen, ServerListScreen))
        await pilot.press("a")
        await wait_for(pilot, lambda: isinstance(app.screen, AllLogScreen))
        log = app.screen.query_one(MessageLog)
        await wait_for(pilot, lambda: servers_in(log.source) == {"demo", "sdk-stdio"})
        await wait_for(pilot, lambda: log.shown == len(log.source))
        text = screen_text(app)
        assert "demo" in text and "sdk-stdio" in text and "tools/list" in text
        # each server's tools/list answer is paired with its own request (both use id 1..)
        source = log.source
        lists = [
            i
            for i in range(len(source))
            if source.method(i) == "tools/list" and source.kind(i) is Kind.REQUEST
        ]
        assert {source.meta(i)["server"] for i in lists} == {"demo", "sdk-stdio"}
        for i in lists:
            response = source.find_response(i)
            assert response is not None
            assert source.meta(response)["server"] == source.meta(i)["server"]
        # the server: term keeps one server's frames
        await pilot.press("slash", *"server:sdk-stdio", "enter")
        await wait_for(pilot, lambda: 0 < log.shown < len(source))
        shown = {source.meta(log.lines.index_at(r))["server"] for r in range(log.shown)}
        assert shown == {"sdk-stdio"}
        # Enter: the frame's detail, as in a server's own log
        await wait_for(pilot, lambda: log.lines.has_focus)
        await pilot.press("enter")
        detail = app.screen.query_one(MessageDetail)
        await wait_for(pilot, lambda: detail.display and detail.event is not None)
        # v: its raw bytes, from the log (as p c s)
        await pilot.press("v")
        await wait_for(pilot, lambda: detail.raw_mode)
        assert log.lines.has_focus
        # Esc closes the detail, Esc again goes back to the server shown
        await pilot.press("escape", "escape")
        await wait_for(pilot, lambda: app.screen is app.view.main)


@pytest.mark.slow
async def test_a_server_added_to_one_merges_both_logs_with_the_first_ones_frames() -> None:
    app = InspectorApp(Live(demo_target()))
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for(pilot, lambda: app.views[0].status.state is State.CONNECTED, timeout=30)
        await wait_for(pilot, lambda: "echo" in tools(app))
        first = len(app.views[0].server.state.events)
        # one server: its frames are its own (no tag, nothing merged)
        assert app.views[0].server.state.store.meta(0).get("server") is None
        await pilot.press("escape", "ctrl+n", *f"{sys.executable} {SDK_STDIO}", "enter")
        await wait_for(pilot, lambda: len(app.views) == 2)
        await wait_for(pilot, lambda: app.views[1].status.state is State.CONNECTED, timeout=30)
        await pilot.press("escape", "W", "a")
        await wait_for(pilot, lambda: isinstance(app.screen, AllLogScreen))
        log = app.screen.query_one(MessageLog)
        await wait_for(pilot, lambda: servers_in(log.source) == {"demo", "sdk_stdio_server"})
        demo_frames = [i for i in range(len(log.source)) if log.source.meta(i)["server"] == "demo"]
        assert len(demo_frames) >= first  # the demo's frames from before ctrl+n too


@pytest.mark.slow
async def test_servers_with_skills_list_them_when_their_screen_is_first_shown() -> None:
    """Five demo servers (each declares skills) connect before their screens are
    composed; a server's Skills tab is filled once its screen is shown and composed all
    through, not before (it crashed the app)."""
    app = InspectorApp(
        Live(demo_target()),
        workspace=[(f"demo{n}", demo_target(), None) for n in range(1, 5)],
    )
    async with app.run_test(size=(120, 35)) as pilot:
        await wait_for(
            pilot, lambda: all(s is State.CONNECTED for s in states(app).values()), timeout=90
        )
        assert not any(view.started for view in app.views[1:])  # connected, not composed
        for row, view in enumerate(app.views):
            await choose(pilot, row)
            await wait_for(pilot, lambda v=view: bool(v.skills.view and v.skills.view.entries))
            assert "echo" in tools(app)


@pytest.mark.slow
async def test_a_server_never_shown_is_removed_and_its_process_stopped() -> None:
    app = InspectorApp(
        Live(demo_target()),
        workspace=[("sdk-stdio", Target(command=sys.executable, args=[SDK_STDIO]), None)],
    )
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for(
            pilot, lambda: all(s is State.CONNECTED for s in states(app).values()), timeout=60
        )
        other = app.views[1]
        assert not other.started  # connected, its screen never built
        session = other.server.session
        assert session is not None
        pid = session.transport.process.pid  # type: ignore[attr-defined]
        await pilot.press("escape", "W")
        await wait_for(pilot, lambda: isinstance(app.screen, ServerListScreen))
        await pilot.press("down", "x")
        await wait_for(pilot, lambda: len(app.views) == 1)
        with pytest.raises(ProcessLookupError):
            os.kill(pid, 0)
        assert app.screen is app.views[0].main and "echo" in tools(app)


@pytest.mark.slow
async def test_a_sampling_dialog_names_the_workspace_server_that_asks() -> None:
    """Two demo servers (the same server name): each one's sampling request is asked in
    a dialog naming its workspace server, shown or not."""
    from inspector.engine.responders import Responders
    from inspector.tui.interactive_setup import interactive_responders
    from inspector.tui.screens.sampling import SamplingScreen

    responders = Responders()
    app = InspectorApp(
        Live(demo_target()), responders=responders, workspace=[("demo2", demo_target(), None)]
    )
    interactive_responders(app, responders)  # as launch does
    async with app.run_test(size=(120, 35)) as pilot:
        await wait_for(
            pilot, lambda: all(s is State.CONNECTED for s in states(app).values()), timeout=60
        )
        for view, name in ((app.views[1], "demo2"), (app.views[0], "demo")):
            client = view.server.client
            assert client is not None
            app.run_worker(client.call_tool("ask_llm", {"question": "2+2?"}), exit_on_error=False)
            await wait_for(pilot, lambda: isinstance(app.screen, SamplingScreen))
            screen = app.screen
            assert isinstance(screen, SamplingScreen)
            assert screen.server.startswith(f"{name} (")
            await pilot.press("escape")  # rejected
            await wait_for(pilot, lambda: not isinstance(app.screen, SamplingScreen))


@pytest.mark.slow
async def test_q_asks_when_a_server_not_shown_has_a_call_waiting() -> None:
    """Quitting a workspace counts every server's losses, not only the shown one's: a
    call waiting on a server never shown is named in the question (No keeps it)."""
    app = InspectorApp(Live(demo_target()), workspace=[("demo2", demo_target(), None)])
    async with app.run_test(size=(120, 35)) as pilot:
        await wait_for(
            pilot, lambda: all(s is State.CONNECTED for s in states(app).values()), timeout=60
        )
        other = app.views[1]
        client = other.server.client
        assert client is not None and app.view is app.views[0]
        app.run_worker(client.call_tool("slow_count", {"seconds": 30}), exit_on_error=False)
        session = other.server.session
        await wait_for(pilot, lambda: session is not None and bool(session.pending))
        await pilot.press("escape", "q")
        await wait_for(pilot, lambda: isinstance(app.screen, ConfirmScreen))
        question = app.screen.question  # type: ignore[attr-defined]
        assert "demo2: 1 call still waiting for the server" in question
        await pilot.press("n")
        await wait_for(pilot, lambda: not isinstance(app.screen, ConfirmScreen))
        assert not app.quitting


@pytest.mark.slow
async def test_esc_leaves_the_form_of_the_server_shown() -> None:
    """Esc in a form of a server other than the first leaves that form for its catalog
    list (the app's keys acted on the first server's screen, hidden: Esc did nothing and
    letters kept typing into the field)."""
    app = InspectorApp(Live(demo_target()), workspace=[("demo2", demo_target(), None)])
    async with app.run_test(size=(120, 35)) as pilot:
        await wait_for(
            pilot, lambda: all(s is State.CONNECTED for s in states(app).values()), timeout=60
        )
        await choose(pilot, 1)
        shown = app.view.main
        await wait_for(pilot, lambda: bool(shown.catalog.items["tools"]))
        await pilot.press("enter")  # echo, the first tool: its form takes the keys
        panel = shown.item_panel
        await wait_for(pilot, lambda: panel.form is not None and panel.form.has_focus_within)
        await pilot.press(*"hi", "escape", "9")
        assert panel.form is not None and panel.form.current_value()["message"] == "hi"
        await wait_for(pilot, lambda: app.focused is shown.query_one("#list-tools"))


@pytest.mark.slow
async def test_the_palette_filters_act_on_the_server_shown() -> None:
    """The palette's "Filter the log" and "Filter the list" open the filters of the server
    shown, not the first server's (hidden behind it: the keys typed went nowhere seen)."""
    app = InspectorApp(Live(demo_target()), workspace=[("demo2", demo_target(), None)])
    async with app.run_test(size=(120, 35)) as pilot:
        await wait_for(
            pilot, lambda: all(s is State.CONNECTED for s in states(app).values()), timeout=60
        )
        await choose(pilot, 1)
        shown, first = app.view.main, app.views[0].main
        await wait_for(pilot, lambda: bool(shown.catalog.items["tools"]))
        for command in ("Filter the list", "Filter the log"):
            await pilot.press("ctrl+p", *command)
            await pilot.pause(0.3)
            await pilot.press("enter")
            await wait_for(pilot, lambda: app.screen is shown)
            await pilot.press(*"echo")
            focused = app.focused
            assert focused is not None and focused.screen is shown, command
            assert getattr(focused, "value", None) == "echo", command
            await pilot.press("escape")
        assert all(getattr(w, "value", "") != "echo" for w in first.query("Input"))


async def test_the_status_bar_names_the_server_shown_once_there_are_several() -> None:
    """Two copies of one server show the same serverInfo: with several servers the status
    bar starts with the shown one's name (and stops once it is alone again)."""
    app = InspectorApp(Live(demo_target()))
    async with app.run_test(size=(120, 35)) as pilot:
        await wait_for(pilot, lambda: app.views[0].status.state is State.CONNECTED, timeout=30)
        first = app.views[0]
        assert "›" not in screen_text(app).splitlines()[0]
        await pilot.press("escape", "ctrl+n", *f"{sys.executable} -m inspector.demo", "enter")
        await wait_for(pilot, lambda: len(app.views) == 2 and app.view is app.views[1])
        added = app.views[1]
        await wait_for(pilot, lambda: added.status.state is State.CONNECTED, timeout=30)
        assert added.name != first.name
        await wait_for(pilot, lambda: f"{added.name} ›" in screen_text(app).splitlines()[0])
        await choose(pilot, 0)
        await wait_for(pilot, lambda: f"{first.name} ›" in screen_text(app).splitlines()[0])
        await pilot.press("escape", "W")
        await wait_for(pilot, lambda: isinstance(app.screen, ServerListScreen))
        await pilot.press("up", "up", "down", "x")
        await wait_for(pilot, lambda: len(app.views) == 1 and app.screen is first.main)
        await wait_for(pilot, lambda: "›" not in screen_text(app).splitlines()[0])
