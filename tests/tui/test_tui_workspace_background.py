"""A workspace's background news is its own server's (real app, real keys): a task
finished and a resource updated on a server not shown land in that server's panes, not
the shown one's; a server that exits at once says its stderr line in the server list."""

from __future__ import annotations

import sys
from typing import Any

import pytest
from test_tui_workspace import choose, states, tools
from tui_helpers import plain, wait_for

from inspector.demo.resources import COUNTER_URI
from inspector.target import Target, demo_target
from inspector.tui import messages
from inspector.tui.app import InspectorApp
from inspector.tui.mode import Live
from inspector.tui.server_screen import ViewRelay
from inspector.tui.widgets.result_view import render_outcome
from inspector.wire.transport import ConnectionLost
from inspector.workspace.status import State


def outcome_text(view: Any) -> str:
    outcome = view.main.result_view.outcome
    return "" if outcome is None else plain(render_outcome(outcome))


async def read(pilot: Any, app: InspectorApp, uri: str) -> None:
    """The shown server's resource ``uri`` read from its list (Enter reads it)."""
    catalog = app.main.catalog
    catalog.action_tab("resources")
    options = app.main.query_one("#list-resources")
    index = next(i for i, r in enumerate(catalog.items["resources"]) if r.get("uri") == uri)
    options.highlighted = index  # type: ignore[attr-defined]
    await wait_for(pilot, lambda: options.has_focus)
    await pilot.press("enter")


def two_demos() -> InspectorApp:
    return InspectorApp(Live(demo_target()), workspace=[("demo2", demo_target(), None)])


@pytest.mark.slow
async def test_a_task_finished_on_a_server_not_shown_is_shown_on_its_own_screen() -> None:
    app = two_demos()
    async with app.run_test(size=(120, 35)) as pilot:
        await wait_for(
            pilot, lambda: all(s is State.CONNECTED for s in states(app).values()), timeout=60
        )
        await choose(pilot, 1)  # demo2's screen composed once, then the demo shown again
        await wait_for(pilot, lambda: "echo" in tools(app))
        await choose(pilot, 0)
        demo, demo2 = app.views
        app.run_worker(
            demo2.server.state.run_task("generate_report", {"topic": "far", "seconds": 0.2}),
            exit_on_error=False,
        )
        await wait_for(pilot, lambda: "generate_report" in outcome_text(demo2), timeout=30)
        assert "generate_report" not in outcome_text(demo)
        assert app.view is demo


@pytest.mark.slow
async def test_an_updated_resource_is_re_read_from_the_server_it_came_from() -> None:
    app = two_demos()
    async with app.run_test(size=(120, 35)) as pilot:
        await wait_for(
            pilot, lambda: all(s is State.CONNECTED for s in states(app).values()), timeout=60
        )
        await choose(pilot, 1)
        await wait_for(pilot, lambda: COUNTER_URI in str(app.main.catalog.items["resources"]))
        # demo2: the counter read, re-read automatically when updated (U)
        demo, demo2 = app.views
        await read(pilot, app, COUNTER_URI)
        await wait_for(pilot, lambda: "counter" in outcome_text(demo2))
        await pilot.press("U")
        assert demo2.calls.auto_reread
        first = demo2.main.result_view.outcome
        await choose(pilot, 0)
        demo_outcome = demo.main.result_view.outcome
        session = demo2.server.session
        assert session is not None
        app.run_worker(
            session.request("resources/subscribe", {"uri": COUNTER_URI}), exit_on_error=False
        )
        # the demo ticks the counter every 2 s while subscribed: demo2 reads it again
        await wait_for(pilot, lambda: demo2.main.result_view.outcome is not first, timeout=30)
        assert demo.main.result_view.outcome is demo_outcome
        assert app.view is demo


BAD = "import sys; sys.stderr.write('boom: API_KEY is not set\\n'); sys.exit(2)"


@pytest.mark.slow
async def test_a_server_that_exits_at_once_says_its_stderr_line_in_the_list() -> None:
    """Several such servers start together: each one's write fails as it exits (the
    race every one of them lost on a busy machine), and the row still says why."""
    bad = [(f"bad{n}", Target(command=sys.executable, args=["-c", BAD]), None) for n in range(4)]
    app = InspectorApp(Live(demo_target()), workspace=bad)
    async with app.run_test(size=(120, 35)) as pilot:
        await wait_for(
            pilot, lambda: all(v.status.state is State.FAILED for v in app.views[1:]), timeout=60
        )
        for view in app.views[1:]:
            label = view.status.row()[3]
            assert "boom: API_KEY is not set" in label, label
            assert "could not write" not in label
            assert "exit code 2" in label


async def test_our_close_after_a_failure_keeps_the_failures_reason() -> None:
    """A server that exits at once fails the connect (its exit code and stderr line);
    the inspector then closes the transport, and that expected loss, when it comes after
    (CI's order under load), must not turn the row into "server stopped"."""
    bad = [("bad", Target(command=sys.executable, args=["-c", BAD]), None)]
    app = InspectorApp(Live(demo_target()), workspace=bad)
    async with app.run_test(size=(120, 35)) as pilot:
        view = app.views[1]
        await wait_for(pilot, lambda: view.status.state is State.FAILED, timeout=60)
        relay = ViewRelay(app, view)  # where its controller posts
        relay.post_message(
            messages.Disconnected(ConnectionLost("server stopped", exit_code=2, expected=True))
        )
        label = view.status.row()[3]
        assert "boom: API_KEY is not set" in label and "server stopped" not in label, label
        relay.post_message(messages.Disconnected(ConnectionLost("the server exited", 1)))
        assert view.status.row()[3] == "failed: the server exited; exit code 1"
