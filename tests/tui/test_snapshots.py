"""Snapshot tests of the main views (pytest-textual-snapshot).

Only deterministic screens: the app replays tests/data/demo-session.jsonl (a recorded
demo session with fixed times, see tests/data/make_demo_session.py) instead of a live
server, and the widgets get fixed input. After an intended change of the look:
``pytest tests/tui/test_snapshots.py --snapshot-update``, then look at the new SVGs.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest
from paths import DATA
from textual.app import App, ComposeResult
from textual.pilot import Pilot
from textual.widgets import Input, Static, TabbedContent
from tui_helpers import focus, wait_for

from inspector.demo.schemas import SCHEDULE_EVENT
from inspector.engine.completion import Completion
from inspector.record.indexed import IndexedSessionFile
from inspector.tui.app import InspectorApp
from inspector.tui.screens.sampling import SamplingScreen
from inspector.tui.widgets.catalog import Catalog
from inspector.tui.widgets.completion_menu import CompletionMenu
from inspector.tui.widgets.field_input import FieldInput
from inspector.tui.widgets.message_detail import MessageDetail
from inspector.tui.widgets.message_log import MessageLog
from inspector.tui.widgets.schema_form import SchemaForm
from inspector.tui.widgets.status_bar import StatusBar
from inspector.wire.events import Kind

pytestmark = pytest.mark.slow  # end to end: see pyproject's markers

SESSION = DATA / "demo-session.jsonl"
SIZE = (140, 40)
Snap = Callable[..., bool]


@pytest.fixture
def replay() -> Iterator[InspectorApp]:
    source = IndexedSessionFile(SESSION)
    yield InspectorApp(None, source=source, replay_title=SESSION.name)
    source.close()


async def replay_loaded(pilot: Pilot[Any]) -> InspectorApp:
    """The whole recording indexed, shown and counted; the catalog rebuilt."""
    app = pilot.app
    assert isinstance(app, InspectorApp) and app.replay_source is not None
    source = app.replay_source
    log = app.query_one(MessageLog)
    await wait_for(
        pilot,
        lambda: (
            app.query_one(Catalog).items["prompts"]
            and log.shown == len(source) > 40
            and app.query_one(StatusBar).events == len(source)
            and not app.query_one(StatusBar).extra
        ),
    )
    return app


def test_replay_main_view(snap_compare: Snap, replay: InspectorApp) -> None:
    async def run_before(pilot: Pilot[Any]) -> None:
        await replay_loaded(pilot)

    assert snap_compare(replay, terminal_size=SIZE, run_before=run_before)


def test_replay_tool_call_response_detail(snap_compare: Snap, replay: InspectorApp) -> None:
    async def run_before(pilot: Pilot[Any]) -> None:
        app = await replay_loaded(pilot)
        log = app.query_one(MessageLog)
        source = log.source
        first_call = min(
            i
            for i in range(len(source))
            if source.method(i) == "tools/call" and source.kind(i) is Kind.RESPONSE
        )
        log.select_index(first_call)
        await focus(pilot, log.lines)
        await wait_for(pilot, lambda: log.lines.cursor_index == first_call)
        await pilot.press("enter")
        await wait_for(pilot, lambda: app.query_one(MessageDetail).index == first_call)

    assert snap_compare(replay, terminal_size=SIZE, run_before=run_before)


def test_replay_filtered_log(snap_compare: Snap, replay: InspectorApp) -> None:
    async def run_before(pilot: Pilot[Any]) -> None:
        app = await replay_loaded(pilot)
        log = app.query_one(MessageLog)
        source = log.source
        calls = sum(1 for i in range(len(source)) if source.method(i) == "tools/call")
        await pilot.press("g", "slash", *"method:tools/call")
        await wait_for(pilot, lambda: not log.scanning and log.shown == calls == 8)
        # a blinking cursor is drawn or not by the clock: hold it steady for the picture
        app.query_one("#filter-input", Input).cursor_blink = False
        await pilot.pause()

    assert snap_compare(replay, terminal_size=SIZE, run_before=run_before)


def test_replay_server_tab(snap_compare: Snap, replay: InspectorApp) -> None:
    async def run_before(pilot: Pilot[Any]) -> None:
        app = await replay_loaded(pilot)
        await pilot.press("i")
        await wait_for(
            pilot, lambda: app.query_one("#catalog-tabs", TabbedContent).active == "tab-server"
        )

    assert snap_compare(replay, terminal_size=SIZE, run_before=run_before)


class FormHost(App[None]):
    """A SchemaForm alone: schedule_event's nested schema, with oneOf variants picked."""

    def compose(self) -> ComposeResult:
        yield SchemaForm(
            SCHEDULE_EVENT,
            {
                "title": "Design review",
                "when": {"start": "2026-12-01T10:00:00Z", "end": "2026-12-01T11:00:00Z"},
                "recurrence": {"every": 2, "unit": "week"},
                "location": {"kind": "online", "url": "https://meet.example.com/design"},
                "reminders": [15, 60],
                "attendees": ["ada@example.com"],
            },
            id="form",
        )


def test_schema_form_nested(snap_compare: Snap) -> None:
    """The focus shows without a cursor: on the second reminder, its row and label lit."""

    async def run_before(pilot: Pilot[Any]) -> None:
        form = pilot.app.query_one(SchemaForm)
        await wait_for(pilot, lambda: form.field(("reminders", 1)) is not None)
        box = form.field(("reminders", 1)).query_one(Input)  # type: ignore[union-attr]
        box.focus()
        await wait_for(pilot, lambda: box.has_focus)
        box.cursor_blink = False  # the same picture every time

    assert snap_compare(FormHost(), terminal_size=(100, 50), run_before=run_before)


FILES = [f"logs/log-{n:03d}.txt" for n in range(1, 151)]


class CompletionHost(App[None]):
    """A template's form with the list of a server's completions under a field: the
    answer is fixed (the demo's bob: 100 of 150 files), the list is the app's own."""

    def compose(self) -> ComposeResult:
        yield SchemaForm(
            {
                "type": "object",
                "properties": {"user": {"type": "string"}, "path": {"type": "string"}},
                "required": ["user", "path"],
            },
            {"user": "bob"},
            id="form",
        )
        yield Static("what follows the form: the list floats over it")

    def on_mount(self) -> None:
        field = self.query_one(SchemaForm).field(("path",))
        assert field is not None
        box = field.query_one(FieldInput)

        async def ask(typed: str) -> Completion:
            found = [f for f in FILES if f.startswith(typed)]
            return Completion(found[:100], total=len(found), has_more=len(found) > 100)

        box.choices = CompletionMenu(box, ask)
        field.mount(box.choices, after=box)


def test_completion_list_under_a_field(snap_compare: Snap) -> None:
    async def run_before(pilot: Pilot[Any]) -> None:
        box = pilot.app.query(FieldInput).last()
        await focus(pilot, box)
        box.cursor_blink = False
        await pilot.press("down")
        menu = pilot.app.query_one(CompletionMenu)
        await wait_for(pilot, lambda: menu.shown)
        await pilot.press("down", "down", "down")

    assert snap_compare(CompletionHost(), terminal_size=(80, 24), run_before=run_before)


SAMPLING_PARAMS: dict[str, Any] = {
    "messages": [
        {"role": "user", "content": {"type": "text", "text": "What is the capital of France?"}},
        {"role": "assistant", "content": {"type": "text", "text": "Paris."}},
        {"role": "user", "content": {"type": "text", "text": "And its population?"}},
    ],
    "systemPrompt": "You are a terse geography assistant.",
    "maxTokens": 200,
    "temperature": 0.2,
    "modelPreferences": {
        "hints": [{"name": "claude"}],
        "intelligencePriority": 0.8,
        "speedPriority": 0.4,
        "costPriority": 0.2,
    },
}


class SamplingHost(App[None]):
    def on_mount(self) -> None:
        self.push_screen(
            SamplingScreen(
                SAMPLING_PARAMS,
                server="demo server 0.1.0",
                draft="About 2.1 million (city proper).",
            )
        )


def test_sampling_screen(snap_compare: Snap) -> None:
    async def run_before(pilot: Pilot[Any]) -> None:
        await wait_for(pilot, lambda: isinstance(pilot.app.screen, SamplingScreen))

    assert snap_compare(SamplingHost(), terminal_size=SIZE, run_before=run_before)
