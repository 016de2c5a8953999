"""Whether a view's parts are there to be drawn.

Textual removes a screen's widgets deepest first when the app quits, and a view that
handles a message meanwhile (a batch of events, a task's outcome, a request's end, a new
session) finds its parts gone: a ``query_one`` then raises ``NoMatches`` out of the app.
"""

from __future__ import annotations

from textual.css.query import NoMatches
from textual.widget import Widget


def has_parts(view: Widget, *selectors: str) -> bool:
    """Whether each of ``view``'s parts (by selector) is there."""
    for selector in selectors:
        try:
            view.query_one(selector)
        except NoMatches:
            return False
    return True
