"""A key never goes into a widget the user cannot see.

Textual moves the focus off a widget that is hidden to a *sibling* whose own
``display`` is on, even when their parent is hidden too: with the log maximized the
catalog list's focus went to its (hidden) filter box, and ``l``, ``g``, ``q``, ``1``-``5``
were typed into it. Before each key, a focus that no longer shows moves where the
user can see it (the screen says where: the main screen prefers the catalog list,
then the log).
"""

from __future__ import annotations

from typing import Any

from textual.screen import Screen
from textual.widget import Widget


def shown(widget: Widget) -> bool:
    """``widget`` and every container up to its screen are displayed and visible (a
    hidden tab's pane, a collapsed pane and a filter box not shown all count as hidden)."""
    node: object = widget
    while isinstance(node, Widget) and not isinstance(node, Screen):
        if not node.display or not node.visible:
            return False
        node = node.parent
    return True


def keep_focus_shown(screen: Screen[Any]) -> Widget | None:
    """Move a focus that does not show to a widget that does; what it moved to."""
    focused = screen.focused
    if focused is None or shown(focused):
        return None
    prefer = getattr(screen, "shown_focus", None)
    target = prefer() if callable(prefer) else None
    if target is None:
        target = next((w for w in screen.focus_chain if shown(w)), None)
    screen.set_focus(target)
    return target
