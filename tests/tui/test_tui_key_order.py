"""Keys that arrive together (a fast typist, a paste of keys, a password manager's
"value Tab value", an agent's `tmux send-keys 5 Tab 1`) each go where the focus is when
their turn comes: a key after Tab goes to the next field, not the one Tab left.

The terminal's bytes reach the app as one burst of key events, posted together; that is
what these tests do (Pilot's ``press`` waits for each key to be handled, so it never saw
the bug: Textual forwards a key to the focused widget at once, and Tab's focus move runs
only once the key has bubbled back up to the app, after the keys behind it were
forwarded to the field Tab was leaving).
"""

from __future__ import annotations

import contextlib
from typing import Any

import anyio
import pytest
from test_tui_typing_keys import form_of, make_app
from textual import events
from textual.app import App, ComposeResult
from textual.widgets import Input
from tui_helpers import select_item, wait_connected, wait_for

from inspector.tui import key_order
from inspector.tui.app import InspectorApp
from inspector.tui.key_order import OrderedKeys
from inspector.tui.widgets.catalog import Catalog
from inspector.tui.widgets.item_panel import ItemPanel

pytestmark = pytest.mark.slow  # end to end: see pyproject's markers

SIZE = (140, 50)
SETTLE = 5.0  # seconds: keys handled in a burst take milliseconds


def burst(app: App[Any], *keys: str) -> None:
    """Post ``keys`` at once, as the terminal driver does for bytes read together."""
    for key in keys:
        char = (
            key
            if len(key) == 1
            else {"tab": "\t", "escape": "\x1b", "slash": "/", "enter": "\r"}.get(key)
        )
        app.post_message(events.Key(key, char))


async def settled(pilot: Any, condition: Any) -> None:
    """Until ``condition`` holds, or a few seconds (then the caller's assert says what
    went where)."""
    with contextlib.suppress(TimeoutError):
        await wait_for(pilot, condition, timeout=SETTLE)


def value_of(app: InspectorApp, name: str) -> str | None:
    """The field's text, or None while it is not built yet."""
    panel = app.query_one(ItemPanel)
    field = panel.form.field((name,)) if panel.form is not None else None
    inputs = field.query(Input) if field is not None else []
    return inputs[0].value if inputs else None


def field_input(app: InspectorApp, name: str) -> Input:
    field = form_of(app).field((name,))
    assert field is not None
    return field.query_one(Input)


@pytest.mark.parametrize(
    ("keys", "a_value", "b_value"),
    [
        (["5", "tab", "1", "2", "shift+tab"], "5", "12"),
        # many keys at once, Tabs among them: none lost, none reordered
        (
            [*"123456789", "tab", *"987654321", "tab", "shift+tab", "shift+tab"],
            "123456789",
            "987654321",
        ),
    ],
    ids=["short", "long"],
)
async def test_keys_after_tab_go_to_the_next_field(
    keys: list[str], a_value: str, b_value: str
) -> None:
    app = make_app()
    with anyio.fail_after(60):
        async with app.run_test(size=SIZE) as pilot:
            await wait_connected(pilot)
            await select_item(pilot, "tools", "add")
            a, b = field_input(app, "a"), field_input(app, "b")
            assert app.focused is a
            burst(app, *keys)
            await settled(pilot, lambda: app.focused is a and b.value == b_value)
            assert (a.value, b.value, app.focused) == (a_value, b_value, a)


async def test_letters_after_escape_are_keys_again() -> None:
    """Esc leaves the field for the catalog list; `2` typed right behind it switches the
    catalog to Resources instead of going into the field."""
    app = make_app()
    with anyio.fail_after(60):
        async with app.run_test(size=SIZE) as pilot:
            await wait_connected(pilot)
            await select_item(pilot, "tools", "add")
            a = field_input(app, "a")
            catalog = app.query_one(Catalog)
            burst(app, "7", "escape", "2")
            await settled(pilot, lambda: catalog.active_kind == "resources")
            assert (a.value, catalog.active_kind) == ("7", "resources")


async def test_keys_after_enter_go_to_the_form_it_opens() -> None:
    """`/ divide Enter 9 Tab 3` in one burst: the filter gets "divide", the form
    Enter opens gets 9 and 3 (it is built and focused after the next refresh, later
    than Enter's own handling)."""
    app = make_app()
    with anyio.fail_after(60):
        async with app.run_test(size=SIZE) as pilot:
            await wait_connected(pilot)
            await wait_for(pilot, lambda: bool(app.query_one(Catalog).items["tools"]))
            burst(app, "slash", *"divide", "enter", "9", "tab", "3")
            panel = app.query_one(ItemPanel)
            await settled(pilot, lambda: panel.form is not None and panel.item is not None)
            assert panel.item is not None and panel.item["name"] == "divide"
            await settled(pilot, lambda: value_of(app, "divisor") == "3")
            dividend, divisor = field_input(app, "dividend"), field_input(app, "divisor")
            assert (dividend.value, divisor.value, app.focused) == ("9", "3", divisor)


class Vanishing(Input):
    """A field that removes itself on "x", handing the focus on: the key's way up ends
    with it (the callback queued behind the key at this widget is dropped)."""

    async def _on_key(self, event: events.Key) -> None:
        if event.key == "x":
            self.screen.query_one("#after", Input).focus()
            await self.remove()
            return
        await super()._on_key(event)


class OrderedApp(OrderedKeys[None]):
    """The smallest app with ordered keys (the real app has no widget that goes away
    while it handles a key)."""

    def compose(self) -> ComposeResult:
        yield Vanishing(id="vanishing")
        yield Input(id="after")


async def test_a_key_whose_widget_goes_away_does_not_hold_the_next_ones(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The keys behind a key whose widget went away while handling it go on at once:
    not after STUCK_AFTER (made an hour here), the bound for a way up that stalls."""
    monkeypatch.setattr(key_order, "STUCK_AFTER", 3600.0)
    app = OrderedApp()
    async with app.run_test() as pilot:
        after = app.query_one("#after", Input)
        burst(app, "x", "a", "b")
        await settled(pilot, lambda: after.value == "ab")
        assert (after.value, app.key_order.holding) == ("ab", 0)


async def test_a_hold_keeps_the_keys_until_released_or_lapsed() -> None:
    """What a catalog Enter does while its form opens: the keys behind it wait for
    ``release``; a hold nobody releases lapses after its ``within``."""
    app = OrderedApp()
    async with app.run_test() as pilot:
        after = app.query_one("#after", Input)
        after.focus()
        await pilot.pause()
        app.key_order.hold("opening", within=30.0)
        burst(app, "a", "b")
        await pilot.pause(0.3)
        assert (after.value, app.key_order.holding) == ("", 2)
        app.key_order.release("opening")
        await settled(pilot, lambda: after.value == "ab")
        assert (after.value, app.key_order.holding) == ("ab", 0)

        app.key_order.hold("forgotten", within=0.2)
        burst(app, "c")
        await settled(pilot, lambda: after.value == "abc")
        assert (after.value, app.key_order.holding) == ("abc", 0)
