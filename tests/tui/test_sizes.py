"""Small and large terminals, through the real app against the bundled demo: at 90x25 and
80x24 every catalog tab, the sampling dialog's Send and Reject and every form field are
reachable on screen; at 220x55 the room goes to the panes."""

from __future__ import annotations

from typing import Any

import pytest
from textual.geometry import Region
from textual.widget import Widget
from textual.widgets import Button, Checkbox, TabbedContent, Tabs
from tui_helpers import screen_text, select_item, wait_connected, wait_for

from inspector.engine.responders import Responders, path_to_root
from inspector.target import demo_target
from inspector.tui.app import InspectorApp
from inspector.tui.interactive_setup import interactive_responders
from inspector.tui.screens.elicitation import ElicitationScreen
from inspector.tui.screens.roots import RootsScreen
from inspector.tui.screens.sampling import SamplingScreen
from inspector.tui.widgets.item_panel import ItemPanel
from inspector.tui.widgets.message_log import MessageLog
from inspector.tui.widgets.result_view import ResultView
from inspector.tui.widgets.schema_form import SchemaForm
from inspector.tui.widgets.tab_fit import TabLabel, choose

SMALL = [(90, 25), (80, 24)]


def interactive_app() -> InspectorApp:
    """The demo with the TUI answering the server's requests (the sampling dialog)."""
    responders = Responders()
    app = InspectorApp(demo_target(), responders=responders)
    interactive_responders(app, responders)
    return app


def on_screen(widget: Widget) -> bool:
    """All of ``widget`` is drawn: inside the screen and inside every scrolling ancestor's
    visible part (a widget scrolled out of its container is not reachable by eye)."""
    region = widget.region
    if not region.area or not widget.screen.region.contains_region(region):
        return False
    for ancestor in widget.ancestors:
        if isinstance(ancestor, Widget) and ancestor.is_scrollable:
            visible: Region = ancestor.scrollable_content_region
            if ancestor is not widget.screen and not visible.contains_region(region):
                return False
    return True


def test_labels_shorten_in_steps_until_they_fit() -> None:
    labels = [TabLabel("Tools", "Tools", "23"), TabLabel("Resources", "Res", "9")]
    assert choose(labels, 40) == (["Tools 23", "Resources 9"], False)
    assert choose(labels, 18) == (["Tools 23", "Res 9"], False)
    assert choose(labels, 15) == (["Tools 23", "Res 9"], True)
    assert choose(labels, 10) == (["Tools", "Res"], True)
    assert choose(labels, 3) == (["Tools", "Res"], True)  # nothing fits: the shortest
    # a filter on: its count (matching/total) is the last to go
    labels = [TabLabel("Tools", "Tools", "10/23", True), TabLabel("Resources", "Res", "9")]
    assert choose(labels, 18) == (["Tools 10/23", "Res 9"], True)
    assert choose(labels, 16) == (["Tools 10/23", "Res"], True)
    assert choose(labels, 10) == (["Tools", "Res"], True)


@pytest.mark.slow
@pytest.mark.parametrize("size", SMALL)
async def test_every_catalog_tab_is_on_screen(size: tuple[int, int]) -> None:
    app = InspectorApp(demo_target())
    async with app.run_test(size=size) as pilot:
        await wait_connected(pilot)
        tabs = app.query_one("#catalog-tabs", TabbedContent)
        await wait_for(pilot, lambda: tabs.tab_count == 5)
        row = tabs.query_one(Tabs)
        await pilot.pause()
        shown = []
        for tab in row.query("Tab"):
            assert row.region.contains_region(tab.region), (tab.label, tab.region, row.region)
            shown.append(str(tab.label))  # type: ignore[attr-defined]
        assert shown == ["Tools 23", "Res 9", "Tmpl 3", "Prm 4", "Srv"], shown
        top = screen_text(app).splitlines()[1]
        assert "Prm 4" in top and "Srv" in top, top
        await pilot.press("4")  # the short labels still open their lists
        await wait_for(pilot, lambda: tabs.active == "tab-prompts")
        await pilot.press("5")
        await wait_for(pilot, lambda: tabs.active == "tab-server")


@pytest.mark.slow
async def test_wide_catalog_names_its_tabs_in_full() -> None:
    app = InspectorApp(demo_target())
    async with app.run_test(size=(140, 40)) as pilot:
        await wait_connected(pilot)
        tabs = app.query_one("#catalog-tabs", TabbedContent)
        await wait_for(pilot, lambda: tabs.tab_count == 5)
        await pilot.pause()
        labels = [str(t.label) for t in tabs.query_one(Tabs).query("Tab")]  # type: ignore[attr-defined]
        assert labels == ["Tools 23", "Resources 9", "Templates 3", "Prompts 4", "Server"]


@pytest.mark.slow
@pytest.mark.parametrize("size", SMALL)
async def test_sampling_dialog_send_and_reject_are_on_screen(size: tuple[int, int]) -> None:
    app = interactive_app()
    async with app.run_test(size=size) as pilot:
        await wait_connected(pilot)
        await select_item(pilot, "tools", "ask_llm")
        await pilot.press(*"What is MCP?", "ctrl+s")
        await wait_for(pilot, lambda: isinstance(app.screen, SamplingScreen))
        screen = app.screen
        await pilot.pause()
        for name in ("send", "reject"):
            button = screen.query_one(f"#{name}", Button)
            assert on_screen(button), (name, button.region, screen.region)
        status = screen_text(app).splitlines()[0]
        assert "1 in flight" in status, status  # what waits stays in the status bar
        # the reply is typed and Send clicked where it is drawn
        reply: Any = screen.query_one("#reply")
        reply.load_text("A protocol.")
        await pilot.click("#send")
        view = app.query_one(ResultView)
        await wait_for(
            pilot, lambda: view.outcome is not None and "A protocol." in str(view.outcome.result)
        )


@pytest.mark.slow
async def test_sampling_dialog_reject_is_clickable_at_80x24() -> None:
    app = interactive_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_connected(pilot)
        await select_item(pilot, "tools", "ask_llm")
        await pilot.press(*"hi", "ctrl+s")
        await wait_for(pilot, lambda: isinstance(app.screen, SamplingScreen))
        await pilot.pause()
        await pilot.click("#reject")
        view = app.query_one(ResultView)
        await wait_for(pilot, lambda: view.outcome is not None)
        assert not isinstance(app.screen, SamplingScreen)
        assert "rejected" in str(view.outcome.result) + str(view.outcome.error)


@pytest.mark.slow
@pytest.mark.parametrize("size", [(80, 24), (100, 30), (140, 40)])
async def test_sampling_dialog_checkbox_label_is_read_whole(size: tuple[int, int]) -> None:
    """The "Always answer" checkbox's label is drawn whole (wrapped when the dialog is
    narrow, never cut at the dialog's edge), and Space still ticks it."""
    app = interactive_app()
    async with app.run_test(size=size) as pilot:
        await wait_connected(pilot)
        await select_item(pilot, "tools", "ask_llm")
        await pilot.press(*"hi", "ctrl+s")
        await wait_for(pilot, lambda: isinstance(app.screen, SamplingScreen))
        screen = app.screen
        await pilot.pause()
        box = screen.query_one("#remember", Checkbox)
        assert on_screen(box), (box.region, screen.region)
        region = box.content_region
        rows = screen_text(app).splitlines()[region.y : region.bottom]
        drawn = " ".join(row[region.x : region.right].strip() for row in rows)
        label = str(box.label)
        assert " ".join(label.split()) in " ".join(drawn.split()), (drawn, label)
        box.focus()
        await pilot.press("space")
        assert box.value


@pytest.mark.slow
@pytest.mark.parametrize("size", SMALL)
async def test_form_fields_are_reached_by_tab_and_scrolled_into_view(
    size: tuple[int, int],
) -> None:
    """schedule_event's form is taller than the pane: Tab walks every field, and the
    focused one is always drawn (the form scrolls to it)."""
    app = InspectorApp(demo_target())
    async with app.run_test(size=size) as pilot:
        await wait_connected(pilot)
        await select_item(pilot, "tools", "schedule_event")
        form = app.query_one(ItemPanel).form
        assert form is not None
        await wait_for(pilot, lambda: form.field(("title",)) is not None)
        box = app.query_one("#item-form-box")
        await pilot.pause()
        assert box.size.height >= 8, box.size  # the form has room to work in
        seen: list[str] = []
        for _ in range(60):
            focused = app.focused
            assert focused is not None
            if form not in focused.ancestors:
                break  # Tab went past the last field (to the Call button)
            await pilot.pause()
            assert on_screen(focused), (focused, focused.region, seen[-3:])
            seen.append(str(form.focused_path()))
            await pilot.press("tab")
        paths = set(seen)
        for name in ("title", "when", "location", "reminders", "attendees", "priority"):
            assert any(name in p for p in paths), (name, sorted(paths))
        # the check above can fail: the last field, scrolled back out of view, is not drawn
        await pilot.press("shift+tab")
        last = app.focused
        assert isinstance(last, Widget) and form in last.ancestors and on_screen(last)
        scroller = next(a for a in last.ancestors if isinstance(a, Widget) and a.max_scroll_y > 0)
        scroller.scroll_home(animate=False)
        await pilot.pause()
        assert not on_screen(last)
        assert isinstance(form, SchemaForm)


@pytest.mark.slow
async def test_short_terminal_gives_the_form_the_rows_the_log_had() -> None:
    app = InspectorApp(demo_target())
    async with app.run_test(size=(90, 25)) as pilot:
        await wait_connected(pilot)
        bottom = app.query_one("#bottom")
        assert bottom.outer_size.height <= 7  # the log keeps five rows
        log = app.query_one(MessageLog)
        assert log.lines.size.height >= 4
        await pilot.press("g")  # in the log, the log gets the rows
        await wait_for(pilot, lambda: log.lines.has_focus and bottom.outer_size.height >= 12)
        await pilot.press("escape")  # back in the catalog, the form's pane gets them back
        await wait_for(pilot, lambda: bottom.outer_size.height <= 7)
        await pilot.press("l")  # l still maximises it
        await wait_for(pilot, lambda: bottom.outer_size.height > 15)


@pytest.mark.slow
async def test_a_large_terminal_uses_its_room() -> None:
    app = InspectorApp(demo_target())
    async with app.run_test(size=(220, 55)) as pilot:
        await wait_connected(pilot)
        await select_item(pilot, "tools", "schedule_event")
        await pilot.pause()
        log = app.query_one(MessageLog)
        assert log.lines.size.height >= 18  # more log rows
        left, work = app.query_one("#left"), app.query_one("#work")
        assert work.size.width >= 130 and left.size.width <= 80, (left.size, work.size)
        form = app.query_one("#item-form-box")
        assert form.size.height >= 18  # the whole form of schedule_event, nearly


@pytest.mark.slow
async def test_elicitation_dialog_fields_and_buttons_are_reachable_at_80x24() -> None:
    """book_table's form is taller than the dialog: every field is reached by Tab and
    drawn, the buttons stay on screen, and Accept sends the defaults."""
    app = interactive_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_connected(pilot)
        await select_item(pilot, "tools", "book_table")
        await pilot.press("ctrl+s")
        await wait_for(pilot, lambda: isinstance(app.screen, ElicitationScreen))
        screen = app.screen
        await pilot.pause()
        for name in ("cancel", "decline", "accept"):
            assert on_screen(screen.query_one(f"#{name}", Button)), name
        form = screen.query_one(SchemaForm)
        seen: set[str] = set()
        for _ in range(40):
            focused = app.focused
            if focused is None or form not in focused.ancestors:
                break
            await pilot.pause()
            assert on_screen(focused), (focused, focused.region)
            seen.add(str(form.focused_path()))
            await pilot.press("tab")
        assert len(seen) >= 5, seen
        await pilot.click("#accept")
        view = app.query_one(ResultView)
        await wait_for(pilot, lambda: view.outcome is not None)
        assert "Booked a table" in str(view.outcome.result)


@pytest.mark.slow
async def test_roots_dialog_close_stays_on_screen_with_many_roots() -> None:
    app = interactive_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_connected(pilot)
        assert app.bridge is not None
        app.bridge.roots.roots.extend(path_to_root(f"/tmp/root-{i}") for i in range(30))
        await pilot.press("R")
        await wait_for(pilot, lambda: isinstance(app.screen, RootsScreen))
        await pilot.pause()
        for name in ("add", "close"):
            assert on_screen(app.screen.query_one(f"#{name}", Button)), name
        await pilot.click("#close")
        await wait_for(pilot, lambda: not isinstance(app.screen, RootsScreen))


@pytest.mark.slow
@pytest.mark.parametrize("size", [(80, 24), (100, 30), (140, 40)])
async def test_server_tab_takes_the_width_when_narrow(size: tuple[int, int]) -> None:
    """5 opens the Server tab: its JSON gets the whole width (the work pane steps aside),
    so a line of the server info is read on one row; 1 brings the work pane back."""
    app = InspectorApp(demo_target())
    async with app.run_test(size=size) as pilot:
        await wait_connected(pilot)
        left, work = app.query_one("#left"), app.query_one("#work")
        narrow_left = left.size.width
        await pilot.press("5")
        tabs = app.query_one("#catalog-tabs", TabbedContent)
        await wait_for(pilot, lambda: tabs.active == "tab-server")
        await pilot.pause()
        assert not work.display and left.size.width >= size[0] - 1, (left.size, size)
        rows = screen_text(app).splitlines()
        assert any('"title": "mcp-inspect demo server",' in row for row in rows), rows
        assert any('"description": "Exercises every part of the Model' in r for r in rows), rows
        await pilot.press("1")
        await wait_for(pilot, lambda: tabs.active == "tab-tools")
        await pilot.pause()
        assert work.display and left.size.width == narrow_left


@pytest.mark.slow
async def test_server_tab_keeps_the_work_pane_when_wide() -> None:
    app = InspectorApp(demo_target())
    async with app.run_test(size=(200, 50)) as pilot:
        await wait_connected(pilot)
        await pilot.press("5")
        tabs = app.query_one("#catalog-tabs", TabbedContent)
        await wait_for(pilot, lambda: tabs.active == "tab-server")
        await pilot.pause()
        assert app.query_one("#work").display
        assert app.query_one("#left").size.width >= 70
