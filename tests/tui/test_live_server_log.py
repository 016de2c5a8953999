"""The server log view: logging/setLevel from the UI, notifications/message shown (Pilot)."""

from __future__ import annotations

import os
import re
from datetime import datetime

from textual.widgets import RichLog, Select, Static
from tui_helpers import focus, wait_for

from inspector.engine.client import McpClient
from inspector.live.state import LiveState
from inspector.tui.widgets.server_log import ServerLogView, format_entry
from inspector.wire.events import WireEvent
from tests.everything import LiveHost, demo_session, everything_session, shown_text

SHOTS = os.environ.get("INSPECT_SHOTS")
STAMP = re.compile(r"\d\d:\d\d:\d\d\.\d{3} ")


def _lines(view: ServerLogView) -> list[str]:
    """One string per log entry (wrapped continuation rows joined back on)."""
    entries: list[str] = []
    for strip in view.query_one("#server-log", RichLog).lines:
        if STAMP.match(strip.text) or not entries:
            entries.append(strip.text.rstrip())
        else:
            entries[-1] += strip.text.rstrip()
    return entries


async def test_demo_level_from_the_ui_and_coloured_lines() -> None:
    state = LiveState()
    view = ServerLogView(state)
    app = LiveHost(state, view)
    events: list[WireEvent] = []
    async with app.run_test(size=(120, 24)) as pilot, demo_session() as session:
        session.add_observer(events.append)
        state.attach(session)
        client = McpClient(session)
        select = view.query_one("#level", Select)
        select.value = "debug"
        await wait_for(
            pilot,
            lambda: "level set to debug" in shown_text(view.query_one("#level-status", Static)),
        )
        await client.call_tool("log_burst", {"message": "[red]boom[/red]\x1b[2J"})
        await wait_for(pilot, lambda: len(_lines(view)) >= 8)
        lines = _lines(view)
        assert [line.split()[1] for line in lines[:8]] == [
            "DEBUG",
            "INFO",
            "NOTICE",
            "WARNING",
            "ERROR",
            "CRITICAL",
            "ALERT",
            "EMERGENCY",
        ]
        assert "demo.burst" in lines[0]
        # markup shown literally; in JSON data the escape is a JSON escape, never emitted
        assert "[red]boom[/red]\\u001b[2J" in lines[0]
        if SHOTS:
            app.save_screenshot(filename="server-log.svg", path=SHOTS)
        select.value = "error"
        await wait_for(
            pilot,
            lambda: "level set to error" in shown_text(view.query_one("#level-status", Static)),
        )
        await client.call_tool("log_burst", {})
        await wait_for(pilot, lambda: len(_lines(view)) >= 12)
        assert [line.split()[1] for line in _lines(view)[8:]] == [
            "ERROR",
            "CRITICAL",
            "ALERT",
            "EMERGENCY",
        ]
        await focus(pilot, view.query_one("#server-log", RichLog))
        await pilot.press("ctrl+k")
        await pilot.pause()
        assert _lines(view) == []
    sent = [
        e.message["params"]["level"]
        for e in events
        if e.direction.name == "OUT"
        and isinstance(e.message, dict)
        and e.message.get("method") == "logging/setLevel"
    ]
    assert sent == ["debug", "error"]
    assert state.server_log.counts["error"] == 2 and state.server_log.count == 12


async def test_everything_refused_level_is_reported() -> None:
    state = LiveState()
    view = ServerLogView(state)
    app = LiveHost(state, view)
    async with app.run_test(size=(120, 24)) as pilot, everything_session() as session:
        state.attach(session)
        assert await view.set_level("warning")
        # A level the spec does not have: the server's refusal is shown, not raised.
        assert not await view.set_level("verbose")
        status = shown_text(view.query_one("#level-status", Static))
        assert "refused level verbose" in status
        await pilot.pause()


async def test_server_without_logging_capability_is_said_so() -> None:
    state = LiveState()
    view = ServerLogView(state)
    app = LiveHost(state, view)
    async with app.run_test(size=(120, 24)) as pilot, demo_session() as session:
        session.server_capabilities.pop("logging")
        state.attach(session)
        await wait_for(
            pilot,
            lambda: (
                "does not declare logging" in shown_text(view.query_one("#level-status", Static))
            ),
        )


def test_format_entry_is_literal() -> None:
    when = datetime(2026, 1, 2, 3, 4, 5, 678000)
    line = format_entry({"level": "warning", "logger": "db[x]", "data": {"k": "[b]v\x07"}}, when)
    assert line.plain == '03:04:05.678 WARNING   db[x] {"k": "[b]v\\u0007"}'
    assert format_entry({"level": "info", "data": "a\x07"}).plain.endswith("a␇")
    assert format_entry({"level": "info", "data": "x" * 5000}).plain.endswith("1,000 more chars")
