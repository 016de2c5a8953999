"""The app's main screen: its size classes are set before a resize is laid out.

Textual lays a resized screen out, draws it, and only then sets the new breakpoint
classes, which restyles every widget and lays the screen out and draws it once more.
Setting them first (``on_resize`` runs before ``Screen``'s own handler) makes one pass
of both; so does setting the screen's virtual size first. And a class only changes
when inspector.tcss reads it (``HORIZONTAL``, ``VERTICAL``): a restyle costs ~25 ms on
this DOM.
"""

from __future__ import annotations

from collections.abc import Sequence

from textual import events
from textual.screen import Screen

Breakpoints = Sequence[tuple[int, str]]

# what inspector.tcss reads (dialogs keep the app's own, finer, classes)
HORIZONTAL: Breakpoints = ((0, "-not-wide"), (180, "-wide"))
VERTICAL: Breakpoints = ((0, "-short"), (32, "-not-short"))


def size_classes(cells: int, breakpoints: Breakpoints) -> dict[str, bool]:
    """Each class of ``breakpoints``: True for the one ``cells`` falls in."""
    chosen = max((b for b in breakpoints if cells >= b[0]), default=None)
    return {name: (start, name) == chosen for start, name in breakpoints}


class MainScreen(Screen[None]):
    """Status bar, catalog, work pane, log (composed by the app)."""

    HORIZONTAL_BREAKPOINTS = list(HORIZONTAL)  # noqa: RUF012 (Textual's own annotation)
    VERTICAL_BREAKPOINTS = list(VERTICAL)  # noqa: RUF012

    def on_resize(self, event: events.Resize) -> None:
        width, height = event.size
        classes = size_classes(width, HORIZONTAL) | size_classes(height, VERTICAL)
        self.update_classes(classes, animate=False)
        # The layout sets the screen's virtual size (its size: the screen does not scroll),
        # and a change of it asks for one more layout of the whole screen, drawn in a
        # frame that changes nothing. Set first, it is no change.
        self.set_reactive(Screen.virtual_size, event.virtual_size)
