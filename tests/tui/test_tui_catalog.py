"""The catalog in the real app: / filters as you type, long descriptions, Enter reads."""

from __future__ import annotations

import sys
from typing import Any

import pytest
from paths import SERVERS
from textual.widgets import OptionList
from tui_helpers import screen_text, wait_connected, wait_for

from inspector.target import Target, demo_target
from inspector.tui.app import InspectorApp
from inspector.tui.fuzzy import FuzzyQuery, Haystack
from inspector.tui.widgets.catalog import Catalog, ListFilter
from inspector.tui.widgets.catalog_label import CatalogLabel, clean, make_entry
from inspector.tui.widgets.item_panel import ItemPanel
from inspector.tui.widgets.result_view import ResultView

MANY = Target(command=sys.executable, args=[str(SERVERS / "sdk_many_tools.py")], transport="stdio")


def shown(app: InspectorApp, kind: str = "tools") -> list[str]:
    """The names of the items the list shows, top to bottom."""
    catalog = app.query_one(Catalog)
    options = app.query_one(f"#list-{kind}", OptionList)
    names = []
    for option in options.options:
        if option.id:
            index = int(option.id.partition(":")[2])
            names.append(str(catalog.items[kind][index].get("name") or ""))
    return names


def tab_label(app: InspectorApp, kind: str = "tools") -> str:
    return str(app.query_one("#catalog-tabs").get_tab(f"tab-{kind}").label)  # type: ignore[attr-defined]


async def wait_tools(pilot: Any, count: int) -> None:
    app = pilot.app
    await wait_for(pilot, lambda: len(app.query_one(Catalog).items["tools"]) == count, 30)
    options = app.query_one("#list-tools", OptionList)
    await wait_for(pilot, lambda: options.has_focus)


@pytest.mark.slow
async def test_slash_filters_the_list_as_you_type_and_esc_clears() -> None:
    app = InspectorApp(demo_target())
    async with app.run_test(size=(140, 40)) as pilot:
        await wait_connected(pilot)
        total = len(app.query_one(Catalog).items["tools"])
        await wait_for(pilot, lambda: app.query_one("#list-tools").has_focus)
        await pilot.press("slash")
        box = app.query_one("#filter-tools", ListFilter)
        await wait_for(pilot, lambda: box.has_focus)
        await pilot.press(*"wthr")  # letters in order, not a substring
        await wait_for(pilot, lambda: shown(app)[:1] == ["get_weather"])
        assert tab_label(app) == f"Tools {len(shown(app))}/{total}"
        # the matched letters are highlighted in the row
        options = app.query_one("#list-tools", OptionList)
        label = options.get_option_at_index(0).prompt
        assert isinstance(label, CatalogLabel) and label.matches
        await pilot.press("enter")  # opens the best match, from the filter
        panel = app.query_one(ItemPanel)
        await wait_for(pilot, lambda: (panel.item or {}).get("name") == "get_weather")
        await pilot.press("escape")  # back from the form: the filter is still there
        await wait_for(pilot, lambda: options.has_focus)
        assert shown(app)[:1] == ["get_weather"] and box.display
        await pilot.press("escape")  # and Esc in the list clears it
        await wait_for(pilot, lambda: len(shown(app)) == total)
        assert tab_label(app) == f"Tools {total}"
        # nothing matches: the list says so
        await pilot.press("slash", *"zzzqx")
        await wait_for(pilot, lambda: "no tools match 'zzzqx'" in screen_text(app))
        await pilot.press("escape")
        await wait_for(pilot, lambda: len(shown(app)) == total and options.has_focus)
        assert not box.display


@pytest.mark.slow
async def test_a_filtered_tab_keeps_its_count_at_80_columns() -> None:
    """At 80 columns "Tools 10/23 Res 9 Tmpl 3 Prm 4 Srv" does not fit: typing a filter
    dropped every count ("Tools Res Tmpl Prm Srv"). The filtered tab keeps matching/total;
    cleared, the plain counts are back."""
    app = InspectorApp(demo_target())
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_connected(pilot)
        total = len(app.query_one(Catalog).items["tools"])
        await wait_for(pilot, lambda: app.query_one("#list-tools").has_focus)
        assert tab_label(app) == f"Tools {total}"
        await pilot.press("slash", *"ec")
        await wait_for(pilot, lambda: tab_label(app) != f"Tools {total}")
        assert tab_label(app) == f"Tools {len(shown(app))}/{total}"
        assert 0 < len(shown(app)) < total
        await pilot.press("escape")
        await wait_for(pilot, lambda: tab_label(app) == f"Tools {total}")
        resources = len(app.query_one(Catalog).items["resources"])
        assert tab_label(app, "resources") == f"Res {resources}"


@pytest.mark.slow
async def test_slash_again_replaces_the_filter_kept_from_before() -> None:
    app = InspectorApp(demo_target())
    async with app.run_test(size=(140, 40)) as pilot:
        await wait_connected(pilot)
        options = app.query_one("#list-tools", OptionList)
        await wait_for(pilot, lambda: options.has_focus)
        await pilot.press("slash", *"wthr", "enter")  # opens get_weather: the form has focus
        panel = app.query_one(ItemPanel)
        await wait_for(pilot, lambda: (panel.item or {}).get("name") == "get_weather")
        await pilot.press("escape")  # back in the list, the filter still shown
        await wait_for(pilot, lambda: options.has_focus)
        box = app.query_one("#filter-tools", ListFilter)
        await pilot.press("slash", *"create")
        await wait_for(pilot, lambda: box.has_focus)
        assert box.value == "create"
        await wait_for(pilot, lambda: shown(app)[:1] == ["create_user"])


@pytest.mark.slow
async def test_three_hundred_tools_filter_with_bounded_work_per_key() -> None:
    app = InspectorApp(MANY)
    async with app.run_test(size=(140, 40)) as pilot:
        await wait_tools(pilot, 300)
        catalog = app.query_one(Catalog)
        haystacks = [e.haystack for e in catalog.entries["tools"]]
        fields = sum(len(h.fields) for h in haystacks)
        await pilot.press("slash", *"sync-st")
        await wait_for(pilot, lambda: catalog.queries["tools"] == "sync-st")
        found = shown(app)
        assert found and all("sync" in name for name in found)
        # each key only looks again at what the key before matched (typing on can only
        # match fewer): two searches at most per field of those
        before = [h for h in haystacks if FuzzyQuery("sync-s").match(h)]
        query = catalog.last_query
        assert query is not None and query.text == "sync-st"
        assert query.searches <= 2 * sum(len(h.fields) for h in before) < fields
        await pilot.press("backspace", "backspace", "backspace")  # wider again: all looked at
        await wait_for(pilot, lambda: catalog.queries["tools"] == "sync")
        assert catalog.last_query is not None and catalog.last_query.searches >= fields
        await pilot.press("space", *"rprt")  # a second word narrows
        await wait_for(pilot, lambda: catalog.queries["tools"] == "sync rprt")
        for name in shown(app):  # every row shown matches both words
            index = next(i for i, t in enumerate(catalog.items["tools"]) if t["name"] == name)
            assert FuzzyQuery("sync rprt").match(haystacks[index])


@pytest.mark.slow
async def test_a_long_description_wraps_and_is_cut_with_an_ellipsis() -> None:
    app = InspectorApp(MANY)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_tools(pilot, 300)
        await pilot.press("slash", *"long-desc")
        await wait_for(pilot, lambda: shown(app)[:1] == ["long-description"])
        rows = screen_text(app).splitlines()
        description = [row for row in rows if "Reads the whole" in row]
        assert len(description) == 2  # two lines of it (at any width)
        assert description[-1].split("│")[0].rstrip().endswith("…")  # cut, and said to be
        assert description[0].startswith("   Reads")  # under the name, indented
        await pilot.press("enter")  # the whole description is in the work pane
        panel = app.query_one(ItemPanel)
        await wait_for(pilot, lambda: panel.item is not None)
        assert "The end is here." in str(app.query_one("#item-head").render())


@pytest.mark.slow
async def test_enter_on_a_resource_reads_it() -> None:
    app = InspectorApp(demo_target())
    async with app.run_test(size=(140, 40)) as pilot:
        await wait_connected(pilot)
        await pilot.press("2")
        options = app.query_one("#list-resources", OptionList)
        await wait_for(pilot, lambda: options.has_focus)
        await pilot.press("slash", *"readme", "enter")
        view = app.query_one(ResultView)
        await wait_for(pilot, lambda: view.outcome is not None and view.outcome.result is not None)
        outcome = view.outcome
        assert outcome is not None and outcome.result is not None
        assert outcome.result["contents"][0]["uri"] == "demo://readme"


@pytest.mark.slow
async def test_after_enter_on_a_resource_the_list_keeps_the_keys() -> None:
    """Enter reads a resource and leaves the focus in the list: Down, Enter reads the
    next one, and the digits switch lists (on the Read button they were typed keys)."""
    app = InspectorApp(demo_target())
    async with app.run_test(size=(140, 40)) as pilot:
        await wait_connected(pilot)
        await pilot.press("2")
        options = app.query_one("#list-resources", OptionList)
        await wait_for(pilot, lambda: options.has_focus)
        items = app.query_one(Catalog).items["resources"]
        view = app.query_one(ResultView)

        def read_uri() -> object:
            outcome = view.outcome
            if outcome is None or outcome.result is None:
                return None
            return outcome.result["contents"][0]["uri"]

        await pilot.press("enter")
        await wait_for(pilot, lambda: read_uri() == items[0]["uri"])
        await pilot.pause(0.2)  # the focus would have moved after the refresh
        assert options.has_focus
        await pilot.press("down", "enter")
        await wait_for(pilot, lambda: read_uri() == items[1]["uri"])
        await pilot.press("1")
        await wait_for(pilot, lambda: app.query_one("#list-tools", OptionList).has_focus)


def test_names_match_letters_in_order_descriptions_match_text() -> None:
    item = Haystack.of({"name": "zzz", "description": "Returns the weather"}, ["description"])
    assert FuzzyQuery("weath").match(item) is not None
    assert FuzzyQuery("res").match(item) is None  # r..e..s of "Returns": not in a description
    assert FuzzyQuery("wthr").match(item) is None
    named = Haystack.of({"name": "get_weather"})
    assert FuzzyQuery("wthr").match(named) is not None
    both = FuzzyQuery("gw the").match(Haystack.of({"name": "get_weather", "description": "the"}))
    assert both is not None and both.positions == {"name": (0, 4), "description": (0, 1, 2)}


def test_a_row_never_cuts_a_name_without_saying_so() -> None:
    long_name = "n" * 500
    entry = make_entry("tools", {"name": long_name}, long_name, [])
    assert entry.head_text.endswith("…") and len(entry.head_text) < 300
    assert clean("a\n\tb  c") == "a b c"
    assert clean("\x1b[31mred") == "␛[31mred"  # server text is data
