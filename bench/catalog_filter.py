"""Catalog filter with 300 tools: work and time per keystroke; Textual's fuzzy search as peer.

(a) the matcher alone: typing a query one character at a time over 300 tools (those
    of tests/servers/sdk_many_tools.py: name, title and a description of 60-600
    characters each); ``inspector.tui.fuzzy`` against
    ``textual.fuzzy.FuzzySearch`` (the command palette's matcher), with a fresh search
    object per keystroke as the palette does, on names and titles (the peer enumerates
    every way the letters can be placed, so on long descriptions it does not finish in
    minutes), and the ratio; then ours on names, titles and descriptions;
(b) the whole catalog in a headless app: ``/`` then the query typed with real key
    presses; the time ``Catalog._show`` (match, sort, rebuild the list) takes per key,
    and the rows rendered (only those on screen are).

    python bench/catalog_filter.py [--tools 300] [--query "get weather"]
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from rich.text import Text
from textual.app import App, ComposeResult
from textual.fuzzy import FuzzySearch
from textual.widgets import Input, OptionList
from textual.widgets.option_list import Option

from inspector.tui.fuzzy import FuzzyQuery, Haystack
from inspector.tui.widgets.catalog import Catalog, display_name, hints
from inspector.tui.widgets.catalog_label import LOOSE_FIELDS, make_entry

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from tests.servers.sdk_many_tools import tool_specs


def make_tools(count: int) -> list[dict[str, Any]]:
    """The tools of tests/servers/sdk_many_tools.py (a test runs the same list live)."""
    return [
        {**spec, "annotations": {"readOnlyHint": n % 2 == 0}, "inputSchema": {"type": "object"}}
        for n, spec in enumerate(tool_specs(count))
    ]


def prefixes(query: str) -> list[str]:
    return [query[: n + 1] for n in range(len(query)) if query[n] != " "]


def per_key(run: Callable[[str], int], query: str, rounds: int = 5) -> tuple[float, int]:
    """Median milliseconds per keystroke over ``rounds``, and the matches at the end."""
    times = []
    found = 0
    for _ in range(rounds):
        for typed in prefixes(query):
            started = time.perf_counter()
            found = run(typed)
            times.append((time.perf_counter() - started) * 1000)
    return statistics.median(times), found


def bench_matchers(tools: list[dict[str, Any]], query: str) -> None:
    entries = [make_entry("tools", t, display_name(t), hints(t)) for t in tools]
    searches = []
    short = [{k: v for k, v in e.fields.items() if k in ("name", "title")} for e in entries]
    every = [e.fields for e in entries]

    def ours(fields: list[dict[str, str]]) -> Callable[[str], int]:
        stacks = [Haystack.of(f, loose=LOOSE_FIELDS) for f in fields]

        def run(typed: str) -> int:
            fuzzy = FuzzyQuery(typed)
            found = [m for h in stacks if (m := fuzzy.match(h))]
            searches.append(fuzzy.searches)
            return len(found)

        return run

    def textual_palette(typed: str) -> int:
        search = FuzzySearch()  # the palette makes a Matcher (and a search) per query
        return sum(1 for f in short if any(search.match(typed, t)[0] for t in f.values()))

    ms_short, n_short = per_key(ours(short), query)
    ms_peer, n_peer = per_key(textual_palette, query, rounds=1)
    searches.clear()
    ms_all, n_all = per_key(ours(every), query)
    print(f"(a) matcher, {len(tools)} tools, query {query!r} typed one key at a time")
    print("    names and titles:")
    print(f"      inspector.tui.fuzzy    {ms_short:8.2f} ms/key  ({n_short} match at the end)")
    print(f"      textual FuzzySearch    {ms_peer:8.2f} ms/key  ({n_peer} match at the end)")
    print(f"      ratio (peer / ours)    {ms_peer / max(ms_short, 1e-6):8.1f}x")
    print("    names, titles and descriptions:")
    print(f"      inspector.tui.fuzzy    {ms_all:8.2f} ms/key  ({n_all} match at the end)")
    print(f"      regex searches per key {max(searches)} at most")


class CatalogApp(App[None]):
    def compose(self) -> ComposeResult:
        yield Catalog(id="catalog")


class InputApp(App[None]):
    """A peer for (b): the same key presses into a plain Input that filters nothing."""

    def compose(self) -> ComposeResult:
        yield Input()


class StockListApp(App[None]):
    """A peer for (b): an Input over Textual's OptionList of plain two-line Text rows
    (what the catalog showed before: title, name, a description line cut at 90), filtered
    by the same matcher on every key."""

    CSS = "OptionList { height: 1fr; width: 56; }"

    def __init__(self, tools: list[dict[str, Any]]) -> None:
        super().__init__()
        self.entries = [make_entry("tools", t, display_name(t), hints(t)) for t in tools]

    def compose(self) -> ComposeResult:
        yield Input()
        yield OptionList()

    def on_input_changed(self, event: Input.Changed) -> None:
        query = FuzzyQuery(event.value)
        rows = [e for e in self.entries if not query or query.match(e.haystack)]
        self.query_one(OptionList).set_options(
            Option(Text(f"{e.head_text}\n  {e.description[:90]}", no_wrap=True)) for e in rows
        )


async def type_keys(pilot: Any, query: str) -> float:
    """Milliseconds to press the keys of ``query`` and paint the result."""
    started = time.perf_counter()
    for char in query:
        await pilot.press("space" if char == " " else char)
    await pilot.pause()
    return (time.perf_counter() - started) * 1000


async def bench_catalog(tools: list[dict[str, Any]], query: str, size: tuple[int, int]) -> None:
    app = CatalogApp()
    times: list[float] = []
    async with app.run_test(size=size) as pilot:
        catalog = app.query_one(Catalog)
        show = catalog._show

        def timed(kind: str) -> None:
            started = time.perf_counter()
            show(kind)
            times.append((time.perf_counter() - started) * 1000)

        catalog._show = timed  # type: ignore[method-assign]
        catalog.set_items("tools", tools)
        catalog.action_tab("tools")
        await pilot.pause()
        times.clear()
        await pilot.press("slash")
        total = await type_keys(pilot, query)
        tab = str(catalog.query_one("#catalog-tabs").get_tab("tab-tools").label)  # type: ignore[attr-defined]
    peer = InputApp()
    async with peer.run_test(size=size) as pilot:
        await pilot.pause()
        baseline = await type_keys(pilot, query)
    stock = StockListApp(tools)
    async with stock.run_test(size=size) as pilot:
        await pilot.pause()
        stock_total = await type_keys(pilot, query)
    n = len(query)
    print(f"(b) the catalog in a {size[0]}x{size[1]} app: {n} key presses (Pilot)")
    print(f"    Catalog._show per key    {statistics.median(times):8.2f} ms median")
    print(f"    Catalog._show worst      {max(times):8.2f} ms")
    print(f"    keys pressed, painted    {total / n:8.1f} ms/key")
    print(f"    peer: a plain Input      {baseline / n:8.1f} ms/key (Pilot's own cost per key)")
    print(f"    peer: stock OptionList   {stock_total / n:8.1f} ms/key (plain Text rows)")
    print(f"    ratio (catalog / stock)  {total / max(stock_total, 1e-6):8.2f}x")
    print(f"    tab at the end           {tab}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--tools", type=int, default=300)
    parser.add_argument("--query", default="get weather")
    args = parser.parse_args()
    tools = make_tools(args.tools)
    bench_matchers(tools, args.query)
    asyncio.run(bench_catalog(tools, args.query, (140, 40)))


if __name__ == "__main__":
    main()
