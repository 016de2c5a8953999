"""Replaying a recorded session in the TUI, offline (Pilot)."""

from __future__ import annotations

from pathlib import Path

import pytest
from cli_runner import cli
from textual.widgets import Button, Select, Static, TabbedContent
from tui_helpers import footer_keys, screen_text, view_text, wait_for

from inspector.record.indexed import IndexedSessionFile
from inspector.tui.app import InspectorApp
from inspector.tui.widgets.catalog import Catalog
from inspector.tui.widgets.item_panel import ItemPanel
from inspector.tui.widgets.message_detail import MessageDetail
from inspector.tui.widgets.message_log import MessageLog

pytestmark = pytest.mark.slow  # end to end: see pyproject's markers


def record(path: Path, *args: str) -> None:
    done = cli("--cli", "--record", str(path), *args)
    assert done.returncode == 0, done.stderr


@pytest.fixture(scope="module")
def tools_listed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A session that listed the tools, recorded once for the tests that only read it
    (each recording is a ``--cli`` run with its server)."""
    path = tmp_path_factory.mktemp("replay") / "s.jsonl"
    record(path, "--method", "tools/list")
    return path


async def test_replay_rebuilds_catalog_steps_and_refuses_calls(tools_listed: Path) -> None:
    path = tools_listed
    source = IndexedSessionFile(path)
    app = InspectorApp(None, source=source, replay_title=path.name)
    async with app.run_test(size=(150, 45)) as pilot:
        await wait_for(pilot, lambda: len(app.query_one(Catalog).items["tools"]) == 23)
        assert app.query_one("#status").state == "replay"
        assert "mcp-inspect demo server" in app.query_one("#status").server
        log = app.query_one(MessageLog)
        await wait_for(pilot, lambda: log.shown == len(source) > 10)
        # step through events with the detail open: it follows the cursor
        await pilot.press("g")
        await wait_for(pilot, lambda: log.lines.has_focus)
        await pilot.press("home", "enter")
        detail = app.query_one(MessageDetail)
        await wait_for(pilot, lambda: detail.display and detail.index == 0)
        await pilot.press("down", "down")
        await wait_for(pilot, lambda: detail.index == 2)
        # calling is disabled with a hint
        catalog = app.query_one(Catalog)
        catalog.action_tab("tools")
        await wait_for(pilot, lambda: app.focused is not None and app.focused.id == "list-tools")
        await pilot.press("enter")
        panel = app.query_one(ItemPanel)
        await wait_for(pilot, lambda: panel.item is not None)
        assert panel.read_only
        await pilot.press("ctrl+s")
        await wait_for(
            pilot, lambda: any("calls are disabled" in str(n.message) for n in app._notifications)
        )
        assert not [i for i in range(len(source)) if source.method(i) == "tools/call"]
    source.close()


async def test_torn_file_opens_with_a_notice(tmp_path: Path, tools_listed: Path) -> None:
    path = tmp_path / "torn.jsonl"
    data = tools_listed.read_bytes()
    path.write_bytes(data[: len(data) - 40])  # cut the last line in the middle
    source = IndexedSessionFile(path)
    app = InspectorApp(None, source=source, replay_title=path.name)
    async with app.run_test(size=(150, 45)) as pilot:
        await wait_for(pilot, lambda: any("torn" in str(n.message) for n in app._notifications))
        assert len(app.query_one(MessageLog).source) > 10
    source.close()


async def test_lists_never_recorded_say_so(tools_listed: Path) -> None:
    """Only tools/list was recorded: the other tabs say "not recorded", not "(none)"."""
    path = tools_listed
    source = IndexedSessionFile(path)
    app = InspectorApp(None, source=source, replay_title=path.name)
    async with app.run_test(size=(150, 45)) as pilot:
        catalog = app.query_one(Catalog)
        await wait_for(
            pilot,
            lambda: (
                len(catalog.items["tools"]) == 23 and app.query_one(MessageLog).shown == len(source)
            ),
        )
        tabs = catalog.query_one(TabbedContent)
        await wait_for(pilot, lambda: str(tabs.get_tab("tab-prompts").label) == "Prompts –")
        assert str(tabs.get_tab("tab-tools").label) == "Tools 23"
        for kind in ("resources", "resource_templates", "prompts"):
            assert (catalog.unknown[kind] or "").startswith(
                "not recorded: this session never listed"
            )
        await pilot.press("4")
        await wait_for(
            pilot, lambda: "(not recorded: this session never listed prompts)" in screen_text(app)
        )
        assert "(none)" not in screen_text(app)
    source.close()


async def test_r_in_a_replay_says_there_is_no_server(tools_listed: Path) -> None:
    """``r`` is not in a replay's footer, but a user who presses it from habit is told
    why nothing happens, and the replay stays as it was."""
    path = tools_listed
    source = IndexedSessionFile(path)
    app = InspectorApp(None, source=source, replay_title=path.name)
    async with app.run_test(size=(150, 45)) as pilot:
        log = app.query_one(MessageLog)
        await wait_for(pilot, lambda: log.shown == len(source) > 10)
        await pilot.press("g")
        await wait_for(pilot, lambda: log.lines.has_focus)
        await pilot.press("r")
        await wait_for(
            pilot,
            lambda: any("no server to reconnect to" in str(n.message) for n in app._notifications),
        )
        assert app.query_one("#status").state == "replay"
        assert log.shown == len(source)
    source.close()


async def test_v_shows_the_detail_raw_from_the_log_and_in_the_detail(tools_listed: Path) -> None:
    """The detail's raw/pretty is ``v``, from the log while the detail shows (as ``p``
    ``c`` ``s``) and in the detail: it was ``r``, which in the log is Reconnect, so it
    worked only once Tab had moved the focus over. ``r`` stays Reconnect in both."""
    path = tools_listed
    source = IndexedSessionFile(path)
    app = InspectorApp(None, source=source, replay_title=path.name)
    async with app.run_test(size=(150, 45)) as pilot:
        log = app.query_one(MessageLog)
        await wait_for(pilot, lambda: log.shown == len(source) > 10)
        await pilot.press("g")
        await wait_for(pilot, lambda: log.lines.has_focus)
        await pilot.press("home", "enter")
        detail = app.query_one(MessageDetail)
        await wait_for(pilot, lambda: detail.display and detail.event is not None)
        await pilot.pause()
        assert "v Raw/pretty" in footer_keys(app)
        await pilot.press("v")  # from the log, the focus staying there
        await wait_for(pilot, lambda: detail.raw_mode)
        assert log.lines.has_focus
        for _ in range(5):  # on to a frame with a message: its raw view's hint names v
            if detail.event is not None and detail.event.message is not None:
                break
            await pilot.press("down")
            await pilot.pause()
        if not detail.raw_mode:  # a new row shows pretty again
            await pilot.press("v")
            await wait_for(pilot, lambda: detail.raw_mode)
        assert "raw bytes (v: pretty)" in view_text(detail.view)
        await pilot.press("v")
        await wait_for(pilot, lambda: not detail.raw_mode)
        await pilot.press("r")  # still Reconnect: in a replay, it says there is no server
        await wait_for(
            pilot,
            lambda: any("no server to reconnect to" in str(n.message) for n in app._notifications),
        )
        assert not detail.raw_mode
        for _ in range(12):  # Tab over to the detail, as a user does
            if detail.view.has_focus:
                break
            await pilot.press("tab")
        assert detail.view.has_focus
        await pilot.pause()
        assert "v Raw/pretty" in footer_keys(app)
        await pilot.press("v")
        await wait_for(pilot, lambda: detail.raw_mode)
    source.close()


async def test_a_replay_s_footer_shows_no_key_that_needs_a_server(tools_listed: Path) -> None:
    """A replay cannot send: Send (ctrl+s) was in its footer in the catalog and in a form
    (and in the disabled button's label), and the Tasks and In flight tabs offered
    refresh, cancel and fetch. None of them is shown; ctrl+s still says why nothing is
    sent."""
    path = tools_listed
    source = IndexedSessionFile(path)
    app = InspectorApp(None, source=source, replay_title=path.name)
    async with app.run_test(size=(150, 45)) as pilot:
        await wait_for(pilot, lambda: len(app.query_one(Catalog).items["tools"]) == 23)
        await wait_for(pilot, lambda: app.focused is not None and app.focused.id == "list-tools")
        await pilot.pause()
        shown = footer_keys(app)
        assert "slash Filter list" in shown and "question_mark Help" in shown
        assert not [k for k in shown if "Send" in k or "Reconnect" in k]
        # the palette lists the binding that applies (the replay's), once
        titles = [c.title for c in app.get_system_commands(app.screen)]
        assert titles.count("Send") == 1 and titles.count("Reconnect") == 1
        await pilot.press("enter")  # the tool's form
        panel = app.query_one(ItemPanel)
        await wait_for(pilot, lambda: panel.form is not None and panel.form.has_focus_within)
        await pilot.pause()
        shown = footer_keys(app)
        assert "ctrl+j JSON/form" in shown
        assert not [k for k in shown if "Send" in k]
        run = app.query_one("#run", Button)  # disabled, and no key in its label either
        assert run.disabled and str(run.label) == "Call"
        await pilot.press("ctrl+s")
        await wait_for(
            pilot, lambda: any("calls are disabled" in str(n.message) for n in app._notifications)
        )
        await pilot.press("escape", "t")  # the Tasks tab
        await wait_for(pilot, lambda: app.focused is not None and app.focused.id == "tasks-table")
        await pilot.pause()
        shown = footer_keys(app)
        assert "q Quit" in shown
        assert not [k for k in shown if "Refresh" in k or "Cancel" in k or "Fetch" in k]
        await pilot.press("f")  # the In flight tab
        await wait_for(
            pilot, lambda: app.focused is not None and app.focused.id == "inflight-table"
        )
        await pilot.pause()
        shown = footer_keys(app)
        assert "q Quit" in shown
        assert not [k for k in shown if "Cancel" in k]
    source.close()


async def test_a_replay_s_server_log_level_picker_cannot_be_used(tools_listed: Path) -> None:
    """The Server log tab's level picker sends logging/setLevel: in a replay it opened,
    took a level and showed it as chosen, then said "not connected". It is disabled there
    (as the form's Call button is), and its status line says why."""
    path = tools_listed
    source = IndexedSessionFile(path)
    app = InspectorApp(None, source=source, replay_title=path.name)
    async with app.run_test(size=(150, 45)) as pilot:
        await wait_for(pilot, lambda: len(app.query_one(Catalog).items["tools"]) == 23)
        await wait_for(pilot, lambda: app.focused is not None and app.focused.id == "list-tools")
        await pilot.press("o")  # the Server log tab
        tabs = app.query_one("#bottom-tabs", TabbedContent)
        await wait_for(pilot, lambda: tabs.active == "tab-serverlog")
        await pilot.pause()
        level = app.query_one("#level", Select)
        assert level.disabled and not level.has_focus
        assert app.focused is not None and app.focused.id == "server-log"
        assert "replay" in str(app.query_one("#level-status", Static).render())
        # a user tabbing back to it and picking a level: nothing is chosen
        await pilot.press("shift+tab", "enter", "down", "enter")
        await pilot.click("#level")
        await pilot.pause()
        assert level.is_blank() and not level.expanded
        assert "not connected" not in str(app.query_one("#level-status", Static).render())
    source.close()


async def test_quitting_a_replay_does_not_ask_about_text_typed_in_its_forms(
    tools_listed: Path,
) -> None:
    """A replay's form takes typing (to try a schema) but can never be sent: ``q`` asked
    "Quit? It would lose what you typed in Echo, never sent". It quits at once."""
    source = IndexedSessionFile(tools_listed)
    app = InspectorApp(None, source=source, replay_title=tools_listed.name)
    async with app.run_test(size=(150, 45)) as pilot:
        await wait_for(pilot, lambda: len(app.query_one(Catalog).items["tools"]) == 23)
        await wait_for(pilot, lambda: app.focused is not None and app.focused.id == "list-tools")
        await pilot.press("enter")  # Echo's form, the focus in its first field
        panel = app.query_one(ItemPanel)
        await wait_for(pilot, lambda: panel.form is not None and panel.form.has_focus_within)
        await pilot.press("h", "i")
        await wait_for(pilot, lambda: panel.form is not None and panel.form.edited)
        await pilot.press("escape", "q")
        await wait_for(pilot, lambda: app.quit_reconnect.quitting)
        assert app.screen is app.screen_stack[0]  # no question asked
    source.close()
