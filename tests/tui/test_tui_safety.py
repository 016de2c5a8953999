"""Server text is data: hostile strings through every pane stay literal and inert."""

from __future__ import annotations

import json
import sys

import pytest
from paths import SERVERS
from tui_helpers import select_item, wait_for

from inspector.target import Target
from inspector.tui.app import InspectorApp
from inspector.tui.widgets.catalog import Catalog
from inspector.tui.widgets.completion_menu import CompletionMenu
from inspector.tui.widgets.item_panel import ItemPanel
from inspector.tui.widgets.message_detail import MessageDetail
from inspector.tui.widgets.message_log import MessageLog
from inspector.tui.widgets.result_view import ResultView

pytestmark = pytest.mark.slow  # end to end: see pyproject's markers

EVIL = "[bold red]MARKUP[/] \x1b[2J\x1b]0;pwned\x07 \u202eevil\u202c"  # the server's


def strips_text(app: InspectorApp) -> str:
    """Every segment the compositor would send to the terminal, joined."""
    screen = app.screen
    return "".join(strip.text for strip in screen._compositor.render_strips())


async def test_hostile_strings_stay_literal_in_every_pane() -> None:
    target = Target(
        command=sys.executable, args=[str(SERVERS / "stdio_hostile.py")], transport="stdio"
    )
    app = InspectorApp(target)
    async with app.run_test(size=(160, 50)) as pilot:
        await wait_for(pilot, lambda: app.query_one(Catalog).items["prompts"])
        seen: list[str] = []
        # catalog, item header, form help, result
        await select_item(pilot, "tools", app.query_one(Catalog).items["tools"][0]["name"])
        await pilot.press("ctrl+s")
        await wait_for(pilot, lambda: app.query_one(ResultView).outcome is not None)

        async def capture(expected: str) -> None:
            """Wait until the pane shows ``expected``, then keep what the screen shows."""
            await wait_for(pilot, lambda: expected in strips_text(app))
            seen.append(strips_text(app))

        await capture("result ")
        # resources and prompts lists, the server pane (info, instructions, stderr tail)
        for kind, expected in (("resources", "res "), ("prompts", "prompt ")):
            app.query_one(Catalog).action_tab(kind)
            await capture(expected)
        await pilot.press("escape", "i")
        await capture("instructions ")
        # the log (stderr row) and the detail of the last event
        await pilot.press("g")
        await wait_for(pilot, lambda: app.query_one(MessageLog).lines.has_focus)
        await pilot.press("end", "enter")
        await wait_for(pilot, lambda: app.query_one(MessageDetail).display)
        await capture("stderr says")
    everything = "\n".join(seen)
    assert "[bold red]MARKUP[/]" in everything  # shown as typed, not as bold text
    for forbidden in ("\x1b", "\x07", "\u202e"):
        assert forbidden not in everything, f"{forbidden!r} reached the terminal"
    for pane_text in (
        "tool ",
        "desc ",
        "result ",
        "res ",
        "prompt ",
        "instructions ",
        "stderr says",
    ):
        assert pane_text in everything, pane_text


async def test_hostile_completion_values_stay_literal_in_the_list() -> None:
    target = Target(
        command=sys.executable, args=[str(SERVERS / "stdio_hostile.py")], transport="stdio"
    )
    app = InspectorApp(target)
    async with app.run_test(size=(160, 50)) as pilot:
        await wait_for(pilot, lambda: app.query_one(Catalog).items["prompts"])
        await select_item(pilot, "prompts", app.query_one(Catalog).items["prompts"][0]["name"])
        await pilot.press("v")
        menu = app.query_one(CompletionMenu)
        await wait_for(pilot, lambda: menu.shown and "value plain" in strips_text(app))
        shown = strips_text(app)
        await pilot.press("enter")  # the value itself goes into the field, as sent
        await wait_for(pilot, lambda: not menu.shown)
        form = app.query_one(ItemPanel).form
        assert form is not None
        await wait_for(pilot, lambda: form.root.value() == {"x": f"value {EVIL}"})  # exact
        in_the_box = strips_text(app)  # shown with its control characters made visible
    assert "value [bold red]MARKUP[/]" in shown and "value [bold red]MARKUP[/]" in in_the_box
    for forbidden in ("\x1b", "\x07", "\u202e"):
        assert forbidden not in shown + in_the_box, f"{forbidden!r} reached the terminal"


async def test_emoji_rows_are_as_wide_as_the_terminal_draws_them() -> None:
    """⚠️ (U+26A0 U+FE0F) is 2 cells for Rich and 1 in tmux: each one shifted the rest of
    its row left. Every row sent to the terminal now has the screen's width counted code
    point by code point, as a terminal without grapheme rules counts it."""
    from rich.cells import get_character_cell_size

    from inspector.target import demo_target
    from inspector.tui.widgets.item_panel import ItemPanel

    message = "⚠️ cancelled ✅ done ⚠️⚠️ 👍🏽 a\u200db 👨\u200d👩\u200d👧"
    app = InspectorApp(demo_target())
    width = 140
    async with app.run_test(size=(width, 40)) as pilot:
        await wait_for(pilot, lambda: app.query_one(Catalog).items["prompts"])
        await select_item(pilot, "tools", "echo")
        form = app.query_one(ItemPanel).form
        assert form is not None
        form.set_arguments({"message": message})
        await pilot.press("ctrl+s")
        view = app.query_one(ResultView)
        await wait_for(pilot, lambda: view.outcome is not None and view.outcome.result)
        log = app.query_one(MessageLog)
        await wait_for(pilot, lambda: log.source.method(len(log.source) - 1) == "tools/call")
        await wait_for(pilot, lambda: "cancelled ✅ done" in strips_text(app))
        rows = [strip.text for strip in app.screen._compositor.render_strips()]
        sent = [
            log.source.raw(i)
            for i in range(len(log.source))
            if log.source.method(i) == "tools/call"
        ]
    assert json.dumps(message)[1:-1].encode() in sent[0] or message.encode() in sent[0]
    shown = [row for row in rows if "cancelled ✅ done" in row]
    assert len(shown) >= 3, rows  # the result, the request's and the response's log rows
    for row in rows:
        assert sum(get_character_cell_size(c) for c in row) == width, row
        assert not set(row) & {"\ufe0f", "\u200d", "\U0001f3fd"}, row
