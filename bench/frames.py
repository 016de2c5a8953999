"""The frames a Textual app hands its terminal driver, timed, and which of them changed
what the terminal shows (for bench/big_result.py).

``Frames`` spies on ``App._display``. The headless driver drops a frame before it is
turned into terminal output; the spy does that step (``CompositorUpdate.render_segments``,
what a terminal driver is handed) so a frame costs here what it costs on a terminal, and
notes the frame's end: the moment the terminal could show it.

Textual also draws frames that change nothing on screen (a widget repainted with the
same content after a second layout pass). ``changed`` tells them apart after the fact:
each kept frame is played, in order, onto a grid of cells (character and style, as a
terminal holds them) and compared with the grid before it. Playing frames costs nothing
while the app runs: a frame's strips are kept, not copied.
"""

from __future__ import annotations

import asyncio
import time
from typing import Any, cast

from rich.cells import cell_len
from rich.console import ConsoleRenderable
from rich.segment import ControlType, Segment
from textual._compositor import CompositorUpdate, LayoutUpdate
from textual.app import App

Cell = tuple[str, Any]  # a character and its style


class Frames:
    """Every frame (``ends``, ``updates``) while in a ``with`` block."""

    def __init__(self, app: App[Any]) -> None:
        self.app = app
        self.ends: list[float] = []
        self.updates: list[CompositorUpdate] = []
        self.sizes: list[tuple[int, int]] = []
        self.display = app._display

    def __enter__(self) -> Frames:
        display = self.display
        app = self.app
        console = app.console

        def spy(screen: Any, renderable: Any) -> None:
            display(screen, renderable)
            if not isinstance(renderable, CompositorUpdate):
                return  # None: nothing changed, no frame
            renderable.render_segments(console)
            self.ends.append(time.perf_counter())
            self.updates.append(renderable)
            self.sizes.append(tuple(app.size))  # type: ignore[arg-type]

        app._display = spy  # type: ignore[method-assign]
        return self

    def __exit__(self, *exc: object) -> None:
        self.app._display = self.display  # type: ignore[method-assign]

    async def quiet(self, since: float, quiet: float, timeout: float = 60) -> None:
        """Until no frame has come for ``quiet`` s (after ``since``)."""
        deadline = time.perf_counter() + timeout
        while time.perf_counter() - max([since, *self.ends[-1:]]) < quiet:
            if time.perf_counter() > deadline:
                raise SystemExit(f"frames still coming after {timeout:.0f} s")
            await asyncio.sleep(0.01)

    def changed(self, since: float) -> list[float]:
        """The ends of the frames after ``since`` that changed what the screen shows.

        A resize draws the whole screen at its new size (Textual redraws all when the
        size changes): the grid starts there, and that frame counts as a change, as does
        any frame before it (a repaint while Textual holds the resize back 1/120 s)."""
        picked = [i for i, end in enumerate(self.ends) if end > since]
        full = [i for i in picked if isinstance(self.updates[i], LayoutUpdate)]
        if not full:
            raise SystemExit("no full frame after the resize")
        first = full[0]
        width, height = self.sizes[first]
        grid: list[list[Cell]] = [[(" ", None)] * width for _ in range(height)]
        changed = [self.ends[i] for i in picked if i < first]
        for i in picked:
            if i < first:
                continue
            before = [row[:] for row in grid]
            self._play(self.updates[i], grid)
            if i == first or grid != before:
                changed.append(self.ends[i])
        return changed

    def _play(self, update: CompositorUpdate, grid: list[list[Cell]]) -> None:
        """Write ``update``'s segments onto ``grid`` as a terminal would."""
        console = self.app.console
        x = y = 0
        # every update the compositor makes (a subclass of it) is a rich renderable
        for segment in console.render(cast(ConsoleRenderable, update)):
            if segment.control:
                for control in segment.control:
                    if control[0] is ControlType.CURSOR_MOVE_TO and len(control) == 3:
                        x, y = int(control[1]), int(control[2])
                continue
            x, y = _write(grid, segment, x, y)


def _write(grid: list[list[Cell]], segment: Segment, x: int, y: int) -> tuple[int, int]:
    for char in segment.text:
        if char == "\n":
            x, y = 0, y + 1
            continue
        width = cell_len(char)
        if 0 <= y < len(grid) and 0 <= x < len(grid[y]):
            grid[y][x] = (char, segment.style)
            for pad in range(1, width):  # a wide character covers the next cells
                if x + pad < len(grid[y]):
                    grid[y][x + pad] = ("", segment.style)
        x += width
    return x, y
