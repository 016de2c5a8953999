"""The Compare view: two workspace servers' catalogs side by side, each item marked as
``mcp-inspect diff`` classifies it (``-`` removed, ``+`` added, ``~`` changed, colored
by level: breaking, compatible, cosmetic), and every difference listed below, breaking
first. ``s`` swaps the sides, ``r`` compares again (a live catalog may have changed).

Server text (names, descriptions, values) is shown literally, control characters
visible.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any, ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Static

from inspector.compare.changes import BREAKING, COMPATIBLE, COSMETIC, LEVELS
from inspector.compare.paths import format_path
from inspector.engine.kinds import KIND
from inspector.safe_text import one_line
from inspector.workspace.comparison import Comparison, Side

STYLES = {BREAKING: "bold red", COMPATIBLE: "yellow", COSMETIC: "dim cyan"}
MARKS = {"added": "+", "removed": "-", "changed": "~"}


def brief(value: Any, limit: int) -> str:
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, default=str)
    return one_line(text, limit)


def render_side(comparison: Comparison, side: Side) -> Text:
    """One server's lists, each item with its mark (same items plain)."""
    out = Text()
    out.append(one_line(side.name, 60), style="bold")
    version = side.catalog.protocol_version
    out.append(f" · {one_line(version, 40)}\n" if version else "\n", style="dim")
    for kind, error in side.catalog.errors.items():
        out.append(f"{KIND[kind].label}: the list failed: ", style="bold red")
        out.append(f"{one_line(error, 80)}\n")
    for kind, names in comparison.items(side):
        out.append(f"{KIND[kind].label} ({len(names)})\n", style="bold underline")
        for name in names:
            mark = comparison.mark(kind, name)
            if mark is None:
                out.append(f"   {one_line(name, 80)}\n")
                continue
            change, level = mark
            out.append(f" {MARKS[change]} {one_line(name, 80)}", style=STYLES[level])
            out.append(f"  {level}\n", style="dim")
    return out


def render_differences(comparison: Comparison) -> Text:
    """Every difference, breaking first: path, values, rule (as ``diff``'s text)."""
    out = Text()
    found = sorted(comparison.differences, key=lambda d: -d.rank)
    if not found:
        out.append("no differences: the same catalog on both\n", style="green")
    for difference in found:
        style = STYLES[difference.level]
        out.append(f" {MARKS[difference.change]} {difference.level:<11}", style=style)
        out.append(one_line(format_path(difference.path), 100), style="bold")
        if difference.change == "added":
            values = brief(difference.new, 60)
        elif difference.change == "removed":
            values = brief(difference.old, 60)
        else:
            values = f"{brief(difference.old, 30)} -> {brief(difference.new, 30)}"
        out.append(f"  {values}")
        out.append(f"  [{difference.rule}]\n", style="dim")
    return out


def headline(comparison: Comparison) -> str:
    counts = comparison.counts
    said = ", ".join(f"{counts[level]} {level}" for level in reversed(LEVELS) if counts[level])
    return (
        f"Compare {one_line(comparison.old.name, 30)} -> {one_line(comparison.new.name, 30)}:"
        f" {said or 'no differences'} · s swaps · r again · Esc back"
    )


class CompareScreen(ModalScreen[None]):
    """Two catalogs side by side and their classified differences."""

    DEFAULT_CSS = """
    CompareScreen { background: $surface; }
    CompareScreen #compare-title { height: auto; background: $panel; }
    CompareScreen #compare-sides { height: 2fr; }
    CompareScreen #compare-sides > VerticalScroll { width: 1fr; border: round $primary; }
    CompareScreen #compare-differences { height: 1fr; border: round $accent; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "close", "Back"),
        Binding("s", "swap", "Swap sides"),
        Binding("r", "again", "Compare again"),
    ]

    def __init__(self, comparison: Comparison, again: Callable[[Comparison], Comparison]) -> None:
        """``again``: the comparison made anew from the servers' frames (``r``)."""
        super().__init__()
        self.comparison = comparison
        self._again = again

    def compose(self) -> ComposeResult:
        yield Static(id="compare-title", markup=False)
        with Horizontal(id="compare-sides"):
            with VerticalScroll():
                yield Static(id="compare-old", markup=False)
            with VerticalScroll():
                yield Static(id="compare-new", markup=False)
        with VerticalScroll(id="compare-differences"):
            yield Static(id="compare-list", markup=False)

    def on_mount(self) -> None:
        self.show()

    def show(self) -> None:
        comparison = self.comparison
        self.query_one("#compare-title", Static).update(Text(headline(comparison)))
        self.query_one("#compare-old", Static).update(render_side(comparison, comparison.old))
        self.query_one("#compare-new", Static).update(render_side(comparison, comparison.new))
        self.query_one("#compare-list", Static).update(render_differences(comparison))

    def action_swap(self) -> None:
        self.comparison = self.comparison.swapped()
        self.show()

    def action_again(self) -> None:
        self.comparison = self._again(self.comparison)
        self.show()

    def action_close(self) -> None:
        self.dismiss(None)
