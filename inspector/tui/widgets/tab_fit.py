"""Tab labels that fit: a row of tabs shows every tab in a narrow pane.

Textual's tabs scroll to the active one and leave the rest past the edge unseen (at
90 columns the catalog lost Prompts and Server). Here the labels give way first, in
steps, until all of them fit: full names with counts, short names with counts, the
same with one cell between tabs instead of two, short names alone.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from rich.cells import cell_len
from textual.css.query import NoMatches
from textual.widgets import TabbedContent

# on the TabbedContent: one cell between its tabs, not two (the rule is in inspector.tcss)
TIGHT = "-tight-tabs"


@dataclass(frozen=True)
class TabLabel:
    """A tab's name in full and short (``Resources``, ``Res``) and what follows it."""

    full: str
    short: str
    count: str = ""
    filtered: bool = False  # the count is "matching/total": a filter is on


def _join(name: str, count: str) -> str:
    return f"{name} {count}" if count else name


def choose(labels: Sequence[TabLabel], width: int) -> tuple[list[str], bool]:
    """The texts to show in ``width`` cells, and whether the tabs must be tight.

    The first step that fits wins; when none does, the last (the tabs scroll to the
    active one then, as they would anyway)."""
    steps = [
        ([_join(t.full, t.count) for t in labels], False),
        ([_join(t.short, t.count) for t in labels], False),
        ([_join(t.short, t.count) for t in labels], True),
        ([_join(t.short, t.count) if t.filtered else t.short for t in labels], True),
        ([t.short for t in labels], True),
    ]
    for texts, tight in steps:
        padding = 1 if tight else 2
        if sum(cell_len(text) + padding for text in texts) <= width:
            return texts, tight
    return steps[-1]


def fit_tabs(tabs: TabbedContent, labels: Mapping[str, TabLabel]) -> None:
    """Label ``tabs`` (pane id -> label; panes not there yet are skipped) to fit its width."""
    width = tabs.content_region.width
    if not width:
        return
    present: list[tuple[str, TabLabel]] = []
    for pane_id, label in labels.items():
        try:
            tabs.get_tab(pane_id)
        except NoMatches:
            continue
        present.append((pane_id, label))
    texts, tight = choose([label for _, label in present], width)
    tabs.set_class(tight, TIGHT)
    for (pane_id, _), text in zip(present, texts, strict=True):
        tab = tabs.get_tab(pane_id)
        if str(tab.label) != text:  # a new label lays the tabs out again: only on a change
            tab.label = text
