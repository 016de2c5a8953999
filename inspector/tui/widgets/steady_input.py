"""An ``Input`` whose typing does not lay the whole screen out again.

Textual's ``Input`` sets its ``virtual_size`` (the width of its text, for scrolling
inside the box) at every change of its value, and ``virtual_size`` is a reactive that
asks the screen for a new layout. On the main screen, with a form of a dozen fields, that
layout was most of a key's cost: 36 ms of CPU a typed character against 8.6 ms without
it (``bench/form_typing.py``).
The box's own size does not depend on its text unless its width or height is ``auto``,
and for that case ``Input`` asks for the layout itself; its scrolling reads
``virtual_size`` directly. So here the reactive only repaints.
"""

from __future__ import annotations

from textual.geometry import Size
from textual.reactive import Reactive
from textual.widgets import Input


class SteadyInput(Input):
    """An ``Input`` (the same keys, look and messages) that does not reflow the screen
    as its text changes."""

    virtual_size: Reactive[Size] = Reactive(Size(0, 0), layout=False, repaint=True)
