"""Helpers shared by the in-flight and tasks views: their tables and their parts."""

from __future__ import annotations

from typing import Any

from textual.css.query import NoMatches
from textual.widget import Widget
from textual.widgets import DataTable


def has_parts(view: Widget, *selectors: str) -> bool:
    """Whether each of ``view``'s parts is there to be drawn: Textual removes a screen's
    widgets deepest first (quitting), and a view that handles a message meanwhile (a
    task's outcome, a request's end) finds its parts gone."""
    for selector in selectors:
        try:
            view.query_one(selector)
        except NoMatches:
            return False
    return True


def cursor_row_key(table: DataTable[Any]) -> str | None:
    """The key of the row under the cursor, or None for an empty table."""
    if table.row_count == 0:
        return None
    try:
        key = table.coordinate_to_cell_key(table.cursor_coordinate).row_key.value
    except Exception:  # the cursor points past rows that were just cleared
        return None
    return key
