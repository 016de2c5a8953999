"""Snapshot tests at a small (80x24) and a large (200x50) terminal: the main view, a form
and a dialog (pytest-textual-snapshot).

The main view and the form replay tests/data/demo-session.jsonl (fixed times); the dialog
is the sampling dialog the demo's ``ask_llm`` tool opens, live, with the log's tab
switched to Tasks (empty) so no clock shows. After an intended change of the look:
``pytest tests/test_snapshots_sizes.py --snapshot-update``, then look at the new SVGs.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest
from test_snapshots import SESSION, replay_loaded
from textual.pilot import Pilot
from textual.widgets import TabbedContent, TextArea
from tui_helpers import select_item, wait_connected, wait_for

from inspector.engine.responders import Responders
from inspector.record.indexed import IndexedSessionFile
from inspector.target import demo_target
from inspector.tui.app import InspectorApp
from inspector.tui.interactive_setup import interactive_responders
from inspector.tui.screens.sampling import SamplingScreen
from inspector.tui.widgets.item_panel import ItemPanel
from inspector.tui.widgets.message_log import MessageLog
from inspector.tui.widgets.status_bar import StatusBar

pytestmark = pytest.mark.slow  # end to end: see pyproject's markers

Snap = Callable[..., bool]
SIZES = [pytest.param((80, 24), id="80x24"), pytest.param((200, 50), id="200x50")]


@pytest.fixture
def replay() -> Iterator[InspectorApp]:
    source = IndexedSessionFile(SESSION)
    yield InspectorApp(None, source=source, replay_title=SESSION.name)
    source.close()


@pytest.mark.parametrize("size", SIZES)
def test_main_view(snap_compare: Snap, replay: InspectorApp, size: tuple[int, int]) -> None:
    async def run_before(pilot: Pilot[Any]) -> None:
        await replay_loaded(pilot)

    assert snap_compare(replay, terminal_size=size, run_before=run_before)


@pytest.mark.parametrize("size", SIZES)
def test_form(snap_compare: Snap, replay: InspectorApp, size: tuple[int, int]) -> None:
    """schedule_event's nested form, the field in focus in view."""

    async def run_before(pilot: Pilot[Any]) -> None:
        await replay_loaded(pilot)
        await select_item(pilot, "tools", "schedule_event")
        form = pilot.app.query_one(ItemPanel).form
        assert form is not None
        await wait_for(pilot, lambda: form.field(("when",)) is not None)
        focused: Any = pilot.app.focused
        if hasattr(focused, "cursor_blink"):  # held steady for the picture
            focused.cursor_blink = False
        await pilot.pause()

    assert snap_compare(replay, terminal_size=size, run_before=run_before)


@pytest.mark.parametrize("size", SIZES)
def test_sampling_dialog(snap_compare: Snap, size: tuple[int, int]) -> None:
    responders = Responders()
    app = InspectorApp(demo_target(), responders=responders)
    interactive_responders(app, responders)

    async def run_before(pilot: Pilot[Any]) -> None:
        await wait_connected(pilot)
        app.query_one("#bottom-tabs", TabbedContent).active = "tab-tasks"  # no clock shown
        await select_item(pilot, "tools", "ask_llm")
        await pilot.press(*"What is the Model Context Protocol?", "ctrl+s")
        await wait_for(pilot, lambda: isinstance(app.screen, SamplingScreen))
        log = app.query_one(MessageLog)
        source = log.source
        status = app.query_one(StatusBar)

        def settled() -> bool:
            """The sampling request and the call's stderr line are in, and counted (the
            server's stderr comes on a pipe of its own: it may land after the request)."""
            methods = [source.method(i) for i in range(len(source))]
            return (
                "sampling/createMessage" in methods
                and any("<- tools/call" in log.lines.summary(i).text for i in range(len(source)))
                and len(source) == status.events
                and status.pending == 1
            )

        await wait_for(pilot, settled)
        reply = app.screen.query_one("#reply", TextArea)
        reply.load_text("An open protocol that connects LLM applications to tools and data.")
        reply.cursor_blink = False  # drawn or not by the clock: held steady for the picture
        await pilot.pause()

    assert snap_compare(app, terminal_size=size, run_before=run_before)
