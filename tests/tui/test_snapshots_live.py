"""Snapshot tests of the live views (pytest-textual-snapshot): the elicitation dialog, the
in-flight view, the tasks view and the roots editor, through the real app on the demo
server, reached with the keys a user presses.

A live session has clocks in it; each picture holds them steady: the views' clocks are one
fake clock the test moves (``SteadyClock``), behind a dialog the bottom pane shows the
(empty) tasks view rather than the log's wall times, task ids are numbered
(tests/servers/steady_demo.py), the server's stderr is caught up before the picture (its
lines count in the status bar), and text cursors do not blink.
After an intended change of the look: ``pytest tests/tui/test_snapshots_live.py
--snapshot-update``, then look at the new SVGs."""

from __future__ import annotations

import os
import signal
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from paths import PY, SERVERS
from textual.pilot import Pilot
from textual.widgets import DataTable, Input, TabbedContent
from tui_helpers import select_item, wait_connected, wait_for

import inspector.engine.outcomes as outcomes_module
import inspector.engine.pending as pending_module
import inspector.engine.tasks as tasks_module
import inspector.tui.widgets.tasks_view as tasks_view_module
from inspector.engine.responders import Responders
from inspector.engine.session import PendingRequest
from inspector.engine.tasks import TaskState
from inspector.target import Target
from inspector.tui.app import InspectorApp
from inspector.tui.interactive_setup import interactive_responders
from inspector.tui.screens.elicitation import ElicitationScreen
from inspector.tui.screens.roots import RootsScreen
from inspector.tui.widgets.item_panel import ItemPanel
from inspector.tui.widgets.message_log import MessageLog
from inspector.wire.events import Channel, Direction

pytestmark = pytest.mark.slow  # end to end: see pyproject's markers

SIZE = (140, 40)
Snap = Callable[..., bool]
# one folder there is on any machine, one there is not: the editor marks the missing one
ROOTS = ["/tmp", "/srv/mcp-inspect/no-such-project"]


class SteadyClock:
    """``time.monotonic`` for the views that show durations: it stands still until the
    test moves it, so "elapsed" and "age" read the same on every run."""

    def __init__(self, start: float = 1000.0) -> None:
        self.start = self.now = start

    def __call__(self) -> float:
        return self.now


class Stamp:
    """A dataclass field whose default factory is the real clock (taken at import, out of
    reach of a patch): whatever is stored, it keeps the steady clock's now instead."""

    def __init__(self, clock: SteadyClock, name: str) -> None:
        self.clock = clock
        self.name = name

    def __get__(self, obj: Any, owner: type) -> Any:
        return self if obj is None else obj.__dict__[self.name]

    def __set__(self, obj: Any, value: float) -> None:
        obj.__dict__[self.name] = self.clock.now


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch) -> SteadyClock:
    clock = SteadyClock()
    # the session times requests, its outcome reports say when they ended
    for module in (pending_module, outcomes_module, tasks_view_module):
        monkeypatch.setattr(module, "monotonic", clock)
    for cls, name in (
        (PendingRequest, "started"),
        (PendingRequest, "last_activity"),
        (TaskState, "seen"),
    ):
        monkeypatch.setattr(cls, name, Stamp(clock, name), raising=False)
    return clock


@pytest.fixture
def app() -> Iterator[InspectorApp]:
    """The app as ``mcp-inspect`` starts it on the demo: dialogs for the server's requests."""
    target = Target(command=PY, args=[str(SERVERS / "steady_demo.py")], name="demo")
    responders = Responders()
    app = InspectorApp(target, responders=responders)
    interactive_responders(app, responders, roots=ROOTS)
    yield app


def stderr_caught_up(app: InspectorApp) -> bool:
    """The demo logs each message it receives on stderr ("<- ..."), a pipe of its own:
    true once every message we sent has its line (each line is an event the bar counts)."""
    source = app.query_one(MessageLog).source
    sent = received = 0
    for i in range(len(source)):
        if source.channel(i) is Channel.STDERR:
            received += source.raw(i).count(b"] <- ")
        elif source.direction(i) is Direction.OUT and source.method(i) is not None:
            sent += 1
    return sent == received


async def steady(pilot: Pilot[Any]) -> None:
    """Wait for the server's stderr, and draw the screen as it now is."""
    app = pilot.app
    assert isinstance(app, InspectorApp)
    await wait_for(pilot, lambda: stderr_caught_up(app))
    for field in app.screen.query(Input):
        field.cursor_blink = False
    await pilot.pause(0.3)  # the in-flight and tasks views redraw on a timer
    await pilot.wait_for_scheduled_animations()
    await pilot.pause()


async def bottom_pane(pilot: Pilot[Any], key: str, tab: str) -> None:
    """Show a bottom-pane view with its key, from the catalog (where keys are commands)."""
    app = pilot.app
    await pilot.press("escape", key)
    tabs = app.query_one("#bottom-tabs", TabbedContent)
    await wait_for(pilot, lambda: tabs.active == tab)


async def call_as_task(pilot: Pilot[Any], tool: str, **arguments: Any) -> None:
    """Fill a tool's form and press its "Call as task" button."""
    app = pilot.app
    await select_item(pilot, "tools", tool)
    form = app.query_one(ItemPanel).form
    assert form is not None
    form.set_arguments(arguments)
    await pilot.click("#run-task")


def tasks_of(app: InspectorApp) -> list[TaskState]:
    manager = app.tasks_manager
    return list(manager.tasks.values()) if manager is not None else []


def test_elicitation_dialog(snap_compare: Snap, app: InspectorApp, clock: SteadyClock) -> None:
    async def run_before(pilot: Pilot[Any]) -> None:
        await wait_connected(pilot)
        await bottom_pane(pilot, "t", "tab-tasks")
        await select_item(pilot, "tools", "book_table")
        await pilot.press("ctrl+s")
        await wait_for(pilot, lambda: isinstance(app.screen, ElicitationScreen))
        await steady(pilot)

    assert snap_compare(app, terminal_size=SIZE, run_before=run_before)


def test_inflight_view(snap_compare: Snap, app: InspectorApp, clock: SteadyClock) -> None:
    async def run_before(pilot: Pilot[Any]) -> None:
        await wait_connected(pilot)
        session: Any = app.controller.session if app.controller else None
        # step 1 of 40 comes at 5 s; then the server is stopped (SIGSTOP), so step 2
        # cannot come before the picture however slow the machine (it came, in a CI run
        # that took 5 s from step 1 to the picture); the app's quit kills it stopped
        await select_item(pilot, "tools", "slow_count")
        form = app.query_one(ItemPanel).form
        assert form is not None
        form.set_arguments({"seconds": 200, "steps": 40})
        await pilot.press("ctrl+s")
        await wait_for(
            pilot,
            lambda: any(p.progress == 1 for p in session.pending.values()),
            timeout=30,
        )
        os.kill(session.transport.process.pid, signal.SIGSTOP)
        clock.now = clock.start + 5.2
        await bottom_pane(pilot, "f", "tab-inflight")
        await steady(pilot)

    assert snap_compare(app, terminal_size=SIZE, run_before=run_before)


def test_tasks_view(
    snap_compare: Snap, app: InspectorApp, clock: SteadyClock, monkeypatch: pytest.MonkeyPatch
) -> None:
    # no tasks/get polls (each one is events the bar counts): the demo's status
    # notifications tell each task's state, and the user fetches the finished one's result
    monkeypatch.setattr(tasks_module, "MIN_POLL", 3600.0)
    monkeypatch.setattr(tasks_module, "MAX_POLL", 3600.0)

    async def run_before(pilot: Pilot[Any]) -> None:
        await wait_connected(pilot)
        await call_as_task(pilot, "generate_report", topic="quarterly numbers", seconds=0.2)
        await wait_for(pilot, lambda: [t.status for t in tasks_of(app)] == ["completed"])
        # no progress for 300 s: it stays "working" with nothing moving
        await call_as_task(pilot, "slow_count", seconds=600, steps=2)
        await wait_for(pilot, lambda: [t.status for t in tasks_of(app)] == ["completed", "working"])
        await bottom_pane(pilot, "t", "tab-tasks")
        table = app.query_one("#tasks-table", DataTable)
        await wait_for(pilot, lambda: table.has_focus and table.cursor_row == 0)
        clock.now = clock.start + 3  # the view redraws its ages on a change, as this one:
        await pilot.press("f")  # tasks/result of the highlighted (finished) task
        await wait_for(pilot, lambda: tasks_of(app)[0].fetched)
        await steady(pilot)

    assert snap_compare(app, terminal_size=SIZE, run_before=run_before)


def test_roots_editor(snap_compare: Snap, app: InspectorApp, clock: SteadyClock) -> None:
    async def run_before(pilot: Pilot[Any]) -> None:
        await wait_connected(pilot)
        await bottom_pane(pilot, "t", "tab-tasks")
        await pilot.press("R")
        await wait_for(pilot, lambda: isinstance(app.screen, RootsScreen))
        await pilot.press(*"/srv/data", "tab", *"Data")
        await steady(pilot)

    assert snap_compare(app, terminal_size=SIZE, run_before=run_before)
