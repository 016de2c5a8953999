"""Update a Static only when its text changes.

``Static.update`` always asks the screen for a full layout; a view redrawn on a timer
(in flight, tasks) would otherwise lay out and repaint the whole screen several times a
second while nothing changed, even behind a hidden tab, and slow every resize and key.
"""

from __future__ import annotations

from rich.text import Text
from textual.widgets import Static


def set_text(static: Static, text: Text) -> None:
    """Show ``text`` in ``static``, unless it already shows the same text and styles."""
    old = static.content
    if (
        isinstance(old, Text)
        and old.plain == text.plain
        and old.spans == text.spans
        and old.style == text.style
        and old.justify == text.justify
    ):
        return
    static.update(text)
