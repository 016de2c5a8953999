"""Issue 25 items 5 and 6, through the real app on the demo: typing after the variant
select lands in the variant's first field; the JSON editor says whether the JSON holds
and whether the schema takes it; ctrl+n resets the form to its defaults."""

from __future__ import annotations

import pytest
from textual.widgets import Input, Select, Static
from tui_helpers import select_item, wait_connected, wait_for

from inspector.target import demo_target
from inspector.tui.app import InspectorApp
from inspector.tui.widgets.item_panel import ItemPanel
from inspector.tui.widgets.schema_form import SchemaForm

pytestmark = pytest.mark.slow  # end to end: see pyproject's markers

SIZE = (140, 50)


def form_of(app: InspectorApp) -> SchemaForm:
    form = app.query_one(ItemPanel).form
    assert form is not None
    return form


def text_of(widget: Static) -> str:
    return str(widget.render())


async def test_tab_from_the_variant_select_goes_to_the_variants_first_field() -> None:
    """schedule_event: `when` switched to Range, then Tab and "tomorrow": the text is in
    `start`, not dropped on the variant's header."""
    app = InspectorApp(demo_target())
    async with app.run_test(size=SIZE) as pilot:
        await wait_connected(pilot)
        await select_item(pilot, "tools", "schedule_event")
        form = form_of(app)
        when = form.field(("when",))
        assert when is not None
        select = when.query_one(".variant-select", Select)
        await pilot.press("tab")
        await wait_for(pilot, lambda: select.has_focus)
        await pilot.press("enter", "down", "enter")  # open the list, Range, take it
        await wait_for(pilot, lambda: isinstance(form.root.value().get("when"), dict))
        await wait_for(
            pilot,
            lambda: isinstance(app.focused, Select) and form.field(("when", "start")) is not None,
        )
        start = form.field(("when", "start"))
        assert start is not None
        await pilot.press("tab", *"tomorrow")
        await pilot.pause()
        assert app.focused is start.query_one(Input)
        assert start.query_one(Input).value == "tomorrow"
        assert form.root.value()["when"]["start"] == "tomorrow"
