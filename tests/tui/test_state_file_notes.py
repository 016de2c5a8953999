"""A damaged state file (eras.json) is said on stderr on the command line; the TUI's
screen hides stderr, so there it is a toast and a note in the log."""

from __future__ import annotations

from pathlib import Path

import pytest
from tui_helpers import wait_connected, wait_for

from inspector.engine.responders import Responders
from inspector.record.state import StateFileError, listen, say_once
from inspector.target import demo_target
from inspector.tui.app import InspectorApp
from inspector.tui.widgets.message_log import MessageLog

SIZE = (150, 45)


def notified(app: InspectorApp, text: str) -> bool:
    return any(text in str(n.message) for n in app._notifications)


def log_rows(app: InspectorApp) -> list[str]:
    log = app.query_one(MessageLog)
    return [log.lines.summary(i).text for i in range(len(log.source))]


@pytest.mark.slow
async def test_a_damaged_eras_file_is_said_in_the_tui(private_state: Path) -> None:
    eras = private_state / "mcp-inspect" / "eras.json"
    eras.parent.mkdir(parents=True)
    eras.write_text("{not json", "utf-8")
    app = InspectorApp(demo_target(), responders=Responders())
    async with app.run_test(size=SIZE) as pilot:
        await wait_connected(pilot)
        await wait_for(pilot, lambda: notified(app, "eras.json: damaged"))
        # the toast goes; the log keeps it (and the session file)
        await wait_for(pilot, lambda: any("eras.json: damaged" in r for r in log_rows(app)))


def test_a_listener_hears_each_problem_once_until_it_stops() -> None:
    heard: list[str] = []
    stop = listen(heard.append)
    problem = StateFileError("/x/eras.json: damaged (not a JSON object)")
    say_once(problem, "the era is detected again")
    say_once(problem, "the era is detected again")
    stop()
    say_once(StateFileError("/x/oauth.json: cannot be read"), "tokens in memory only")
    assert heard == ["/x/eras.json: damaged (not a JSON object); the era is detected again"]
