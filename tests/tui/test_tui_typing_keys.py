"""Issue 15.3: keys typed in a form or a dialog are never app shortcuts; `q` asks first
when quitting would lose something; ctrl+q does not ask.

Each test types words on a control that does not take text (checkbox, select, button,
a checkbox in an array item (whose row has keys of its own), a group header), then
presses Tab as a barrier: keys are handled in order, so once Tab has moved the focus,
every letter before it has been handled too, and what they would have done (quit,
resize the log, switch tabs, reconnect) can be checked as not done.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from textual.widget import Widget
from textual.widgets import Button, Checkbox, Select, TabbedContent
from textual.widgets._collapsible import CollapsibleTitle
from tui_helpers import focus, log_methods, screen_text, select_item, wait_connected, wait_for

from inspector.engine.responders import Responders
from inspector.record.format import SessionHeader
from inspector.record.recorder import Recorder
from inspector.target import demo_target, target_info
from inspector.tui.app import InspectorApp
from inspector.tui.interactive_setup import interactive_responders
from inspector.tui.screens.confirm import ConfirmScreen
from inspector.tui.screens.elicitation import ElicitationScreen
from inspector.tui.screens.roots import RootsScreen
from inspector.tui.screens.sampling import SamplingScreen
from inspector.tui.screens.save_as import SaveAsScreen
from inspector.tui.widgets.catalog import Catalog
from inspector.tui.widgets.item_panel import ItemPanel
from inspector.tui.widgets.schema_form import SchemaForm
from inspector.tui.widgets.status_bar import StatusBar

SIZE = (140, 50)
WORDS = ("quick", "leaf", "r", "2", "?")  # quit, log size, tabs, reconnect, catalog, help


def make_app(**kwargs: Any) -> InspectorApp:
    responders = Responders()
    app = InspectorApp(demo_target(), responders=responders, **kwargs)
    interactive_responders(app, responders)  # the TUI answers the server's requests
    return app


def form_of(app: InspectorApp) -> SchemaForm:
    form = app.query_one(ItemPanel).form
    assert form is not None
    return form


def state(app: InspectorApp) -> dict[str, Any]:
    """Everything the app-wide letter and digit shortcuts would change."""
    main = app.screen_stack[0]
    return {
        "running": app.return_code is None,
        "screens": len(app.screen_stack),
        "log layout": app.log_layout,
        "bottom tab": main.query_one("#bottom-tabs", TabbedContent).active,
        "catalog tab": main.query_one("#catalog-tabs", TabbedContent).active,
        "help": bool(app.screen.query("HelpPanel")),
        "detail": main.query_one("#detail").display,
        "session": app.controller.session if app.controller else None,
        "initialize sent": log_methods(app).count("initialize"),
    }


async def type_then_tab(pilot: Any, *words: str) -> None:
    """Type `words` with the focus where it is, then Tab, and wait for the focus to move
    (every key before the Tab has been handled by then)."""
    app = pilot.app
    start = app.focused
    assert start is not None
    for word in words:
        for key in word:
            await pilot.press(key)
    await pilot.press("tab")
    await wait_for(pilot, lambda: app.focused is not start)


async def contacts_item_checkbox(pilot: Any, app: InspectorApp) -> Widget:
    """Add an item to create_user's `contacts` (a user presses "+ add item"), then its
    `primary` checkbox."""
    form = form_of(app)
    contacts = form.field(("contacts",))
    assert contacts is not None
    await focus(pilot, contacts.query_one("Button.add-item", Button))
    await pilot.press("enter")
    await wait_for(pilot, lambda: form.field(("contacts", 0, "primary")) is not None)
    primary = form.field(("contacts", 0, "primary"))
    assert primary is not None
    return primary.query_one(Checkbox)


async def target(pilot: Any, app: InspectorApp, where: str) -> Widget:
    """Open the tool and put the focus on the control named `where`, as a user would."""
    if where == "checkbox":  # echo: message, Tab, repeat, Tab, uppercase
        await select_item(pilot, "tools", "echo")
        for key in ("h", "i", "tab", "tab"):
            await pilot.press(key)
        assert isinstance(app.focused, Checkbox)
        return app.focused
    await select_item(pilot, "tools", "create_user")
    form = form_of(app)
    widget: Widget
    if where == "select":
        field = form.field(("role",))
        assert field is not None
        widget = field.query_one(Select)
    elif where == "call button":
        widget = app.query_one("#run", Button)
    elif where == "add item button":
        field = form.field(("tags",))
        assert field is not None
        widget = field.query_one("Button.add-item", Button)
    elif where == "array item":
        widget = await contacts_item_checkbox(pilot, app)
    else:  # group header: the address object's collapsible title
        field = form.field(("address",))
        assert field is not None
        widget = field.query_one(CollapsibleTitle)
    await focus(pilot, widget)
    return widget


@pytest.mark.slow
@pytest.mark.parametrize(
    "where",
    ["checkbox", "select", "call button", "add item button", "array item", "group"],
)
@pytest.mark.slow
async def test_words_typed_on_form_controls_fire_no_app_shortcut(where: str) -> None:
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await wait_connected(pilot)
        await target(pilot, app, where)
        panel = app.query_one(ItemPanel)
        item, form = panel.item, form_of(app)
        before, value = state(app), form.root.value()
        # the footer does not offer them either (it shows what a key does here)
        shown = {b.binding.key for b in app.screen.active_bindings.values()}
        assert "q" not in shown and "l" not in shown and "r" not in shown
        assert "ctrl+s" in shown
        await type_then_tab(pilot, *WORDS)
        assert state(app) == before
        assert panel.item is item and form_of(app) is form and form.root.value() == value
        focused = app.focused
        assert focused is not None and panel in focused.ancestors


@pytest.mark.slow
async def test_the_same_keys_still_work_outside_forms() -> None:
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await wait_connected(pilot)
        await select_item(pilot, "tools", "echo")
        await pilot.press("escape")  # back to the catalog, as the README says
        catalog_list = app.query_one("#list-tools")
        await wait_for(pilot, lambda: catalog_list.has_focus)
        await pilot.press("l")
        await wait_for(pilot, lambda: app.log_layout == "max")
        await pilot.press("2")
        tabs = app.query_one("#catalog-tabs", TabbedContent)
        await wait_for(pilot, lambda: tabs.active == "tab-resources")


async def open_dialog(pilot: Any, app: InspectorApp, kind: str) -> None:
    """Open one of the app's dialogs the way a user does, and focus a button in it."""
    if kind == "confirm":
        await select_item(pilot, "tools", "delete_note")
        await pilot.press("1", "ctrl+s")  # id 1; delete_note is destructive: asked first
        await wait_for(pilot, lambda: isinstance(app.screen, ConfirmScreen))
    elif kind == "elicitation":
        await select_item(pilot, "tools", "book_table")
        await pilot.press("ctrl+s")
        await wait_for(pilot, lambda: isinstance(app.screen, ElicitationScreen))
        outdoor = app.screen.query_one("#form", SchemaForm).field(("outdoor",))
        assert outdoor is not None
        await focus(pilot, outdoor.query_one(Checkbox))
        return
    elif kind == "sampling":
        await select_item(pilot, "tools", "ask_llm")
        await pilot.press(*"why", "ctrl+s")
        await wait_for(pilot, lambda: isinstance(app.screen, SamplingScreen))
    elif kind == "roots":
        await pilot.press("escape", "R")
        await wait_for(pilot, lambda: isinstance(app.screen, RootsScreen))
    else:
        await pilot.press("escape", "w")
        await wait_for(pilot, lambda: isinstance(app.screen, SaveAsScreen))
    buttons = [b for b in app.screen.query(Button) if b.focusable]
    await focus(pilot, buttons[-1])


@pytest.mark.slow
@pytest.mark.parametrize("kind", ["confirm", "elicitation", "sampling", "roots", "save-as"])
async def test_words_typed_in_dialogs_fire_no_app_shortcut(kind: str, tmp_path: Path) -> None:
    target = demo_target()
    recorder = Recorder(tmp_path / "s.jsonl", SessionHeader(target=target_info(target)))
    responders = Responders()
    app = InspectorApp(target, responders=responders, recorder=recorder)  # "w" needs a file
    interactive_responders(app, responders)
    try:
        async with app.run_test(size=SIZE) as pilot:
            await wait_connected(pilot)
            await open_dialog(pilot, app, kind)
            dialog = app.screen
            before = state(app)
            # the confirm dialog's own keys are y, a and n: "leaf" would answer it
            words = [w for w in WORDS if kind != "confirm" or not set(w) & set("yan")]
            await type_then_tab(pilot, *words)
            assert app.screen is dialog
            assert state(app) == before
            await pilot.press("escape")
            await wait_for(pilot, lambda: app.screen is not dialog)
    finally:
        recorder.close()


@pytest.mark.slow
async def test_q_asks_when_a_form_holds_unsent_input() -> None:
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await wait_connected(pilot)
        await select_item(pilot, "tools", "echo")
        await pilot.press(*"hello", "escape")
        catalog_list = app.query_one("#list-tools")
        await wait_for(pilot, lambda: catalog_list.has_focus)
        await pilot.press("q")
        await wait_for(pilot, lambda: isinstance(app.screen, ConfirmScreen))
        text = screen_text(app)
        assert "what you typed in Echo, never sent" in text and "ctrl+q" in text
        assert not app.screen.query("#always")  # yes or no: no "always" for quitting
        await pilot.press("a")  # not an answer here
        await pilot.press("n")
        await wait_for(pilot, lambda: not isinstance(app.screen, ConfirmScreen))
        assert app.return_code is None
        # the input is kept when switching items, and still counts
        await select_item(pilot, "tools", "add")
        await pilot.press("escape")
        await wait_for(pilot, lambda: app.query_one("#list-tools").has_focus)
        await pilot.press("q")
        await wait_for(pilot, lambda: isinstance(app.screen, ConfirmScreen))
        assert "what you typed in Echo, never sent" in screen_text(app)
        await pilot.press("y")
        await wait_for(pilot, lambda: app.return_code is not None)


@pytest.mark.slow
async def test_q_quits_at_once_when_nothing_would_be_lost() -> None:
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await wait_connected(pilot)
        await select_item(pilot, "tools", "echo")
        await pilot.press(*"hello", "ctrl+s")  # sent: nothing unsent any more
        await wait_for(pilot, lambda: "tools/call" in log_methods(app))
        await pilot.press("escape")
        await wait_for(pilot, lambda: app.query_one("#list-tools").has_focus)
        await pilot.press("q")
        await wait_for(pilot, lambda: app.return_code is not None)
        assert not isinstance(app.screen, ConfirmScreen)


@pytest.mark.slow
async def test_q_asks_while_calls_are_in_flight_and_ctrl_q_never_asks() -> None:
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await wait_connected(pilot)
        await select_item(pilot, "tools", "slow_count")
        await pilot.press(*"60", "ctrl+s")  # seconds: 60, sent
        status = app.query_one(StatusBar)
        await wait_for(pilot, lambda: status.pending == 1)
        await pilot.press("escape")
        await wait_for(pilot, lambda: app.query_one(Catalog).query_one("#list-tools").has_focus)
        await pilot.press("q")
        await wait_for(pilot, lambda: isinstance(app.screen, ConfirmScreen))
        text = screen_text(app)
        assert "1 call still waiting for the server" in text
        assert "never sent" not in text  # what was typed went out
        await pilot.press("n")
        await wait_for(pilot, lambda: not isinstance(app.screen, ConfirmScreen))
        # back in a form, with input typed and a call in flight: ctrl+q quits at once
        await select_item(pilot, "tools", "echo")
        await pilot.press(*"unsent")
        await pilot.press("ctrl+q")
        await wait_for(pilot, lambda: app.return_code is not None)
        assert not isinstance(app.screen, ConfirmScreen)


@pytest.mark.slow
async def test_r_asks_before_dropping_calls_in_flight() -> None:
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await wait_connected(pilot)
        await select_item(pilot, "tools", "slow_count")
        await pilot.press(*"60", "ctrl+s")
        status = app.query_one(StatusBar)
        await wait_for(pilot, lambda: status.pending == 1)
        await pilot.press("escape")
        await wait_for(pilot, lambda: app.query_one(Catalog).query_one("#list-tools").has_focus)
        first = app.controller.session if app.controller else None
        await pilot.press("r")
        await wait_for(pilot, lambda: isinstance(app.screen, ConfirmScreen))
        await pilot.pause()  # painted
        text = screen_text(app)
        assert "Reconnect?" in text and "1 call still waiting" in text, text
        await pilot.press("n")  # kept: the same connection, the call still waiting
        await wait_for(pilot, lambda: not isinstance(app.screen, ConfirmScreen))
        assert app.controller is not None and app.controller.session is first
        assert status.pending == 1
        await pilot.press("r")
        await wait_for(pilot, lambda: isinstance(app.screen, ConfirmScreen))
        await pilot.press("y")
        await wait_for(
            pilot,
            lambda: (
                app.controller is not None
                and app.controller.session not in (None, first)
                and status.state == "connected"
            ),
        )
