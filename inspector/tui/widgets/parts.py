"""A view's parts, when they are there to be drawn.

Textual removes a screen's widgets deepest first when the app quits, and a view that
handles a message meanwhile (a batch of events, a task's outcome, a request's end, a new
session) finds its parts gone: a ``query_one`` then raises ``NoMatches`` out of the app.
A part asked for before its view is composed is not there either.
"""

from __future__ import annotations

from typing import TypeVar

from textual.css.query import NoMatches
from textual.widget import Widget

W = TypeVar("W", bound=Widget)


def part(view: Widget, selector: str, kind: type[W]) -> W | None:
    """``view``'s part ``selector``, or None when it is not there."""
    try:
        return view.query_one(selector, kind)
    except NoMatches:
        return None


def has_parts(view: Widget, *selectors: str) -> bool:
    """Whether each of ``view``'s parts (by selector) is there."""
    return all(part(view, selector, Widget) is not None for selector in selectors)
