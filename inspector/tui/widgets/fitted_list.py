"""An ``OptionList`` whose lines follow its width in the frame that resizes it.

Textual's keeps the lines it rendered for the old width (its caches are not keyed by
width) until its ``Resize`` event clears them, which comes after the resize's first frame
is drawn: that frame shows the catalog's rows padded or cut for the old width, and the
next one corrects them. Clearing the caches when a render finds a new width makes the
first frame right."""

from __future__ import annotations

from textual.geometry import Region
from textual.strip import Strip
from textual.widgets import OptionList


class FittedOptionList(OptionList):
    """An ``OptionList`` that re-renders its lines when it is drawn at a new width."""

    _lines_width = 0

    def render_lines(self, crop: Region) -> list[Strip]:
        width = self.scrollable_content_region.width
        if width != self._lines_width:
            # what Textual does on Resize, a frame later (guarded: a private method)
            clear = getattr(self, "_clear_caches", None)
            if self._lines_width and clear is not None:
                clear()
            self._lines_width = width
        return super().render_lines(crop)
