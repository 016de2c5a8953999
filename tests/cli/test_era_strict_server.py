"""A strict stdio server that ends on the era probe (``server/discover``: a method it does
not know) is started again and opened with ``initialize`` in the same command, the log
saying so: the first call in a fresh state folder (CI) works, on the command line and in
the TUI. The server: ``servers/stdio_strict.py`` (exits, or closes its stdout)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from cli_inprocess import cli_inprocess
from paths import SERVERS
from tui_helpers import wait_for

from inspector.connection import Connection
from inspector.record.reader import read_session
from inspector.target import Target
from inspector.tui.app import InspectorApp
from inspector.tui.widgets.catalog import Catalog
from inspector.wire.events import Direction

STRICT = str(SERVERS / "stdio_strict.py")


def starts(count: Path) -> int:
    return len(count.read_text().splitlines())


@pytest.mark.parametrize("mode", ["exit", "close"])
def test_the_cli_starts_a_strict_server_again_with_initialize(tmp_path: Path, mode: str) -> None:
    count, record = tmp_path / "starts", tmp_path / "s.jsonl"
    done = cli_inprocess(
        "--cli", "--method", "tools/call", "--tool-name", "add", "--tool-arg", "a=2",
        "--tool-arg", "b=40", "--record", str(record), "--", sys.executable, STRICT, mode,
        str(count),
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert '"text": "42"' in done.stdout
    assert starts(count) == 2
    events = read_session(record).events
    sent = [e.message.get("method") for e in events if e.direction is Direction.OUT]
    assert sent[0] == "server/discover" and "initialize" in sent and "tools/call" in sent
    notes = [e.text() for e in events if e.direction is Direction.LOCAL]
    assert any("started it again, opening with initialize" in n for n in notes), notes
    seqs = [e.seq for e in events]
    assert seqs == sorted(set(seqs))  # one numbering across both starts

    again = cli_inprocess(
        "--cli", "--method", "tools/list", "--", sys.executable, STRICT, mode, str(count)
    )  # fmt: skip
    assert again.returncode == 0
    assert starts(count) == 3  # remembered: initialize at once, one start


@pytest.mark.slow
async def test_the_tui_starts_a_strict_server_again_and_connects(tmp_path: Path) -> None:
    count = tmp_path / "starts"
    app = InspectorApp(Target(command=sys.executable, args=[STRICT, "exit", str(count)]))
    async with app.run_test(size=(120, 40)) as pilot:
        catalog = app.query_one(Catalog)
        await wait_for(
            pilot,
            lambda: (
                app.controller is not None
                and app.controller.connected
                and bool(catalog.items["tools"])
            ),
        )
        assert starts(count) == 2
        toasts = " ".join(f"{n.title} {n.message}" for n in app._notifications)
        assert "connection lost" not in toasts and "connection failed" not in toasts
        events = app.state.events

        def notes() -> list[str]:
            return [events.event(i).text() for i in range(len(events))]

        # the log takes its events in batches at the display's tick: wait for the note
        restarted = "started it again, opening with initialize"
        await wait_for(pilot, lambda: any(restarted in n for n in notes()))
        assert sum("connecting:" in n for n in notes()) == 2


async def test_the_headless_connection_starts_a_strict_server_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """inspector.connection: load, mcp-inspect test and the bridge open sessions there."""
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    count = tmp_path / "starts"
    target = Target(command=sys.executable, args=[STRICT, "exit", str(count)])
    async with Connection(target, timeout=20) as session:
        result = await session.request("tools/call", {"name": "add", "arguments": {"a": 1, "b": 2}})
        assert result["content"][0]["text"] == "3"
    assert starts(count) == 2
